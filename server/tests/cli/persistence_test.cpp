// Durable state as a user meets it (README "Persistence"): an emsim with --data-dir stopped and
// started again has the same world, clock and pending jobs, and a reset survives a restart; an
// emsim started with --state FILE boots from a dump, JSON or YAML, and a reset returns to it;
// `emsim state dump|load` round-trips a world. kill -9 is scripts/crash-test.py's.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/routes.hpp"
#include "app/router.hpp"
#include "cli/state_command.hpp"
#include "fixture/fixture_gen.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_server.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

const json kPurchase = {{"placementType", "ONE_TIME"}, {"testName", "kept"}, {"mailboxIds", {"mbx_nw_01_01"}}};

json World(TestServer& s) {
  json w = s.Get("/_sim/state?secrets=true", "").body;
  w.erase("clock");
  return w;
}

TEST(DataDir, ARestartHasTheSameWorldClockAndPendingJobs) {
  TempDir dir;
  json before;
  {
    TestServer s(WithDataDir(dir.path + "/d"));
    ASSERT_EQ(s.Post("/v2/placement-tests/purchase", kPurchase).status, 200);
    s.Advance("1m");
    before = World(s);
    ASSERT_FALSE(before["jobs"].empty()) << "the purchase's orders wait for their job";
  }
  TestServer s(WithDataDir(dir.path + "/d"));
  EXPECT_EQ(World(s), before);
  EXPECT_EQ(s.Get("/_sim/clock", "").body["now"], "2026-01-01T09:01:00.000Z");
  s.Advance("16m");  // the job the first emsim scheduled runs in the second
  int orders = 0;
  const json after = World(s);
  for (const auto& t : after["placementTests"]) {
    if (t["cartOrderId"] != before["placementCarts"].back()["id"]) continue;
    EXPECT_EQ(t["status"], "COMPLETED") << t;
    ++orders;
  }
  EXPECT_EQ(orders, 1);
}

// A write the data file refuses (here another connection holds its write lock) is not
// acknowledged: the client gets a 500 that says so in place of the handler's answer, in the
// spec's error shape, and every later write is refused the same way; reads go on.
TEST(DataDir, AWriteTheFileRefusesIsAnswered500AndNotAcknowledged) {
  TempDir dir;
  TestServer s(WithDataDir(dir.path));
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path + "/emsim.db").c_str(), &other), SQLITE_OK);
  sqlite3_busy_timeout(other, 60000);  // the writer may be committing the start's batch
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto refused = s.Post("/v2/placement-tests/purchase", kPurchase);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_EQ(refused.status, 500) << refused.raw;
  EXPECT_EQ(refused.body.value("status", 0), 500) << refused.raw;
  EXPECT_TRUE(refused.body.value("errorId", "").size() == 36) << refused.raw;
  EXPECT_NE(refused.body.value("message", "").find("could not be written to the data file"), std::string::npos)
      << refused.raw;
  // The journal shows the answer the client got.
  const json journaled = s.Get("/_sim/requests?status=500", "").body["requests"];
  ASSERT_EQ(journaled.size(), 1u) << journaled;
  EXPECT_EQ(journaled[0]["path"], "/v2/placement-tests/purchase");
  EXPECT_EQ(journaled[0]["response"]["errorId"], refused.body["errorId"]) << journaled;
  // Health still answers (reads are served) and says why writes are refused.
  const auto health = s.Get("/_sim/health", "");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body["persistence"]["writable"], false) << health.raw;
  EXPECT_NE(health.body["persistence"]["error"].get<std::string>().find("database is locked"), std::string::npos)
      << health.raw;
  const auto later = s.Post("/v2/placement-tests/purchase", kPurchase);
  EXPECT_EQ(later.status, 500) << later.raw;
  EXPECT_EQ(s.Get("/_sim/requests?status=500", "").body["requests"].size(), 2u);
  EXPECT_EQ(s.Get("/_sim/requests?status=200&path=/v2/placement-tests/purchase", "").body["requests"].size(), 0u);
}

// GET /_sim/health names the data file and counts what its writer committed: a request's writes
// are one change set, counted once its answer is out; in memory there is no such section.
TEST(DataDir, HealthNamesTheFileAndCountsWhatWasCommitted) {
  TempDir dir;
  TestServer s(WithDataDir(dir.path + "/d"));
  const json before = s.Get("/_sim/health", "").body["persistence"];
  ASSERT_TRUE(before.is_object()) << before;
  EXPECT_EQ(before["file"], dir.path + "/d/emsim.db");
  EXPECT_EQ(before["durability"], "full");
  EXPECT_EQ(before["writable"], true);
  EXPECT_TRUE(before["error"].is_null()) << before;
  EXPECT_GE(before["batches"].get<int>(), 1) << "the new dir's world is the first batch";
  for (int i = 0; i < 3; ++i) ASSERT_EQ(s.Post("/v2/placement-tests/purchase", kPurchase).status, 200);
  const json after = s.Get("/_sim/health", "").body["persistence"];
  EXPECT_EQ(after["changeSets"].get<int>() - before["changeSets"].get<int>(), 3) << before << after;
  EXPECT_GE(after["batches"].get<int>() - before["batches"].get<int>(), 1) << before << after;
  // Each purchase adds a cart, an order and an invoice, and changes the account's credits.
  EXPECT_GE(after["rowsWritten"].get<int>() - before["rowsWritten"].get<int>(), 3 * 4) << before << after;
  EXPECT_GT(after["walFrames"].get<int>(), 0) << after;

  app::Options process = WithDataDir(dir.path + "/p");
  process.durability = runtime::Durability::kProcess;
  TestServer p(process);
  EXPECT_EQ(p.Get("/_sim/health", "").body["persistence"]["durability"], "process");
  TestServer memory;
  EXPECT_TRUE(memory.Get("/_sim/health", "").body["persistence"].is_null());
}

// A durable answer is sent by the writer once its change is on disk; the journal lists it from
// then on, with the status the client got (before, it is pending: Journal, APendingEntry...).
TEST(DataDir, ADurableAnswerIsJournaledWithTheStatusItWentOutWith) {
  TempDir dir;
  TestServer s(WithDataDir(dir.path));
  const auto bought = s.Post("/v2/placement-tests/purchase", kPurchase);
  ASSERT_EQ(bought.status, 200) << bought.raw;
  const json journaled = s.Get("/_sim/requests?path=/v2/placement-tests/purchase", "").body["requests"];
  ASSERT_EQ(journaled.size(), 1u) << journaled;
  EXPECT_EQ(journaled[0]["status"], 200);
  EXPECT_EQ(journaled[0]["id"], bought.Header("x-request-id"));
}

// A connection may drop a durable answer's gate without handing it the answer (its client gone):
// the request happened all the same, and is journaled once its change is on disk.
TEST(DataDir, AWriteWhoseAnswerNobodyTakesIsStillJournaled) {
  TempDir dir;
  TestServer s(WithDataDir(dir.path));
  const std::vector<app::Route> table = api::Routes(s.svc().schemas.Operations());
  app::Router router(s.svc(), table);
  http::RawRequest raw{"POST", "/v2/placement-tests/purchase", kPurchase.dump(),
                       {{"x-auth-service", kAliceKey}, {"content-type", "application/json"}}, {}};
  raw.canDefer = true;
  http::Response res = router.Handle(std::move(raw));
  ASSERT_EQ(res.status, 200) << res.body;
  ASSERT_TRUE(res.gate) << "a durable answer goes out through a gate";
  const std::string dropped = res.headers.empty() ? "" : [&] {
    for (const auto& [k, v] : res.headers)
      if (k == "x-request-id") return v;
    return std::string();
  }();
  res.gate.reset();  // dropped, never handed the answer
  // A later write's answer goes out after the dropped one's change is on disk (the writer commits
  // in order, and runs a batch's callbacks before it commits the next).
  ASSERT_EQ(s.Post("/v2/placement-tests/purchase", kPurchase).status, 200);
  const json journaled = s.Get("/_sim/requests?path=/v2/placement-tests/purchase", "").body["requests"];
  ASSERT_EQ(journaled.size(), 2u) << journaled;
  EXPECT_EQ(journaled[0]["id"], dropped);
  EXPECT_EQ(journaled[0]["status"], 200);
}

TEST(DataDir, AResetIsItselfDurable) {
  TempDir dir;
  json fixture;
  {
    TestServer s(WithDataDir(dir.path));
    fixture = World(s);
    ASSERT_EQ(s.Put("/_sim/wallet", {{"balanceCents", 1}}, kAliceKey).status, 200);
    ASSERT_EQ(s.Post("/_sim/reset", json::object(), "").status, 200);
  }
  TestServer s(WithDataDir(dir.path));
  EXPECT_EQ(World(s), fixture);
}

// A generated fixture (a `generate:` mapping) with a data dir: a new dir starts from the generated
// world; a restart serves the dir's world without generating the fixture's records again, and a
// reset still returns to them; a fixture whose generation cannot be done is refused at a restart
// as at a first start.
TEST(DataDir, AGeneratedFixtureIsTheNewDirsWorldAndWhatAResetReturnsToAfterARestart) {
  TempDir dir;
  fixture::GenerateOptions g;
  g.mailboxes = 12;
  g.accounts = 2;
  std::ostringstream text;
  fixture::WriteGeneratedFixture(text, g, false);
  const std::string path = dir.path + "/generated.yaml";
  std::ofstream(path) << text.str();
  app::Options o = WithDataDir(dir.path + "/d");
  o.fixtures = path;
  const std::string key = fixture::GeneratedApiKey(1);
  json generated;
  {
    TestServer s(o);
    generated = World(s);
    EXPECT_EQ(generated["mailboxes"].size(), 12u);
    ASSERT_EQ(s.Put("/_sim/wallet", {{"balanceCents", 1}}, key).status, 200);
  }
  {
    TestServer s(o);
    EXPECT_EQ(s.Get("/_sim/wallet", key).body["balanceCents"], 1) << "the dir's world, not the fixture's";
    ASSERT_EQ(s.Post("/_sim/reset", json::object(), "").status, 200);
    EXPECT_EQ(World(s), generated);
  }
  // The file's own account takes a generated API key: the generation cannot be done.
  std::ofstream(path) << "version: 1\nclock: { start: \"2026-01-01T09:00:00.000Z\" }\n"
                      << "accounts:\n  - id: acc_x\n    apiKey: emsim_gen_00001\n    user: { id: u, email: e }\n"
                      << "    workspaces: [{ id: ws_x, name: X, default: true }]\ngenerate: { mailboxes: 1 }\n";
  o.port = 0;
  const std::string refusal = StartupRefusal(o);
  ASSERT_NE(refusal, "") << "restarted over a fixture whose generation clashes with its own records";
  EXPECT_NE(refusal.find("API key emsim_gen_00001 is taken"), std::string::npos) << refusal;
}

// A tenant's deletion and another's reset are written like any other change: after a restart the
// deleted tenant's key answers 401 and nothing of it is left, the reset one is as created, and the
// world is the one the first emsim served.
TEST(DataDir, ATenantsDeletionAndAnothersResetSurviveARestart) {
  TempDir dir;
  json before;
  std::string gone_key, kept_key, kept_id;
  {
    TestServer s(WithDataDir(dir.path));
    json made[2];
    for (auto& t : made) {
      t = s.Post("/_sim/tenants", json::object(), "").body;
      ASSERT_TRUE(t.contains("apiKey")) << t;
      ASSERT_EQ(s.Put("/_sim/wallet", {{"balanceCents", 12345}}, t["apiKey"]).status, 200);
      ASSERT_EQ(s.Post("/_sim/events", {{"type", "workspace.invitations"}, {"apiKey", t["apiKey"]}}, "").status, 201);
    }
    gone_key = made[0]["apiKey"];
    kept_key = made[1]["apiKey"];
    kept_id = made[1]["accountId"];
    const json changed = s.Get("/v2/wallet/balance", kept_key).body;
    ASSERT_EQ(s.Delete("/_sim/tenants/" + made[0]["accountId"].get<std::string>(), "").status, 200);
    ASSERT_EQ(s.Post("/_sim/tenants/" + kept_id + "/reset", json::object(), "").status, 200);
    EXPECT_NE(s.Get("/v2/wallet/balance", kept_key).body, changed) << "the reset put the wallet back";
    before = World(s);
  }
  TestServer s(WithDataDir(dir.path));
  EXPECT_EQ(World(s), before);
  EXPECT_EQ(s.Get("/v1/workspace/list", gone_key).status, 401);
  EXPECT_EQ(s.Get("/v1/workspace/list", kept_key).status, 200);
  const json tenants = s.Get("/_sim/tenants", "").body["tenants"];
  ASSERT_EQ(tenants.size(), 1u) << tenants;
  EXPECT_EQ(tenants[0]["accountId"], kept_id);
  EXPECT_TRUE(s.Get("/_sim/events?accountId=" + kept_id, "").body["events"].empty()) << "the reset removed its events";
}

// Each of a durable emsim's threads carries its name (top -H, ps -L, gdb, perf): the writer every
// durable answer waits for, its checkpointer, the scheduler, the accepting thread and a
// connection's.
TEST(DataDir, EmsimsThreadsAreNamedForWhatTheyDo) {
  TempDir dir;
  TestServer s(WithDataDir(dir.path));
  ASSERT_EQ(s.Post("/v2/placement-tests/purchase", kPurchase).status, 200);  // a durable answer
  std::multiset<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    names.insert(name);
  }
  std::string all;
  for (const auto& n : names) all += n + " ";
  for (const char* want : {"persist-writer", "persist-ckpt", "scheduler", "http-accept", "http-conn"})
    EXPECT_TRUE(names.count(want)) << want << " among: " << all;
}

TEST(DataDir, ASecondEmsimOnTheSameDirectoryIsRefused) {
  TempDir dir;
  TestServer first(WithDataDir(dir.path));
  app::Options o = WithDataDir(dir.path);
  o.port = 0;
  const std::string refusal = StartupRefusal(o);
  ASSERT_NE(refusal, "") << "two emsims on one data dir";
  EXPECT_NE(refusal.find("in use by another emsim (pid"), std::string::npos) << refusal;
}

// A start that fails after the world was read (here the saved clock is not one) says why and
// names the file; it never aborts the process.
TEST(DataDir, ABadClockRowStopsTheStartNamingTheFile) {
  TempDir dir;
  { TestServer s(WithDataDir(dir.path)); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path + "/emsim.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "update meta set body='{}', sum=NULL where name='clock'", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  app::Options o = WithDataDir(dir.path);
  o.port = 0;
  const std::string refusal = StartupRefusal(o);
  ASSERT_NE(refusal, "") << "started with a clock row that is not a clock";
  EXPECT_NE(refusal.find("table meta, id clock"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find(dir.path), std::string::npos) << refusal;
}

// What came after the first data dirs survives a restart too: the Part 4.11 operations' members
// (auto recharge, a mailbox marked for removal, an open top-up checkout), a delivery held by a
// fault with what was injected, and what an idempotent sink has applied. (The held delivery goes
// to a receiver that outlives both emsims: a sink's URL names the first one's port.)
TEST(DataDir, NewerMembersHeldAttemptsAndSinkProcessingSurviveARestart) {
  TempDir dir;
  Receiver receiver;
  json before;
  std::string checkout_path, sink_id;
  const json trigger = {{"type", "workspace.invitations"}, {"apiKey", kAliceKey}, {"objectId", "ws_northwind"}};
  {
    TestServer s(WithDataDir(dir.path + "/d"));
    ASSERT_EQ(s.Post("/v2/wallet/enable-auto-recharge", {{"enable", true}, {"threshold", 25}}).status, 200);
    ASSERT_EQ(s.Send("PUT", "/v2/mailboxes/scheduled-removal",
                     json({{"mailboxIds", {"mbx_nw_01_02"}}, {"remove", true}}).dump(), kAliceKey, {}).status, 200);
    auto topup = s.Post("/v2/wallet/balance", {{"amount", 10}});
    ASSERT_EQ(topup.status, 200) << topup.raw;
    const std::string link = topup.body["paymentLink"];
    checkout_path = link.substr(link.find("/_sim/checkout/"));
    auto sink = s.Post("/_sim/sinks", {{"receiver", "idempotent"}}, "");
    ASSERT_EQ(sink.status, 201) << sink.raw;
    sink_id = sink.body["id"];
    CreateEndpoint(s, sink.body["url"]);
    CreateEndpoint(s, receiver.Url("/held"));
    ASSERT_EQ(s.Post("/_sim/faults", {{"target", "delivery"}, {"path", "/held"}, {"delay", "10m"}, {"times", 0}}, "").status, 201);
    ASSERT_EQ(s.Post("/_sim/events", trigger, "").status, 201);
    s.Advance("0s");  // the sink applies it; the receiver's attempt is held
    before = World(s);
  }
  EXPECT_EQ(receiver.Count(), 0u);
  TestServer s(WithDataDir(dir.path + "/d"));
  EXPECT_EQ(World(s), before);
  EXPECT_EQ(s.Get("/v2/wallet/balance").body["autoRechargeDetails"]["threshold"], 25);
  EXPECT_EQ(s.Get("/v1/mailbox/details?id=mbx_nw_01_02").body["data"]["mailbox"]["removeOnNextRenewal"], true);
  EXPECT_EQ(s.Get("/_sim/sinks/" + sink_id, "").body["processing"]["applied"].size(), 1u);
  s.Advance("9m59s");
  EXPECT_EQ(receiver.Count(), 0u);
  s.Advance("1s");
  EXPECT_EQ(receiver.Count(), 1u) << "the held attempt went out after the restart, at its time";
  bool delayed = false;
  const json succeeded = s.Get("/_sim/deliveries?status=succeeded", "").body;
  for (const auto& d : succeeded["deliveries"])
    delayed = delayed || (!d["injected"].empty() && d["injected"][0]["kind"] == "delay");
  EXPECT_TRUE(delayed) << succeeded.dump();
  auto done = s.Post(checkout_path + "/complete", json::object(), "");
  ASSERT_EQ(done.status, 200) << done.raw;
  EXPECT_EQ(done.body["wallet"]["balanceCents"], 26000);
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

TEST(StateFile, BootsFromADumpInJsonOrYamlAndResetReturnsToIt) {
  TempDir dir;
  json dump;
  {
    TestServer s;
    ASSERT_EQ(s.Post("/v2/placement-tests/purchase", kPurchase).status, 200);
    dump = s.Get("/_sim/state?secrets=true", "").body;
  }
  Write(dir.path + "/world.json", dump.dump());
  // JSON is YAML's flow style: behind a comment the same text takes the YAML path.
  Write(dir.path + "/world.yaml", "# a dump, as YAML\n" + dump.dump(2));
  for (const char* file : {"/world.json", "/world.yaml"}) {
    app::Options o;
    o.stateFile = dir.path + file;
    TestServer s(o);
    json expected = dump;
    expected.erase("clock");
    EXPECT_EQ(World(s), expected) << file;
    EXPECT_EQ(s.Get("/_sim/clock", "").body["epochMs"], dump["clock"]["epochMs"]) << file;
    ASSERT_EQ(s.Put("/_sim/wallet", {{"balanceCents", 1}}, kAliceKey).status, 200);
    ASSERT_EQ(s.Post("/_sim/reset", json::object(), "").status, 200);
    EXPECT_EQ(World(s), expected) << file << ": a reset returns to the booted world";
  }
}

TEST(StateFile, ABadDocumentStopsTheStartNamingTheFile) {
  TempDir dir;
  Write(dir.path + "/bad.json", R"({"accounts": 5})");
  app::Options o;
  o.stateFile = dir.path + "/bad.json";
  const std::string refusal = StartupRefusal(o);
  ASSERT_NE(refusal, "") << "started from a bad state";
  EXPECT_NE(refusal.find(dir.path + "/bad.json"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("state.accounts"), std::string::npos) << refusal;
}

TEST(StateFile, IsReadWithinMaxStateBytes) {
  TempDir dir;
  std::string text;
  {
    TestServer s;
    ASSERT_EQ(s.Post("/v2/placement-tests/purchase", kPurchase).status, 200);
    text = s.Get("/_sim/state?secrets=true", "").raw;
  }
  Write(dir.path + "/world.json", text);
  app::Options o;
  o.stateFile = dir.path + "/world.json";
  o.maxStateBytes = text.size() - 1;
  const std::string refusal = StartupRefusal(o);
  ASSERT_NE(refusal, "") << "started from a file over --max-state-bytes";
  EXPECT_NE(refusal.find(dir.path + "/world.json"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find(std::to_string(text.size() - 1)), std::string::npos) << refusal;
  o.maxStateBytes = text.size();
  TestServer s(o);
  EXPECT_EQ(s.Get("/_sim/state?secrets=true", "").raw, text);
}

TEST(StateCommand, DumpFromOneEmsimLoadsIntoAnother) {
  TempDir dir;
  TestServer from, to;
  ASSERT_EQ(from.Post("/v2/placement-tests/purchase", kPurchase).status, 200);
  const std::string file = dir.path + "/dump.json";
  ASSERT_EQ(cli::StateCommand({"dump", "--url", from.baseUrl(), "--out", file}), 0);
  ASSERT_EQ(cli::StateCommand({"load", "--url", to.baseUrl(), file}), 0);
  EXPECT_EQ(World(to), World(from));
  EXPECT_EQ(cli::StateCommand({"load", "--url", to.baseUrl(), dir.path + "/missing.json"}), 2);
}

}  // namespace
}  // namespace emsim::testing
