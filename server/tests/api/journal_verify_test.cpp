// The request journal as a test asks it questions (WireMock's verify): entries carry the caller's
// account, the operation and the headers (secret ones masked); filters; a count with the closest
// misses when nothing matched; DELETE empties it.
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

json Journal(TestServer& s, const std::string& query = "") { return s.Get("/_sim/requests" + query, "").body["requests"]; }

TEST(JournalVerify, EntriesCarryAccountOperationAndMaskedHeaders) {
  TestServer s;
  ASSERT_EQ(s.Get("/v1/workspace/list", kAliceKey, {{"X-Trace", "abc"}}).status, 200);
  const json entry = Journal(s).back();
  EXPECT_EQ(entry["operationId"], "workspaces.list");
  EXPECT_EQ(entry["accountId"], "acc_alice");
  EXPECT_EQ(entry["headers"]["x-trace"], "abc");
  EXPECT_EQ(entry["headers"]["x-auth-service"], "<masked>");
  EXPECT_EQ(Journal(s, "?secrets=true").back()["headers"]["x-auth-service"], kAliceKey);
  // A refused key has no account.
  ASSERT_EQ(s.Get("/v1/workspace/list", "emsim_wrong").status, 401);
  EXPECT_TRUE(Journal(s).back()["accountId"].is_null());
}

TEST(JournalVerify, FiltersByAccountOperationStatusAndTime) {
  TestServer s;
  s.Get("/v1/workspace/list", kAliceKey);
  s.Get("/v1/workspace/list", kBobKey);
  s.Advance("1h");
  s.Get("/v1/domain/list", kBobKey);
  EXPECT_EQ(Journal(s, "?account=acc_bob").size(), 2u);
  EXPECT_EQ(Journal(s, "?account=acc_bob&operation=workspaces.list").size(), 1u);
  EXPECT_EQ(Journal(s, "?operationId=workspaces.list").size(), 2u);
  EXPECT_EQ(Journal(s, "?since=2026-01-01T09:30:00.000Z&pathPrefix=/v1/").size(), 1u);
  EXPECT_EQ(Journal(s, "?status=200&account=acc_alice").size(), 1u);
  auto bad = s.Get("/_sim/requests?since=yesterday", "");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.raw.find("since"), std::string::npos);
}

TEST(JournalVerify, CountMatchesAPatternIncludingBodyAndHeaders) {
  TestServer s;
  json body = {{"url", "http://127.0.0.1:9/hook"}, {"enabled_events", {"domain.updated"}}};
  ASSERT_EQ(s.Post("/v2/webhooks/endpoints", body).status, 200);
  auto r = s.Post("/_sim/requests/count",
                  {{"method", "POST"}, {"path", "/v2/webhooks/endpoints"}, {"status", 200}, {"accountId", "acc_alice"},
                   {"headers", {{"X-Auth-Service", kAliceKey}}}, {"body", {{"url", "http://127.0.0.1:9/hook"}}}},
                  "");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["count"], 1);
  EXPECT_TRUE(r.body["nearMisses"].empty());
  // Counting does not count itself: asking twice answers the same.
  EXPECT_EQ(s.Post("/_sim/requests/count", {{"operationId", "webhooks.create"}}, "").body["count"], 1);
}

TEST(JournalVerify, NoMatchAnswersTheClosestMissesWithReasons) {
  TestServer s;
  s.Get("/v1/workspace/list", kAliceKey);
  s.Get("/v1/domain/list", kAliceKey);
  auto r = s.Post("/_sim/requests/count", {{"path", "/v1/domain/list"}, {"status", 201}}, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["count"], 0);
  ASSERT_GE(r.body["nearMisses"].size(), 2u);
  const json closest = r.body["nearMisses"][0];
  EXPECT_EQ(closest["request"]["path"], "/v1/domain/list");
  ASSERT_EQ(closest["mismatches"].size(), 1u);
  EXPECT_EQ(closest["mismatches"][0], "status: 200, not 201");
  EXPECT_EQ(r.body["nearMisses"][1]["mismatches"].size(), 2u);
}

TEST(JournalVerify, BadPatternsAre400) {
  TestServer s;
  EXPECT_EQ(s.Post("/_sim/requests/count", {{"status", "two hundred"}}, "").status, 400);
  EXPECT_EQ(s.Post("/_sim/requests/count", {{"bogus", 1}}, "").status, 400);
  EXPECT_EQ(s.Post("/_sim/requests/count", {{"headers", {{"x", 1}}}}, "").status, 400);
  EXPECT_EQ(s.Post("/_sim/requests/count", {{"since", "soon"}}, "").status, 400);
  EXPECT_EQ(s.Post("/_sim/requests/count", json::array(), "").status, 400);
}

TEST(JournalVerify, DeleteEmptiesTheJournalAndSaysHowMany) {
  TestServer s;
  s.Get("/v1/workspace/list", kAliceKey);
  s.Get("/v1/workspace/list", kAliceKey);
  auto r = s.Delete("/_sim/requests", "");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["cleared"], 2);
  const json after = Journal(s);
  ASSERT_EQ(after.size(), 1u);  // the DELETE itself
  EXPECT_EQ(after[0]["operationId"], "sim.requests.clear");
}

}  // namespace
}  // namespace emsim::testing
