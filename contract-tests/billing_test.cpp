// Part 4.1 billing: add-or-update, seen again through workspaces.list (Part 4.2).
#include "live.hpp"

namespace contract {
namespace {

// Part 4.1's body fields (all strings; addressLineTwo/Three optional).
const std::vector<std::string> kBillingFields = {"firstName", "lastName", "company",    "addressLineOne", "addressLineTwo",
                                                 "addressLineThree", "city", "state", "country", "postalCode",
                                                 "phoneCc",   "phone",    "workspaceId"};

json TestDetails(const std::string& workspace) {
  return {{"firstName", "Ada"},         {"lastName", "Lovelace"},   {"company", "Contract Suite Ltd"},
          {"addressLineOne", "1 Engine St"}, {"addressLineTwo", "Floor 2"}, {"addressLineThree", nullptr},
          {"city", "London"},           {"state", "LDN"},           {"country", "GB"},
          {"postalCode", "N1 9GU"},     {"phoneCc", "+44"},         {"phone", "2071234567"},
          {"workspaceId", workspace}};
}

// The request body that writes `details` (a Part 2 billing record) back unchanged.
json BodyFrom(const json& details) {
  json body = json::object();
  for (const auto& f : kBillingFields)
    if (details.contains(f)) body[f] = details[f];
  return body;
}

json WorkspaceById(const std::string& id) {
  for (const auto& w : Workspaces())
    if (w.value("id", "") == id) return w;
  return nullptr;
}

TEST(BillingAddOrUpdate, SavedDetailsShowInTheWorkspaceList) {
  REQUIRE_EFFECT("billing.add_or_update");
  const json workspaces = Workspaces();
  ASSERT_FALSE(workspaces.empty());
  const std::string ws = Cfg().workspaceKey.empty() ? workspaces[0].value("id", "") : Cfg().workspaceKey;
  const json before = WorkspaceById(ws);
  ASSERT_TRUE(before.is_object()) << "workspaces.list: no workspace " << ws;
  // On a real deployment the suite writes back what it read, so the account keeps its details;
  // a workspace without details (or emsim) gets the suite's test values.
  // Saved details have an id; emsim answers an object of nulls (id null) for a workspace without.
  const bool had = before["billingDetails"].is_object() && before["billingDetails"].value("id", json()).is_string();
  json body = had && !Cfg().isEmsim ? BodyFrom(before["billingDetails"]) : TestDetails(ws);
  body["workspaceId"] = ws;
  Args a;
  a.body = body;
  Reply r = Invoke("billing.add_or_update", a);
  if (!ExpectOk(r)) return;
  if (!r.body["data"].is_null()) Violation("billing.add_or_update", "/data", "must be null (Part 4.1)");
  const json after = WorkspaceById(ws);
  ASSERT_TRUE(after.is_object());
  const json& saved = after["billingDetails"];
  if (!saved.is_object()) {
    Violation("workspaces.list", "/data/billingDetails", "must hold the details just saved for " + ws + " (Part 4.1/4.2)");
    return;
  }
  for (const auto& [k, v] : body.items())
    if (saved.value(k, json()) != v)
      Violation("workspaces.list", "/data/billingDetails/" + k,
                "must be the value just saved (" + v.dump() + "), got " + saved.value(k, json()).dump());
  // Part 2: id, userId, languagePreference are returned on read.
  for (const char* f : {"id", "userId", "languagePreference"})
    if (!saved.contains(f)) Violation("workspaces.list", std::string("/data/billingDetails/") + f, "is required on read (Part 2)");
  // Updating keeps the record: same id.
  if (had && before["billingDetails"].value("id", "") != saved.value("id", ""))
    Violation("billing.add_or_update", "billingDetails.id", "must stay the same when details are updated (add-or-update)");
  if (Cfg().isEmsim && had) {
    Args restore;
    restore.body = BodyFrom(before["billingDetails"]);
    ExpectOk(Invoke("billing.add_or_update", restore));
  }
}

TEST(BillingAddOrUpdate, EachRequiredFieldMissingIs400NamingIt) {
  REQUIRE_EMSIM_GAP("which billing fields are required (all but addressLineTwo/Three)");
  const std::string ws = Workspaces().at(0).value("id", "");
  for (const auto& field : kBillingFields) {
    if (field == "addressLineTwo" || field == "addressLineThree") continue;
    json body = TestDetails(ws);
    body.erase(field);
    Args a;
    a.body = body;
    ExpectError(Invoke("billing.add_or_update", a), 400, field);
  }
}

TEST(BillingAddOrUpdate, WrongTypesAre400NamingTheField) {
  REQUIRE_EFFECT("billing.add_or_update");
  // Part 4.1: all fields are strings; Part 7: a validation failure names the param.
  const std::string ws = Workspaces().at(0).value("id", "");
  for (const char* field : {"firstName", "country", "postalCode"}) {
    json body = TestDetails(ws);
    body[field] = 12345;
    Args a;
    a.body = body;
    ExpectError(Invoke("billing.add_or_update", a), 400, field);
  }
}

TEST(BillingAddOrUpdate, CountryMustBeAnIsoCode) {
  REQUIRE_EMSIM_GAP("country must be a real ISO 3166-1 alpha-2 code");
  const std::string ws = Workspaces().at(0).value("id", "");
  for (const char* bad : {"United Kingdom", "XX", "gb"}) {
    json body = TestDetails(ws);
    body["country"] = bad;
    Args a;
    a.body = body;
    ExpectError(Invoke("billing.add_or_update", a), 400, "country");
  }
}

}  // namespace
}  // namespace contract
