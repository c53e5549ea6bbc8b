// Part 2 / Part 4.2: a Workspace's billingDetails is an object, also before any details are
// saved (README "Gap decisions": every field null except workspaceId).
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

constexpr const char* kBillingFields[] = {"id",          "userId",         "firstName",        "lastName",
                                          "workspaceId", "company",        "addressLineOne",   "addressLineTwo",
                                          "addressLineThree", "city",      "state",            "country",
                                          "postalCode",  "phoneCc",        "phone",            "languagePreference"};

json WorkspaceIn(const HttpResult& list, const std::string& id) {
  for (const auto& w : list.body["data"])
    if (w.value("id", "") == id) return w;
  return nullptr;
}

TEST(BillingDetails, AWorkspaceWithoutDetailsAnswersTheObjectWithNullFields) {
  TestServer server;
  const auto list = server.Get("/v1/workspace/list");
  ASSERT_EQ(list.status, 200) << list.raw;
  EXPECT_CONFORMS(server, "responses/workspaces.list", list.body);
  const json labs = WorkspaceIn(list, "ws_labs");  // the default fixture saves none for it
  ASSERT_TRUE(labs.is_object()) << list.raw;
  const json& b = labs["billingDetails"];
  ASSERT_TRUE(b.is_object()) << b.dump();
  EXPECT_EQ(b.size(), std::size(kBillingFields)) << b.dump();
  for (const char* field : kBillingFields) {
    ASSERT_TRUE(b.contains(field)) << field;
    if (std::string(field) == "workspaceId") EXPECT_EQ(b[field], "ws_labs");
    else EXPECT_TRUE(b[field].is_null()) << field << " = " << b[field].dump();
  }
}

TEST(BillingDetails, SavedDetailsReplaceTheEmptyFormAndStillConform) {
  TestServer server;
  const json body = {{"firstName", "Ada"},          {"lastName", "Lovelace"},      {"company", "Analytical Ltd"},
                     {"addressLineOne", "1 Engine St"}, {"city", "London"},         {"state", "LDN"},
                     {"country", "GB"},              {"postalCode", "N1 9GU"},      {"phoneCc", "+44"},
                     {"phone", "2071234567"},        {"workspaceId", "ws_labs"}};
  ASSERT_EQ(server.Post("/v1/billing-details/add-or-update", body).status, 200);
  const auto list = server.Get("/v1/workspace/list");
  EXPECT_CONFORMS(server, "responses/workspaces.list", list.body);
  const json b = WorkspaceIn(list, "ws_labs")["billingDetails"];
  EXPECT_TRUE(b["id"].is_string()) << b.dump();
  EXPECT_EQ(b["firstName"], "Ada");
  EXPECT_EQ(b.size(), std::size(kBillingFields));
}

TEST(BillingDetails, TheSchemaRequiresAnObject) {
  TestServer server;
  auto list = server.Get("/v1/workspace/list");
  json doc = list.body;
  ASSERT_TRUE(doc["data"].is_array() && !doc["data"].empty());
  EXPECT_CONFORMS(server, "responses/workspaces.list", doc);
  // null, an empty object and a half-empty one are all refused: a client gets every key, always.
  for (const json& bad : {json(nullptr), json::object(), json{{"id", nullptr}, {"workspaceId", "ws_labs"}}}) {
    doc["data"][0]["billingDetails"] = bad;
    EXPECT_NE(server.SchemaProblems("responses/workspaces.list", doc), "") << bad.dump();
  }
  // A saved record with a null id is neither form.
  json half = WorkspaceIn(list, "ws_labs")["billingDetails"];
  half["firstName"] = "Ada";
  doc["data"][0]["billingDetails"] = half;
  EXPECT_NE(server.SchemaProblems("responses/workspaces.list", doc), "") << half.dump();
}

}  // namespace
}  // namespace emsim::testing
