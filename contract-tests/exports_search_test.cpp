// Part 4.5 exports and Part 4.9 mailbox search.
#include "live.hpp"

namespace contract {
namespace {

// ---- exports.export_mailboxes ------------------------------------------------------------------

TEST(ExportsExportMailboxes, CsvExportStartsWithNullData) {
  REQUIRE_EFFECT("exports.export_mailboxes");
  // Part 4.5: apps ["MANUAL"] means a CSV file; "an empty string is accepted" for status.
  Args a;
  a.body = json{{"apps", {"MANUAL"}}, {"status", ""}};
  Reply r = Invoke("exports.export_mailboxes", a);
  if (ExpectOk(r) && !r.body["data"].is_null()) Violation("exports.export_mailboxes", "/data", "must be null (Part 4.5: the export starts asynchronously)");
}

TEST(ExportsExportMailboxes, CsvExportCompletesLater) {
  REQUIRE_EMSIM("the export job is run by /_sim/clock/advance and /_sim/exports shows it");
  Args a;
  a.body = json{{"apps", {"MANUAL"}}};
  if (!ExpectOk(Invoke("exports.export_mailboxes", a))) return;
  AdvanceClock("5m");
  Call c;
  c.path = "/_sim/exports";
  c.workspaceKey = "";
  Reply r = Send(c);
  ASSERT_EQ(r.status, 200) << r.Brief();
  const json exports = r.body.value("exports", json::array());
  ASSERT_FALSE(exports.empty()) << r.Brief();
  const json& last = exports.back();
  EXPECT_EQ(last.value("status", ""), "COMPLETED") << last.dump();
}

TEST(ExportsExportMailboxes, AppsIsRequired) {
  REQUIRE_EFFECT("exports.export_mailboxes");
  CheckRequiredFields("exports.export_mailboxes", {{"apps", {"MANUAL"}}}, {"apps"}, {{"apps", "MANUAL"}});
}

TEST(ExportsExportMailboxes, UnknownAppIs400) {
  REQUIRE_EMSIM_GAP("app ids beyond MANUAL (Part 4.5: not shown); an unknown one answers 400 naming apps");
  Args a;
  a.body = json{{"apps", {"CONTRACT_SUITE_NO_SUCH_APP"}}};
  ExpectError(Invoke("exports.export_mailboxes", a), 400, "apps");
}

// ---- exports.update_third_party_account ---------------------------------------------------------

TEST(ExportsUpdateThirdPartyAccount, AcceptedWithNullDataAndThePasswordNeverComesBack) {
  REQUIRE_EMSIM_GAP("a third-party app id to store credentials for (Part 4.5 shows none but MANUAL)");
  const std::string password = "contract-suite-secret-" + Nonce();
  Args a;
  a.body = json{{"email", "ops@example.com"}, {"password", password}, {"app", "INSTANTLY"}};
  Reply r = Invoke("exports.update_third_party_account", a);
  if (ExpectOk(r) && !r.body["data"].is_null()) Violation("exports.update_third_party_account", "/data", "must be null (Part 4.5)");
  if (r.raw.find(password) != std::string::npos) Violation("exports.update_third_party_account", "body", "must never echo the password");
  // Nor may the journal or the state dump keep it.
  Reply journal = Sim("GET", "/_sim/requests?operationId=exports.update_third_party_account");
  EXPECT_EQ(journal.raw.find(password), std::string::npos) << "GET /_sim/requests shows the password";
  EXPECT_EQ(Sim("GET", "/_sim/state").raw.find(password), std::string::npos) << "GET /_sim/state shows the password";
}

TEST(ExportsUpdateThirdPartyAccount, AllFieldsAreRequired) {
  REQUIRE_EFFECT("exports.update_third_party_account");
  CheckRequiredFields("exports.update_third_party_account",
                      {{"email", "ops@example.com"}, {"password", "x-" + Nonce()}, {"app", "INSTANTLY"}},
                      {"email", "password", "app"}, {{"email", 12}, {"password", false}});
}

// ---- onebox.search_emails (no envelope) --------------------------------------------------------

TEST(OneboxSearchEmails, AnswersSuccessAndDataWithoutEnvelope) {
  Reply r = Invoke("onebox.search_emails");
  if (!ExpectOk(r)) return;
  // Part 4.9: {success: boolean, data: [Email message summary]}.
  if (r.body.value("success", false) != true) Violation("onebox.search_emails", "/success", "must be true on a 200");
  const json& data = r.body.value("data", json::array());
  for (size_t i = 0; i < data.size(); ++i) {
    const json& e = data[i];
    // Part 2: from and to are arrays of {name, address}; cc an array of strings.
    for (const char* f : {"from", "to"})
      for (const auto& who : e.value(f, json::array()))
        if (!who.is_object() || !who.contains("address"))
          Violation("onebox.search_emails", "/data/" + std::to_string(i) + "/" + f, "must hold {name, address} objects (Part 2)");
  }
}

TEST(OneboxSearchEmails, FiltersNarrowTheResults) {
  REQUIRE_EMSIM_GAP("search parameters (Part 4.9: not shown): q matches subject, snippet, from or to; isRead filters");
  Reply all = Invoke("onebox.search_emails");
  if (!ExpectOk(all)) return;
  const json& data = all.body["data"];
  if (data.empty()) GTEST_SKIP() << "the workspace holds no email";
  Args unread;
  unread.query["isRead"] = "false";
  Reply r = Invoke("onebox.search_emails", unread);
  if (!ExpectOk(r)) return;
  for (size_t i = 0; i < r.body["data"].size(); ++i)
    if (r.body["data"][i].value("isRead", true))
      Violation("onebox.search_emails", "/data/" + std::to_string(i) + "/isRead", "must be false under isRead=false");
  Args bad;
  bad.query["isRead"] = "maybe";
  ExpectError(Invoke("onebox.search_emails", bad), 400, "isRead");
}

}  // namespace
}  // namespace contract
