// Model tests of tenants' own clocks (model/tenants.hpp): which jobs are due on which clock, the
// queue of own clocks the scheduler reads (State::ownClockQueue) with 10,000 clocks, a tenant's
// deletion taking its jobs, and dumps: a world without own clocks dumps as before, one with them
// keeps each clock. No sockets, no threads.
#include <gtest/gtest.h>

#include "model/tenants.hpp"

namespace emsim::model {
namespace {

constexpr Millis kClockT0 = 1767258000000;  // 2026-01-01T09:00:00Z

Account TcAccount(const std::string& id) {
  Account a;
  a.id = id;
  a.apiKey = "key_" + id;
  a.user.id = "usr_" + id;
  return a;
}

// A world of `n` tenants with manual own clocks at kClockT0 (or real ones, offset from `wall`).
State TcWorld(int n, const std::string& mode = "manual", Millis wall = kClockT0) {
  State s;
  s.AddAccount(TcAccount("acc_tpl"));
  for (int i = 0; i < n; ++i) {
    const std::string id = "acc_t" + std::to_string(i);
    s.AddAccount(TcAccount(id));
    Tenant t{id, "acc_tpl", "t" + std::to_string(i), kClockT0, "shared", "", 0, 0, 0, "", 0};
    t.clock = "own";
    t.clockMode = t.clockStartMode = mode;
    t.clockNow = t.clockStartMs = kClockT0;
    t.clockOffset = kClockT0 - wall;
    s.tenants.Insert(std::move(t));
  }
  return s;
}

std::vector<std::string> DueClocks(const State& s, Millis wall) {
  std::vector<std::string> out;
  for (const auto& [key, clock] : s.ownClockQueue)
    if (key <= wall) out.push_back(clock);
  return out;
}

TEST(TenantClocksModel, AJobIsDueOnTheClockOfTheWriteThatScheduledIt) {
  State s = TcWorld(2);
  s.jobClock = "acc_t0";
  const auto a = s.Schedule(kClockT0 + kHour, "test.job", json::object());
  s.jobClock.clear();
  const auto instance = s.Schedule(kClockT0 + kHour, "test.job", json::object());
  EXPECT_EQ(s.jobs.at({kClockT0 + kHour, a}).clock, "acc_t0");
  EXPECT_EQ(s.jobs.at({kClockT0 + kHour, instance}).clock, "");
  EXPECT_EQ(s.waitingJobs.at("acc_t0").size(), 1u);
  EXPECT_EQ(s.waitingJobs.at("").size(), 1u);
  EXPECT_FALSE(s.waitingJobs.count("acc_t1"));
}

TEST(TenantClocksModel, AManualClockIsQueuedOnlyOnceItsEarliestJobIsDue) {
  State s = TcWorld(2);
  for (const char* id : {"acc_t0", "acc_t1"}) {
    s.jobClock = id;
    s.Schedule(kClockT0 + kHour, "test.job", json::object());
  }
  EXPECT_TRUE(s.ownClockQueue.empty()) << "nothing is due: a manual clock never moves by itself";
  // A job due now (a first webhook attempt) is due at once and wakes the scheduler.
  s.earliestNewJobDue = kNoJobDue;
  s.jobClock = "acc_t1";
  s.Schedule(kClockT0, "test.job", json::object());
  EXPECT_EQ(DueClocks(s, kClockT0), std::vector<std::string>{"acc_t1"});
  EXPECT_EQ(s.earliestNewJobDue, INT64_MIN);
  // t0 advances 24h: t0's job is due, t1's hour-later job is not (t1's clock did not move).
  ASSERT_TRUE(SetOwnClock(s, "acc_t0", kClockT0 + 24 * kHour, kClockT0));
  EXPECT_EQ(DueClocks(s, kClockT0).size(), 2u);
  // Taking t1's due job leaves t1 unqueued: its other job is an hour away on its own clock.
  auto& waiting = s.waitingJobs.at("acc_t1");
  s.MarkJobRunning(s.jobs.at(*waiting.begin()));
  EXPECT_EQ(DueClocks(s, kClockT0), std::vector<std::string>{"acc_t0"});
  // Never backwards.
  EXPECT_FALSE(SetOwnClock(s, "acc_t0", kClockT0, kClockT0));
  EXPECT_EQ(OwnClockNow(*s.tenants.Find("acc_t0"), kClockT0), kClockT0 + 24 * kHour);
}

TEST(TenantClocksModel, ARealClockIsQueuedByWhenItsJobFallsDueInWallTime) {
  const Millis wall = 1'800'000'000'000;  // the wall clock, far from the simulated time
  State s = TcWorld(2, "real", wall);
  s.jobClock = "acc_t0";
  s.Schedule(kClockT0 + kMinute, "test.job", json::object());
  s.jobClock = "acc_t1";
  s.Schedule(kClockT0 + kHour, "test.job", json::object());
  ASSERT_EQ(s.ownClockQueue.size(), 2u);
  EXPECT_EQ(s.ownClockQueue.begin()->first, wall + kMinute);
  EXPECT_EQ(s.ownClockQueue.begin()->second, "acc_t0");
  // Advancing t1 by an hour (its offset grows) brings its job to now in wall terms.
  ASSERT_TRUE(SetOwnClock(s, "acc_t1", kClockT0 + kHour, wall));
  EXPECT_EQ(s.ownClockQueue.begin()->first, wall);
  EXPECT_EQ(s.ownClockQueue.begin()->second, "acc_t1");
  // Frozen (manual) where it stands, then its job is due at once.
  SetOwnClockMode(s, "acc_t0", "manual", wall + 2 * kMinute);
  EXPECT_EQ(s.ownClockQueue.begin()->first, INT64_MIN);
  EXPECT_EQ(s.tenants.Find("acc_t0")->clockNow, kClockT0 + 2 * kMinute);
}

TEST(TenantClocksModel, TenThousandClocksAdvancingOneQueuesOnlyIt) {
  State s = TcWorld(10'000);
  for (int i = 0; i < 10'000; ++i) {
    s.jobClock = "acc_t" + std::to_string(i);
    s.Schedule(kClockT0 + kHour + i, "test.job", json::object());
  }
  s.jobClock.clear();
  EXPECT_TRUE(s.ownClockQueue.empty());
  ASSERT_TRUE(SetOwnClock(s, "acc_t4242", kClockT0 + 24 * kHour, kClockT0));
  EXPECT_EQ(DueClocks(s, kClockT0), std::vector<std::string>{"acc_t4242"});
  EXPECT_EQ(s.ownClockQueue.size(), 1u);
  EXPECT_EQ(s.waitingJobs.size(), 10'000u);
}

TEST(TenantClocksModel, DeletingATenantTakesItsJobsAndItsPlaceInTheQueue) {
  State s = TcWorld(2);
  for (const char* id : {"acc_t0", "acc_t1"}) {
    s.jobClock = id;
    s.Schedule(kClockT0, "test.job", json::object());
    s.Emit("workspace.invitations", id, json::object(), kClockT0);
  }
  s.jobClock.clear();
  ASSERT_EQ(s.ownClockQueue.size(), 2u);
  ASSERT_TRUE(DeleteTenant(s, "acc_t0"));
  EXPECT_EQ(s.ownClockQueue.size(), 1u);
  EXPECT_FALSE(s.waitingJobs.count("acc_t0"));
  EXPECT_FALSE(s.accounts.Contains("acc_t0"));
  EXPECT_FALSE(s.accountByApiKey.count("key_acc_t0"));
  EXPECT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.trimmed.events, 1u) << "a removed entry counts as dropped: ids counted from the log never repeat";
  for (const auto& [key, job] : s.jobs) EXPECT_EQ(job.clock, "acc_t1");
  EXPECT_EQ(IndexProblems(s), "");
  EXPECT_FALSE(DeleteTenant(s, "acc_t0"));
  EXPECT_EQ(DeleteTenant(s, "acc_tpl").error().code, ErrorCode::kValidation) << "a fixture account is no tenant";
}

TEST(TenantClocksModel, DumpsKeepOwnClocksAndASharedTenantDumpsAsBefore) {
  State s = TcWorld(1);
  Tenant shared{"acc_shared", "acc_tpl", "tsh", kClockT0, "shared", "", 0, 0, 0, "", 0};
  s.AddAccount(TcAccount("acc_shared"));
  s.tenants.Insert(shared);
  s.jobClock = "acc_t0";
  s.Schedule(kClockT0 + kHour, "test.job", json::object());
  s.jobClock.clear();
  s.Schedule(kClockT0 + kHour, "test.job", json::object());
  const json dump = DumpState(s);
  // The shared tenant and the instance clock's job carry nothing new (a dump from before loads
  // and dumps byte for byte).
  EXPECT_EQ(dump["tenants"][1], json({{"createdAt", kClockT0}, {"id", "acc_shared"}, {"tag", "tsh"}, {"templateId", "acc_tpl"}}));
  EXPECT_FALSE(dump["jobs"][1].contains("clock"));
  EXPECT_EQ(dump["jobs"][0]["clock"], "acc_t0");
  const State back = LoadState(dump);
  EXPECT_EQ(DumpState(back).dump(), dump.dump());
  EXPECT_EQ(back.tenants.Find("acc_t0")->clockMode, "manual");
  EXPECT_EQ(back.waitingJobs.at("acc_t0").size(), 1u);
  // A job on a clock no tenant has is refused, naming it.
  json bad = dump;
  bad["jobs"][0]["clock"] = "acc_shared";
  try {
    LoadState(bad);
    ADD_FAILURE() << "loaded a job on a shared tenant's (non-existent) own clock";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("state.jobs"), std::string::npos) << e.what();
  }
  json bad_clock = dump;
  bad_clock["tenants"][0]["clock"] = "mine";
  EXPECT_THROW(LoadState(bad_clock), std::invalid_argument);
}

}  // namespace
}  // namespace emsim::model
