// In-process HTTP tier for the first endpoints (Part 4.1-4.4 lists and billing details) and the
// first part of the control plane (reset, state dump/load, clock). Each test has its own server
// on port 0.
#include <set>

#include "core/messages.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

// ---- the five endpoints -------------------------------------------------------------------------

TEST(Workspaces, ListShowsCountsFromStateAsNumericText) {
  TestServer server;
  auto r = server.Get("/v1/workspace/list");
  ASSERT_EQ(r.status, 200);
  EXPECT_CONFORMS(server, "responses/workspaces.list", r.body);
  ASSERT_EQ(r.body["data"].size(), 2u);
  EXPECT_EQ(r.body["data"][0]["id"], "ws_northwind");
  EXPECT_EQ(r.body["data"][0]["domainCount"], "14");
  EXPECT_EQ(r.body["data"][0]["mailboxCount"], "76");
  EXPECT_TRUE(r.body["data"][1]["billingDetails"]["id"].is_null());  // none saved (billing_details_test.cpp)
  auto bob = server.Get("/v1/workspace/list", kBobKey);
  ASSERT_EQ(bob.body["data"].size(), 1u);
  EXPECT_EQ(bob.body["data"][0]["id"], "ws_lumen");
}

TEST(Billing, AddThenUpdateIsVisibleInTheWorkspaceList) {
  TestServer server;
  auto r = server.Post("/v1/billing-details/add-or-update", FullBillingBody());
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/billing.add_or_update", r.body);
  EXPECT_TRUE(r.body["data"].is_null());
  EXPECT_EQ(r.body["message"], model::msg::kBillingSaved);
  auto list = server.Get("/v1/workspace/list");
  const json b = list.body["data"][1]["billingDetails"];
  EXPECT_EQ(b["city"], "London");
  EXPECT_EQ(b["workspaceId"], "ws_labs");
  EXPECT_EQ(b["userId"], "usr_alice");
  EXPECT_TRUE(b["addressLineThree"].is_null());
  const std::string id = b["id"];
  json update = FullBillingBody();
  update["city"] = "Cambridge";
  ASSERT_EQ(server.Post("/v1/billing-details/add-or-update", update).status, 200);
  list = server.Get("/v1/workspace/list");
  EXPECT_EQ(list.body["data"][1]["billingDetails"]["city"], "Cambridge");
  EXPECT_EQ(list.body["data"][1]["billingDetails"]["id"], id);
  EXPECT_CONFORMS(server, "responses/workspaces.list", list.body);
}

TEST(Billing, ForeignOrUnknownWorkspaceIs404AndChangesNothing) {
  TestServer server;
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  ExpectErrorWithId(server.Post("/v1/billing-details/add-or-update", FullBillingBody("ws_lumen")), 404);
  ExpectErrorWithId(server.Post("/v1/billing-details/add-or-update", FullBillingBody("ws_nope")), 404);
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before);
}

TEST(Domains, ListPagesFiltersAndCountsFromState) {
  TestServer server;
  auto r = server.Get("/v1/domain/list");
  ASSERT_EQ(r.status, 200);
  EXPECT_CONFORMS(server, "responses/domains.list", r.body);
  const json& d = r.body["data"];
  EXPECT_EQ(d["totalSearchedCount"], 14);
  EXPECT_EQ(d["currentPage"], 1);
  EXPECT_EQ(d["totalPages"], 1);
  EXPECT_EQ(d["nextPage"], 0);
  EXPECT_EQ(d["domains"].size(), 14u);
  // assignedMailboxesCount is numeric text that agrees with the mailboxes in state.
  int total = 0;
  for (const auto& dom : d["domains"]) total += std::stoi(dom["assignedMailboxesCount"].get<std::string>());
  EXPECT_EQ(total, 76);
  const std::string name = d["domains"][3]["domain"];
  auto f = server.Get("/v1/domain/list?contains=" + name.substr(0, name.find('.')));
  ASSERT_GE(f.body["data"]["domains"].size(), 1u);
  for (const auto& dom : f.body["data"]["domains"])
    EXPECT_NE(dom["domain"].get<std::string>().find(name.substr(0, name.find('.'))), std::string::npos);
  auto p2 = server.Get("/v1/domain/list?page=2");
  EXPECT_EQ(p2.body["data"]["currentPage"], 2);
  EXPECT_EQ(p2.body["data"]["domains"].size(), 0u);
}

TEST(Mailboxes, ListGroupsByDomainWithCountersAndPages) {
  TestServer server;
  auto r = server.Get("/v1/mailbox/list");
  ASSERT_EQ(r.status, 200);
  EXPECT_CONFORMS(server, "responses/mailboxes.list", r.body);
  const json& d = r.body["data"];
  EXPECT_EQ(d["totalSearchedCount"], 76);
  EXPECT_EQ(d["totalPages"], 4);
  EXPECT_EQ(d["nextPage"], 2);
  EXPECT_EQ(d["totalAssignedMailboxes"], 76);
  EXPECT_EQ(d["purchasedMailboxes"], 150);
  size_t seen = 0;
  std::set<std::string> ids;
  for (int page = 1; page <= 4; ++page) {
    auto p = server.Get("/v1/mailbox/list?page=" + std::to_string(page));
    for (const auto& g : p.body["data"]["domains"])
      for (const auto& m : g["mailboxes"]) {
        EXPECT_EQ(m["domainId"], g["id"]);
        EXPECT_EQ(m["domain"], g["domain"]);
        ids.insert(m["id"].get<std::string>());
        ++seen;
      }
  }
  EXPECT_EQ(seen, 76u);
  EXPECT_EQ(ids.size(), 76u);  // every mailbox exactly once across the pages
  auto f = server.Get("/v1/mailbox/list?contains=SALES@");
  EXPECT_GE(f.body["data"]["totalSearchedCount"].get<int>(), 1);
  for (const auto& g : f.body["data"]["domains"])
    for (const auto& m : g["mailboxes"]) EXPECT_EQ(m["username"], "sales");
}

TEST(Mailboxes, DetailsOfOwnMailboxAnd404ForOthers) {
  TestServer server;
  auto list = server.Get("/v1/mailbox/list");
  const json first = list.body["data"]["domains"][0]["mailboxes"][0];
  auto r = server.Get("/v1/mailbox/details?id=" + first["id"].get<std::string>());
  ASSERT_EQ(r.status, 200);
  EXPECT_CONFORMS(server, "responses/mailboxes.details", r.body);
  EXPECT_EQ(r.body["data"]["mailbox"], first);
  ExpectErrorWithId(server.Get("/v1/mailbox/details?id=mbx_nope"), 404);
  // Bob cannot read Alice's mailbox.
  ExpectErrorWithId(server.Get("/v1/mailbox/details?id=" + first["id"].get<std::string>(), kBobKey), 404);
}

// ---- /_sim first part -----------------------------------------------------------------------------

TEST(Control, ResetReturnsToTheFixturesAndClearsTheJournal) {
  TestServer server;
  const json pristine = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(server.Post("/v1/billing-details/add-or-update", FullBillingBody()).status, 200);
  server.Advance("1h");
  EXPECT_NE(server.Get("/_sim/state?secrets=true", "").body, pristine);
  auto r = server.Post("/_sim/reset", json::object(), "");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, pristine);
  EXPECT_EQ(server.Get("/_sim/clock", "").body["now"], "2026-01-01T09:00:00.000Z");
  auto j = server.Get("/_sim/requests", "").body["requests"];
  for (const auto& e : j) EXPECT_NE(e["operationId"], "billing.add_or_update");
}

TEST(Control, StateDumpLoadRoundTripsExactly) {
  TestServer a;
  ASSERT_EQ(a.Post("/v1/billing-details/add-or-update", FullBillingBody()).status, 200);
  a.Advance("3h");
  const json dump = a.Get("/_sim/state?secrets=true", "").body;
  TestServer b;
  auto put = b.Put("/_sim/state", dump);
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(b.Get("/_sim/state?secrets=true", "").body, dump);
  EXPECT_EQ(b.Get("/v1/workspace/list").body, a.Get("/v1/workspace/list").body);
  EXPECT_EQ(b.Get("/_sim/clock", "").body["now"], "2026-01-01T12:00:00.000Z");
}

// A dump larger than dumpSpillBytes is written to a temporary file and sent from it: the client
// gets the same bytes, with their length, and they load back as the world they describe. Masked
// or not, both go the same way. A temporary directory that cannot be written is a clear 500.
TEST(Control, AStateDumpPastItsSpillSizeIsSentFromAFileByteForByte) {
  TestServer memory;
  app::Options small;
  small.dumpSpillBytes = 256;  // the default fixture's dump is tens of kilobytes
  TestServer spilling(small);
  for (TestServer* s : {&memory, &spilling})
    ASSERT_EQ(s->Post("/v2/placement-tests/purchase", {{"placementType", "MONTHLY"}, {"testName", "spill"},
                                                       {"mailboxIds", {"mbx_nw_01_01", "mbx_nw_01_02"}}})
                  .status,
              200);
  for (const char* path : {"/_sim/state?secrets=true", "/_sim/state"}) {
    const auto kept = memory.Get(path, "");
    const auto sent = spilling.Get(path, "");
    ASSERT_EQ(sent.status, 200) << sent.raw;
    ASSERT_GT(sent.raw.size(), 256u * 20);
    EXPECT_EQ(sent.raw, kept.raw) << path;
    EXPECT_EQ(sent.Header("Content-Length"), std::to_string(kept.raw.size()));
    EXPECT_EQ(sent.Header("Content-Type"), "application/json");
  }
  const std::string text = spilling.Get("/_sim/state?secrets=true", "").raw;
  TestServer b;
  ASSERT_EQ(b.Send("PUT", "/_sim/state", text, "", {}).status, 200);
  EXPECT_EQ(b.Get("/_sim/state?secrets=true", "").raw, text);

  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent-emsim-tmp", 1);
  const auto refused = spilling.Get("/_sim/state", "");
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  EXPECT_EQ(refused.status, 500) << refused.raw;
  EXPECT_NE(refused.body.value("message", "").find("/nonexistent-emsim-tmp"), std::string::npos) << refused.raw;
  EXPECT_EQ(spilling.Get("/_sim/state", "").raw.size(), memory.Get("/_sim/state", "").raw.size());
}

// PUT /_sim/state reads a dump's lists straight into records (model::SplitStateText): the world
// loaded is the one dumped, byte for byte; a record the document refuses is refused with its
// message, leaving the state as it was; one the document takes (an unknown member) is taken.
TEST(Control, AStateLoadFromTextIsTheWorldDumpedAndRefusesWhatTheDocumentRefuses) {
  TestServer a;
  ASSERT_EQ(a.Post("/v2/placement-tests/purchase", {{"placementType", "MONTHLY"}, {"testName", "text"},
                                                    {"mailboxIds", {"mbx_nw_01_01", "mbx_nw_01_02"}}})
                .status,
            200);
  a.Advance("3h");
  const std::string text = a.Get("/_sim/state?secrets=true", "").raw;
  TestServer b;
  const std::string before = b.Get("/_sim/state?secrets=true", "").raw;
  const std::string bad_key = "\"domainId\":\"dom_nw_01\"";
  const size_t at = text.find(bad_key, text.find("\"mailboxes\":["));
  ASSERT_NE(at, std::string::npos);
  std::string dangling = text;
  dangling.replace(at, bad_key.size(), "\"domainId\":\"dom_nowhere\"");
  auto refused = b.Send("PUT", "/_sim/state", dangling, "", {});
  EXPECT_EQ(refused.status, 400) << refused.raw;
  EXPECT_NE(refused.body["message"].get<std::string>().find("names unknown domain dom_nowhere"), std::string::npos)
      << refused.raw;
  EXPECT_EQ(b.Get("/_sim/state?secrets=true", "").raw, before);

  auto put = b.Send("PUT", "/_sim/state", text, "", {});
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(b.Get("/_sim/state?secrets=true", "").raw, text);

  std::string extra = text;
  extra.insert(at, "\"notAField\":1,");
  ASSERT_EQ(b.Send("PUT", "/_sim/state", extra, "", {}).status, 200);
  EXPECT_EQ(b.Get("/_sim/state?secrets=true", "").raw, text) << "an unknown member is ignored, as from_json ignores it";
}

TEST(Control, LoadingABadStateIs400AndKeepsTheOldOne) {
  TestServer server;
  json dump = server.Get("/_sim/state?secrets=true", "").body;
  const json before = dump;
  dump["domains"][0]["workspaceId"] = "ws_missing";
  auto r = server.Put("/_sim/state", dump);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body["message"].get<std::string>().find("ws_missing"), std::string::npos) << r.raw;
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before);
  EXPECT_EQ(server.Send("PUT", "/_sim/state", "[]", "", {}).status, 400);
}

TEST(Control, ClockCanBeReadSetAndAdvancedButNeverBackwards) {
  TestServer server;
  auto c = server.Get("/_sim/clock", "");
  EXPECT_EQ(c.body["mode"], "manual");
  EXPECT_EQ(c.body["now"], "2026-01-01T09:00:00.000Z");
  auto a = server.Post("/_sim/clock/advance", {{"seconds", 90}}, "");
  EXPECT_EQ(a.body["now"], "2026-01-01T09:01:30.000Z");
  a = server.Post("/_sim/clock/advance", {{"duration", "1d"}}, "");
  EXPECT_EQ(a.body["now"], "2026-01-02T09:01:30.000Z");
  auto back = server.Put("/_sim/clock", {{"now", "2026-01-01T00:00:00.000Z"}});
  EXPECT_EQ(back.status, 400);
  EXPECT_EQ(back.body["errors"][0]["param"], "now");
  auto fwd = server.Put("/_sim/clock", {{"now", "2026-02-01T00:00:00.000Z"}});
  EXPECT_EQ(fwd.body["now"], "2026-02-01T00:00:00.000Z");
  EXPECT_EQ(server.Post("/_sim/clock/advance", {{"duration", "soon"}}, "").status, 400);
  EXPECT_EQ(server.Post("/_sim/clock/advance", {{"seconds", 1}, {"duration", "1s"}}, "").status, 400);
  EXPECT_EQ(server.Post("/_sim/clock/advance", {{"seconds", -5}}, "").status, 400);
  auto real = server.Put("/_sim/clock", {{"mode", "real"}});
  EXPECT_EQ(real.body["mode"], "real");
  EXPECT_GE(real.body["epochMs"].get<std::int64_t>(), fwd.body["epochMs"].get<std::int64_t>());
}

TEST(Control, AdvanceRunsDueJobsInTimeOrderIncludingJobsScheduledByJobs) {
  TestServer server;
  std::vector<std::string> ran;
  std::vector<model::Millis> at;
  auto& svc = server.svc();
  svc.scheduler.Register("test.record", [&](model::State& s, const model::Job& j, model::Millis when) {
    ran.push_back(j.args.Parse()["name"]);
    at.push_back(when);
    EXPECT_EQ(svc.clock.Now(), when) << "the clock stands at the job's due time while it runs";
    if (j.args.Parse()["name"] == "b") s.Schedule(when + 30 * model::kSecond, "test.record", {{"name", "c"}});
  });
  const model::Millis t0 = svc.clock.Now();
  svc.store.Write([&](model::State& s) {
    s.Schedule(t0 + 2 * model::kMinute, "test.record", {{"name", "d"}});
    s.Schedule(t0 + 1 * model::kMinute, "test.record", {{"name", "b"}});
    s.Schedule(t0 + 1 * model::kMinute, "test.record", {{"name", "b2"}});  // same time: scheduling order
    s.Schedule(t0 + 10 * model::kSecond, "test.record", {{"name", "a"}});
    s.Schedule(t0 + 1 * model::kHour, "test.record", {{"name", "later"}});
  });
  EXPECT_EQ(server.Advance("5m"), 5);
  EXPECT_EQ(ran, (std::vector<std::string>{"a", "b", "b2", "c", "d"}));
  EXPECT_EQ(at, (std::vector<model::Millis>{t0 + 10000, t0 + 60000, t0 + 60000, t0 + 90000, t0 + 120000}));
  EXPECT_EQ(svc.clock.Now(), t0 + 5 * model::kMinute);
}

}  // namespace
}  // namespace emsim::testing
