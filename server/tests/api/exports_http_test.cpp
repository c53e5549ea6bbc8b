// HTTP tests for Part 4.5 exports (exports.export_mailboxes, exports.update_third_party_account)
// and GET /_sim/exports[/:id]: success paths, every error, and the state change that later
// calls observe only once the clock has moved past `exportSeconds`.
#include <functional>
#include <set>

#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

constexpr const char* kExport = "/v1/exports/export-mailboxes";
constexpr const char* kCredentials = "/v1/exports/update-third-party-account";

json State(TestServer& server) { return server.Get("/_sim/state?secrets=true", "").body; }

// Mailbox ids of a workspace in the dump, in creation order, optionally filtered.
std::vector<std::string> MailboxIds(const json& state, const std::string& workspace,
                                    const std::function<bool(const json&)>& keep = nullptr) {
  std::vector<std::string> out;
  for (const auto& m : state["mailboxes"])
    if (m["workspaceId"] == workspace && (!keep || keep(m))) out.push_back(m["id"]);
  return out;
}

json Exports(TestServer& server, const std::string& api_key = "") {
  auto r = server.Get("/_sim/exports", api_key);
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body["exports"];
}

// Part 6 envelopes of the events of one type, from the state dump.
std::vector<json> Events(TestServer& server, const std::string& type) {
  std::vector<json> out;
  const json state = State(server);
  for (const auto& e : state["events"])
    if (e["type"] == type)
      out.push_back({{"id", e["id"]},
                     {"type", e["type"]},
                     {"created", e["createdMs"].get<std::int64_t>() / 1000},
                     {"api_version", e["apiVersion"]},
                     {"data", e["data"]}});
  return out;
}

TEST(ExportMailboxes, ManualAnswersAtOnceAndTheCsvAppearsOnlyAfterTheClockAdvances) {
  TestServer server;
  auto r = server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"status", ""}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/exports.export_mailboxes", r.body);
  EXPECT_EQ(r.body["data"], nullptr);

  json exports = Exports(server);
  ASSERT_EQ(exports.size(), 1u);
  const std::string id = exports[0]["id"];
  EXPECT_EQ(exports[0]["status"], "STARTED");
  EXPECT_EQ(exports[0]["csv"], nullptr);
  EXPECT_EQ(exports[0]["workspaceId"], "ws_northwind");  // no header: the default workspace
  const auto expected = MailboxIds(State(server), "ws_northwind");
  EXPECT_EQ(exports[0]["mailboxIds"].get<std::vector<std::string>>(), expected);
  auto early = server.Get("/_sim/exports/" + id + "?format=csv", "");
  EXPECT_EQ(early.status, 404);
  EXPECT_NE(early.body["message"].get<std::string>().find("yet"), std::string::npos);

  server.Advance("119s");  // exportSeconds defaults to 120
  EXPECT_EQ(server.Get("/_sim/exports/" + id, "").body["status"], "STARTED");
  EXPECT_EQ(server.Advance("1s"), 1);
  auto done = server.Get("/_sim/exports/" + id, "");
  ASSERT_EQ(done.status, 200);
  EXPECT_EQ(done.body["status"], "COMPLETED");
  EXPECT_EQ(done.body["completedAt"], "2026-01-01T09:02:00.000Z");

  auto csv = server.Get("/_sim/exports/" + id + "?format=csv", "");
  ASSERT_EQ(csv.status, 200);
  EXPECT_EQ(csv.Header("Content-Type").rfind("text/csv", 0), 0u);
  EXPECT_EQ(csv.raw, done.body["csv"]);
  EXPECT_EQ(csv.raw.rfind("email,firstName,lastName,status,domain\r\n", 0), 0u);
  size_t lines = 0;
  for (char c : csv.raw) lines += c == '\n';
  EXPECT_EQ(lines, expected.size() + 1);

  // Events: export.started when accepted, export.completed when the job ran.
  auto started = Events(server, "export.started");
  auto completed = Events(server, "export.completed");
  ASSERT_EQ(started.size(), 1u);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_CONFORMS(server, "events/export.started", started[0]);
  EXPECT_CONFORMS(server, "events/export.completed", completed[0]);
  EXPECT_EQ(completed[0]["data"]["exportDetails"]["id"], id);
  EXPECT_EQ(completed[0]["data"]["previousState"]["status"], "STARTED");
}

TEST(ExportMailboxes, FiltersSelectTheMailboxesRecordedOnTheExport) {
  TestServer server;
  const json state = State(server);
  std::set<std::string> q1_domains;
  for (const auto& d : state["domains"])
    for (const auto& t : d["tags"])
      if (t == "tag_q1" && d["workspaceId"] == "ws_northwind") q1_domains.insert(d["id"]);
  auto want = MailboxIds(state, "ws_northwind",
                         [&](const json& m) { return q1_domains.count(m["domainId"]) && m["status"] == "ACTIVE"; });
  ASSERT_GT(want.size(), 2u);
  const std::string excluded = want.front();
  want.erase(want.begin());

  auto r = server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"tagIds", json::array({"tag_q1"})}, {"status", "ACTIVE"},
                                 {"excludeIds", json::array({excluded})}, {"contains", ""}});
  ASSERT_EQ(r.status, 200) << r.raw;
  json x = Exports(server)[0];
  EXPECT_EQ(x["mailboxIds"].get<std::vector<std::string>>(), want);
  EXPECT_EQ(x["filters"]["tagIds"], json({"tag_q1"}));

  // ids + contains: the named mailboxes whose address contains the text.
  const std::string first = state["mailboxes"][0]["id"], second = state["mailboxes"][1]["id"];
  const std::string username = state["mailboxes"][1]["username"];
  r = server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"ids", json::array({first, second})}, {"contains", username}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(Exports(server)[1]["mailboxIds"], json({second}));
}

TEST(ExportMailboxes, TheWorkspaceHeaderSelectsWhichMailboxesAreExported) {
  TestServer server;
  auto r = server.Post(kExport, {{"apps", json::array({"MANUAL"})}}, kAliceKey, {{"x-workspace-key", "ws_labs"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  json x = Exports(server)[0];
  EXPECT_EQ(x["workspaceId"], "ws_labs");
  EXPECT_EQ(x["mailboxIds"].get<std::vector<std::string>>(), MailboxIds(State(server), "ws_labs"));
}

TEST(ExportMailboxes, BadRequestsAre400sThatChangeNothing) {
  TestServer server;
  const std::string bobs_mailbox = MailboxIds(State(server), "ws_lumen").at(0);
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"MANUAL", "HUBSPOT"})}}), "apps");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"manual"})}}), "apps");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array()}}), "apps");
  ExpectValidationError(server, server.Post(kExport, {{"apps", "MANUAL"}}), "apps");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"MANUAL", "MANUAL"})}}), "apps");
  ExpectValidationError(server, server.Post(kExport, {{"ids", json::array()}}), "apps");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"status", "DELETED"}}), "status");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"ids", json::array({42})}}), "ids[0]");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"tagIds", "tag_q1"}}), "tagIds");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"ids", json::array({bobs_mailbox})}}), "ids");
  ExpectValidationError(server, server.Post(kExport, {{"apps", json::array({"MANUAL"})}, {"contains", "zz-no-such-mailbox"}}),
                        "body");
  auto unknown = server.Post(kExport, {{"apps", json::array({"MANUAL", "HUBSPOT"})}});
  EXPECT_NE(unknown.body["errors"][0]["msg"].get<std::string>().find("HUBSPOT"), std::string::npos);
  auto no_key = server.Post(kExport, {{"apps", json::array({"MANUAL"})}}, "");
  EXPECT_EQ(no_key.status, 401);
  EXPECT_CONFORMS(server, "resources/error_with_id", no_key.body);

  const json state = State(server);
  EXPECT_TRUE(state["exports"].empty());
  EXPECT_TRUE(state["jobs"].empty());
  EXPECT_TRUE(state["events"].empty());
}

TEST(ExportMailboxes, ThirdPartyAppFailsWithoutCredentialsReconnectsAndThenSends) {
  TestServer server;
  ASSERT_EQ(server.Post(kExport, {{"apps", json::array({"MANUAL", "INSTANTLY"})}}).status, 200);
  server.Advance("2m");
  json failed = Exports(server)[0];
  EXPECT_EQ(failed["status"], "FAILED");
  EXPECT_NE(failed["failureReason"].get<std::string>().find("INSTANTLY"), std::string::npos);
  EXPECT_EQ(failed["results"][0]["status"], "COMPLETED");  // the CSV part still happened
  EXPECT_FALSE(failed["csv"].is_null());
  EXPECT_EQ(failed["results"][1]["status"], "FAILED");
  auto failed_events = Events(server, "export.failed");
  ASSERT_EQ(failed_events.size(), 1u);
  EXPECT_CONFORMS(server, "events/export.failed", failed_events[0]);

  auto r = server.Post(kCredentials, {{"email", "ops@northwind-outreach.com"}, {"password", "n3w-Secret!"}, {"app", "INSTANTLY"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/exports.update_third_party_account", r.body);
  auto reconnected = Events(server, "export.reconnected");
  ASSERT_EQ(reconnected.size(), 1u);
  EXPECT_CONFORMS(server, "events/export.reconnected", reconnected[0]);
  EXPECT_EQ(reconnected[0]["data"]["exportDetails"]["id"], failed["id"]);
  EXPECT_EQ(Exports(server)[0]["reconnectedAt"], "2026-01-01T09:02:00.000Z");

  ASSERT_EQ(server.Post(kExport, {{"apps", json::array({"INSTANTLY"})}, {"status", "ACTIVE"}}).status, 200);
  EXPECT_EQ(Exports(server)[1]["status"], "STARTED");
  server.Advance("2m");
  json sent = Exports(server)[1];
  EXPECT_EQ(sent["status"], "COMPLETED");
  EXPECT_EQ(sent["csv"], nullptr);
  EXPECT_EQ(sent["results"][0]["accountEmail"], "ops@northwind-outreach.com");
  EXPECT_EQ(sent["results"][0]["rows"], sent["mailboxCount"]);
  EXPECT_EQ(sent["results"][0]["sentMailboxes"].size(), sent["mailboxIds"].size());
}

TEST(UpdateThirdPartyAccount, ThePasswordIsNeverEchoedJournaledOrDumped) {
  TestServer server;
  const std::string password = "pw-Zq9-hunter2-do-not-leak";
  auto r = server.Post(kCredentials, {{"email", "ops@example.com"}, {"password", password}, {"app", "SMARTLEAD"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.raw.find(password), std::string::npos);
  // A rejected request and an unparsable body mentioning the password are journaled too.
  auto rejected = server.Post(kCredentials, {{"email", "not-an-email"}, {"password", password}, {"app", "SMARTLEAD"}});
  EXPECT_EQ(rejected.status, 400);
  EXPECT_EQ(rejected.raw.find(password), std::string::npos);
  auto malformed = server.Send("POST", kCredentials, "{\"password\": \"" + password + "\",", kAliceKey, {});
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(malformed.raw.find(password), std::string::npos);

  auto state = server.Get("/_sim/state?secrets=true", "");
  auto journal = server.Get("/_sim/requests", "");
  for (const char* path : {"/_sim/state", "/_sim/requests", "/_sim/exports", "/_sim/events", "/_sim/deliveries"})
    EXPECT_EQ(server.Get(path, "").raw.find(password), std::string::npos) << path;
  size_t journaled = 0;  // all three were journaled, redacted
  for (const auto& e : journal.body["requests"]) journaled += e["operationId"] == "exports.update_third_party_account";
  EXPECT_EQ(journaled, 3u);

  // What is kept is a fingerprint that changes with the password.
  ASSERT_EQ(state.body["thirdPartyAccounts"].size(), 1u);
  const std::string fingerprint = state.body["thirdPartyAccounts"][0]["passwordFingerprint"];
  EXPECT_EQ(fingerprint.rfind("sha256:", 0), 0u);
  EXPECT_EQ(fingerprint.size(), 7u + 64u);
  ASSERT_EQ(server.Post(kCredentials, {{"email", "OPS@example.com"}, {"password", "other"}, {"app", "SMARTLEAD"}}).status,
            200);
  json after = State(server)["thirdPartyAccounts"];
  ASSERT_EQ(after.size(), 1u);  // same account + app + email: updated in place
  EXPECT_NE(after[0]["passwordFingerprint"], fingerprint);
}

TEST(UpdateThirdPartyAccount, BadRequestsAre400sThatChangeNothing) {
  TestServer server;
  const json ok = {{"email", "ops@example.com"}, {"password", "secret"}, {"app", "LEMLIST"}};
  auto with = [&](const char* key, json value) {
    json b = ok;
    if (value.is_discarded()) b.erase(key);
    else b[key] = std::move(value);
    return server.Post(kCredentials, b);
  };
  ExpectValidationError(server, with("app", "MANUAL"), "app");
  ExpectValidationError(server, with("app", "HUBSPOT"), "app");
  ExpectValidationError(server, with("app", json::value_t::discarded), "app");
  ExpectValidationError(server, with("email", "ops.example.com"), "email");
  ExpectValidationError(server, with("email", json::value_t::discarded), "email");
  ExpectValidationError(server, with("password", ""), "password");
  ExpectValidationError(server, with("password", 1234), "password");
  ExpectValidationError(server, with("password", json::value_t::discarded), "password");
  EXPECT_EQ(server.Post(kCredentials, ok, "").status, 401);
  EXPECT_TRUE(State(server)["thirdPartyAccounts"].empty());
}

TEST(SimExports, ScopedByApiKeyAndFilteredByQuery) {
  TestServer server;
  ASSERT_EQ(server.Post(kExport, {{"apps", json::array({"MANUAL"})}}).status, 200);
  ASSERT_EQ(server.Post(kExport, {{"apps", json::array({"LEMLIST"})}}, kBobKey).status, 200);
  EXPECT_EQ(Exports(server).size(), 2u);
  json alice = Exports(server, kAliceKey), bob = Exports(server, kBobKey);
  ASSERT_EQ(alice.size(), 1u);
  ASSERT_EQ(bob.size(), 1u);
  EXPECT_EQ(bob[0]["accountId"], "acc_bob");
  EXPECT_EQ(server.Get("/_sim/exports", "not-a-key").status, 401);
  EXPECT_EQ(server.Get("/_sim/exports/" + alice[0]["id"].get<std::string>(), kBobKey).status, 404);
  EXPECT_EQ(server.Get("/_sim/exports/no-such-export", "").status, 404);
  EXPECT_EQ(server.Get("/_sim/exports?workspaceId=ws_lumen", "").body["exports"].size(), 1u);
  EXPECT_EQ(server.Get("/_sim/exports?format=xml", "").status, 200);  // unknown filters are ignored
  EXPECT_EQ(server.Get("/_sim/exports/" + alice[0]["id"].get<std::string>() + "?format=xml", "").status, 400);

  server.Advance("2m");
  EXPECT_EQ(server.Get("/_sim/exports?status=FAILED", "").body["exports"].size(), 1u);
  EXPECT_EQ(server.Get("/_sim/exports?status=COMPLETED", "").body["exports"].size(), 1u);
  auto no_csv = server.Get("/_sim/exports/" + bob[0]["id"].get<std::string>() + "?format=csv", "");
  EXPECT_EQ(no_csv.status, 404);
  EXPECT_NE(no_csv.body["message"].get<std::string>().find("MANUAL"), std::string::npos);
}

TEST(SimExports, ResetForgetsExportsCredentialsAndPendingJobsAndDumpLoadKeepsThem) {
  TestServer server;
  ASSERT_EQ(server.Post(kExport, {{"apps", json::array({"MANUAL"})}}).status, 200);
  ASSERT_EQ(server.Post(kCredentials, {{"email", "a@b.co"}, {"password", "x"}, {"app", "REPLY_IO"}}).status, 200);
  json dump = State(server);
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_TRUE(Exports(server).empty());
  EXPECT_TRUE(State(server)["thirdPartyAccounts"].empty());
  EXPECT_EQ(server.Advance("5m"), 0);  // the pending export job went with the reset

  ASSERT_EQ(server.Put("/_sim/state", dump).status, 200);
  EXPECT_EQ(Exports(server).size(), 1u);
  EXPECT_EQ(server.Advance("5m"), 1);  // the loaded job runs
  EXPECT_EQ(Exports(server)[0]["status"], "COMPLETED");
}

TEST(ExportEvents, AreDeliveredToSubscribedWebhooksWhenTheJobRuns) {
  TestServer server;
  auto sink = server.Post("/_sim/sinks", {{"name", "exports"}}, "");
  ASSERT_EQ(sink.status, 201) << sink.raw;
  auto endpoint = server.Post("/v2/webhooks/endpoints",
                              {{"url", sink.body["url"]}, {"enabled_events", json::array({"export.completed"})}});
  ASSERT_EQ(endpoint.status, 200) << endpoint.raw;
  ASSERT_EQ(server.Post(kExport, {{"apps", json::array({"MANUAL"})}}).status, 200);
  server.Advance("1m");
  EXPECT_EQ(server.Get("/_sim/sinks/" + sink.body["id"].get<std::string>(), "").body["received"], 0);
  server.Advance("1m");  // the export job runs, then the delivery it scheduled
  json got = server.Get("/_sim/sinks/" + sink.body["id"].get<std::string>(), "").body;
  ASSERT_EQ(got["received"], 1) << got.dump();
  EXPECT_EQ(got["requests"][0]["signatureValid"], true);
  json delivered = json::parse(got["requests"][0]["body"].get<std::string>());
  EXPECT_CONFORMS(server, "events/export.completed", delivered);
  EXPECT_EQ(delivered["data"]["exportDetails"]["id"], Exports(server)[0]["id"]);
}

TEST(ExportEvents, SimEventsTriggerBuildsExportDetailsFromAnExportId) {
  TestServer server;
  ASSERT_EQ(server.Post(kExport, {{"apps", json::array({"LEMLIST"})}}).status, 200);
  server.Advance("2m");
  const std::string id = Exports(server)[0]["id"];
  auto r = server.Post("/_sim/events", {{"type", "export.reconnected"}, {"apiKey", kAliceKey}, {"objectId", id}}, "");
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["event"]["data"]["exportDetails"]["status"], "FAILED");
  EXPECT_EQ(r.body["schemaIssues"], json::array());
  auto foreign = server.Post("/_sim/events", {{"type", "export.failed"}, {"apiKey", kBobKey}, {"objectId", id}}, "");
  EXPECT_EQ(foreign.status, 400);
}

}  // namespace
}  // namespace emsim::testing
