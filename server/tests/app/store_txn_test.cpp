// The store's explicit transactions (runtime/store.hpp) and how the router hands a request's to its
// handler (app::Ctx): one lock per request, taken in one place, released before the answer is
// written; read-only POSTs as readers; the scheduler woken only when a write scheduled a job.
// Timeouts here only turn a regression (a deadlock) into a failure instead of a hung test.
#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "api/domains.hpp"
#include "api/routes.hpp"
#include "app/router.hpp"
#include "cli/app.hpp"
#include "fixture/fixtures.hpp"
#include "runtime/store.hpp"
#include "tests/support/test_server.hpp"

namespace emsim {
namespace {

using testing::kAliceKey;
using testing::TestServer;

constexpr auto kDeadlockGuard = std::chrono::seconds(30);

model::State FixtureState() { return fixture::LoadFixtureFile(cli::DefaultFixturePath(), 1).state; }

// Runs `f` on another thread; true when it finished (false: it was blocked, i.e. deadlocked).
template <class F>
bool FinishesOnAnotherThread(F f) {
  auto done = std::async(std::launch::async, std::move(f));
  return done.wait_for(kDeadlockGuard) == std::future_status::ready;
}

// ---- Store ----------------------------------------------------------------------------------------

TEST(StoreTxn, AWriteTransactionHoldsTheLockUntilItCommits) {
  runtime::Store store(FixtureState());
  const size_t jobs_before = store.Read([](const model::State& s) { return s.jobs.size(); });
  {
    runtime::Store::WriteTxn txn = store.BeginWrite();
    txn.state().Schedule(5, "x.kind", {});
    EXPECT_EQ(txn.state().jobs.size(), jobs_before + 1) << "the transaction sees its own change";
    // The lock is not recursive: the same thread asking again is refused loudly, not deadlocked.
    EXPECT_THROW(store.BeginRead(), std::logic_error);
    EXPECT_THROW(store.BeginWrite(), std::logic_error);
    EXPECT_THROW(store.Dump(), std::logic_error);
    EXPECT_THROW(store.Reset(), std::logic_error);
    EXPECT_THROW(store.Load(json::object()), std::logic_error);
    txn.Commit();
    EXPECT_FALSE(txn.open());
    // Committed: another thread's write gets in while this one goes on (writing its answer).
    EXPECT_TRUE(FinishesOnAnotherThread([&] { store.Write([](model::State& s) { s.Schedule(7, "x.kind", {}); }); }));
    txn.Commit();  // a second commit does nothing
  }
  EXPECT_EQ(store.Dump()["jobs"].size(), jobs_before + 2);
  // An exception inside a transaction leaves the lock free.
  EXPECT_THROW(store.Write([](model::State&) -> int { throw std::runtime_error("boom"); }), std::runtime_error);
  EXPECT_TRUE(FinishesOnAnotherThread([&] { store.Write([](model::State&) {}); }));
}

TEST(StoreTxn, ReadTransactionsShareTheLock) {
  runtime::Store store(FixtureState());
  const runtime::Store::ReadTxn held = store.BeginRead();
  EXPECT_TRUE(held.open());
  const size_t accounts = held.state().accounts.size();
  EXPECT_TRUE(FinishesOnAnotherThread([&] {
    EXPECT_EQ(store.Read([](const model::State& s) { return s.accounts.size(); }), accounts);
  })) << "a reader waited for another reader";
}

// A long preparation in a read route (a big workspace's first search building its index) runs in
// steps, each a read transaction of its own, with the request's own let go meanwhile: a write
// waiting for the lock gets in between two steps, not only after the whole preparation. A step
// with nothing to do leaves the request's transaction as it is.
TEST(StoreTxn, ReadInStepsLetsAWaitingWriteInBetweenSteps) {
  TestServer server;
  app::Services& svc = server.svc();
  std::atomic<bool> written{false};
  std::future<void> writer;  // before ctx: a write still waiting is let in when ctx ends
  const auto before = svc.store.Read([](const model::State& s) { return s.accounts.Find("acc_alice")->walletCents; });
  app::Request req;
  app::Ctx ctx{svc, req};
  ctx.readTxn.emplace(svc.store.BeginRead());  // as the router opens it for a GET
  constexpr size_t kMostSteps = 1'000'000;
  size_t steps = 0;
  bool request_txn_held_in_a_step = false;
  ctx.ReadInSteps([&](const model::State&) -> size_t {
    ++steps;
    // The first step runs in the request's transaction (with nothing to do it stays held); the
    // rest in their own.
    if (steps > 1) request_txn_held_in_a_step |= ctx.readTxn.has_value();
    if (steps == 1) {
      writer = std::async(std::launch::async, [&] {
        svc.store.Write([](model::State& s) { s.accounts.Edit("acc_alice")->walletCents += 1; });
        written = true;
      });
      return kMostSteps;
    }
    return written ? 0 : kMostSteps - steps;
  });
  EXPECT_TRUE(written) << "the write waited for all " << steps << " steps";
  EXPECT_LT(steps, kMostSteps);
  EXPECT_FALSE(request_txn_held_in_a_step);
  EXPECT_TRUE(ctx.readTxn && ctx.readTxn->open()) << "the request's read transaction is open again";
  EXPECT_EQ(ctx.Read([](const model::State& s) { return s.accounts.Find("acc_alice")->walletCents; }), before + 1)
      << "the handler's next read sees the state as it is after the steps";

  // Nothing to do: one call, in the request's transaction.
  int calls = 0;
  bool in_request_txn = false;
  ctx.ReadInSteps([&](const model::State&) -> size_t {
    ++calls;
    in_request_txn = ctx.readTxn.has_value() && ctx.readTxn->open();
    return 0;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(in_request_txn);
  EXPECT_TRUE(ctx.readTxn && ctx.readTxn->open());
}

// The scheduler's one wake-up (Store::SetJobsObserver): a write transaction that scheduled a job
// reports the earliest due time once, when it commits; reads and writes that schedule nothing
// report nothing; Reset and Load report "look at everything".
TEST(StoreTxn, OnlyAWriteThatScheduledAJobWakesTheScheduler) {
  runtime::Store store(FixtureState());
  std::vector<model::Millis> woken;
  store.SetJobsObserver([&](model::Millis due) { woken.push_back(due); });
  store.Read([](const model::State& s) { return s.jobs.size(); });
  store.Write([](model::State& s) { s.ids.Uuid4(); });
  EXPECT_TRUE(woken.empty());
  {
    runtime::Store::WriteTxn txn = store.BeginWrite();
    txn.state().Schedule(900, "x.kind", {});
    txn.state().Schedule(700, "x.kind", {});
    EXPECT_TRUE(woken.empty()) << "woken before the change was committed";
  }
  EXPECT_EQ(woken, std::vector<model::Millis>{700});
  store.Reset();
  EXPECT_EQ(woken, (std::vector<model::Millis>{700, INT64_MIN}));
  store.SetJobsObserver({});
}

// ---- the router's transactions ---------------------------------------------------------------------

// What a handler saw of its request's transaction.
struct Seen {
  std::atomic<bool> readOpen{false}, writeOpen{false}, otherReaderGotIn{false}, otherWriterGotIn{false};
};
Seen g_seen;
app::Services* g_svc = nullptr;

// The real domains.available handler, watched: it runs in a read transaction that lets another
// reader in while it holds the lock.
app::Reply WatchedAvailable(app::Ctx& ctx) {
  g_seen.readOpen = ctx.readTxn && ctx.readTxn->open();
  g_seen.writeOpen = ctx.writeTxn.has_value();
  g_seen.otherReaderGotIn = FinishesOnAnotherThread([] { g_svc->store.Read([](const model::State&) { return 0; }); });
  return api::AvailableDomains(ctx);
}

// A write handler: authenticated in its open write transaction; once its Write returns, the lock
// is free for other writers while it shapes its answer.
app::Reply WatchedWrite(app::Ctx& ctx) {
  g_seen.writeOpen = ctx.writeTxn && ctx.writeTxn->open();
  g_seen.readOpen = ctx.readTxn.has_value();
  const std::string account = ctx.caller.accountId;
  ctx.Write([&](model::State& s) { return s.ids.Uuid4(); });
  g_seen.otherWriterGotIn = FinishesOnAnotherThread([] { g_svc->store.Write([](model::State&) { return 0; }); });
  return app::Json({{"account", account}});
}

// A handler marked read-only that writes anyway: refused, nothing changes.
app::Reply WritesThoughReadOnly(app::Ctx& ctx) {
  ctx.Write([](model::State& s) { s.Schedule(1, "x.kind", {}); });
  return app::Json(json::object());
}

http::RawRequest Post(const std::string& path, const json& body) {
  return http::RawRequest{"POST", path, body.dump(), {{"x-auth-service", kAliceKey}, {"content-type", "application/json"}}, {}};
}

TEST(RouterTxn, AReadOnlyPostRunsAsAReaderAndChangesNothing) {
  TestServer server;
  g_svc = &server.svc();
  static const std::vector<app::Route> routes = {
      {"POST", "/v1/domain/available", "domains.available", app::Access::kWorkspace, &WatchedAvailable,
       app::BodyFormat::kJson, app::kReadOnly},
  };
  app::Router router(server.svc(), routes);
  const json before = server.svc().store.Dump();
  g_seen.readOpen = g_seen.writeOpen = g_seen.otherReaderGotIn = false;
  const http::Response res = router.Handle(Post("/v1/domain/available", {{"domainName", "fresh-name.com"}}));
  EXPECT_EQ(res.status, 200);
  EXPECT_TRUE(g_seen.readOpen) << "the handler did not run in a read transaction";
  EXPECT_FALSE(g_seen.writeOpen);
  EXPECT_TRUE(g_seen.otherReaderGotIn);
  EXPECT_EQ(server.svc().store.Dump(), before);
}

// The catalogue marks the spec's read-only POSTs (effect "read"), and over HTTP they leave the
// state as it was.
TEST(RouterTxn, TheAvailabilityAndDnsChecksAreReadOnly) {
  TestServer server;
  std::vector<std::string> read_only;
  for (const auto& r : api::Routes(server.svc().schemas.Operations()))
    if (r.readOnly && std::string(r.method) != "GET" && std::string(r.pattern).rfind("/_sim", 0) != 0)
      read_only.push_back(r.operationId);
  EXPECT_EQ(read_only, (std::vector<std::string>{"domains.available", "domains.dns_check"}));

  const json before = server.Get("/_sim/state?secrets=true", "").body;
  auto available = server.Post("/v1/domain/available", {{"domainName", "brand-new-name.com"}, {"years", 2}});
  EXPECT_EQ(available.status, 200) << available.raw;
  auto checked = server.Post("/v1/domain/dns-check", {{"domainIds", json::array({"dom_nw_12", "dom_nw_01"})}});
  EXPECT_EQ(checked.status, 200) << checked.raw;
  EXPECT_EQ(server.Post("/v1/domain/dns-check", {{"domainIds", json::array({"dom_missing"})}}, "emsim_test_wrong").status, 401);
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before);
}

TEST(RouterTxn, AWriteRouteAuthenticatesInItsTransactionAndCommitsBeforeAnswering) {
  TestServer server;
  g_svc = &server.svc();
  static const std::vector<app::Route> routes = {
      {"POST", "/v2/webhooks/endpoints", "webhooks.create", app::Access::kAccount, &WatchedWrite},
  };
  app::Router router(server.svc(), routes);
  g_seen.readOpen = g_seen.writeOpen = g_seen.otherWriterGotIn = false;
  const http::Response res = router.Handle(Post("/v2/webhooks/endpoints", {{"url", "https://example.com/hook"},
                                                                        {"enabled_events", json::array({"domain.updated"})}}));
  EXPECT_EQ(res.status, 200);
  EXPECT_FALSE(res.body.value("account", std::string()).empty()) << "the caller was not authenticated";
  EXPECT_TRUE(g_seen.writeOpen) << "the handler did not run in the request's write transaction";
  EXPECT_FALSE(g_seen.readOpen);
  EXPECT_TRUE(g_seen.otherWriterGotIn) << "the lock was still held after the handler's write";
}

TEST(RouterTxn, AReadOnlyRouteThatWritesIsA500AndChangesNothing) {
  TestServer server;
  static const std::vector<app::Route> routes = {
      {"POST", "/v1/domain/dns-check", "domains.dns_check", app::Access::kWorkspace, &WritesThoughReadOnly,
       app::BodyFormat::kJson, app::kReadOnly},
  };
  app::Router router(server.svc(), routes);
  const json before = server.svc().store.Dump();
  const http::Response res = router.Handle(Post("/v1/domain/dns-check", {{"domainIds", json::array({"dom_nw_01"})}}));
  EXPECT_EQ(res.status, 500);
  EXPECT_EQ(server.svc().store.Dump(), before);
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 200) << "the lock was left held";
}

}  // namespace
}  // namespace emsim
