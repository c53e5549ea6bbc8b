// State::TrimLogs (emsim serve --retain-events): the newest entries of each log stay, the event
// index follows, notification ids go on counting, and a dump keeps what was trimmed so a load
// round-trips exactly.
#include <gtest/gtest.h>

#include "model/state.hpp"

namespace emsim::model {
namespace {

State WithLogs() {
  State s;
  Account a;
  a.id = "acc_1";
  a.apiKey = "key_1";
  a.user.id = "usr_1";
  s.AddAccount(a);
  for (int i = 0; i < 5; ++i) s.Emit("domain.updated", "acc_1", json{{"n", i}}, 1000 + i);
  for (int i = 0; i < 3; ++i) s.Notify("acc_1", "subject", "message", json::object(), 1000);
  return s;
}

TEST(LogRetention, KeepsTheNewestEntriesAndTheEventIndexFollows) {
  State s = WithLogs();
  const std::string oldest = s.events.front().id, newest = s.events.back().id;
  s.TrimLogs(2);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events.front().data.Parse()["n"], 3);
  EXPECT_EQ(s.trimmed.events, 3u);
  EXPECT_EQ(s.FindEvent(oldest), nullptr);
  ASSERT_NE(s.FindEvent(newest), nullptr);
  EXPECT_EQ(s.FindEvent(newest)->data.Parse()["n"], 4);
  EXPECT_EQ(IndexProblems(s), "");
  EXPECT_EQ(s.notifications.size(), 2u);
  EXPECT_EQ(s.Notify("acc_1", "s", "m", json::object(), 1000).id, "ntf_4");  // never a reused id
  s.Emit("domain.updated", "acc_1", json{{"n", 5}}, 2000);
  EXPECT_EQ(s.FindEvent(s.events.back().id)->data.Parse()["n"], 5);
  EXPECT_EQ(IndexProblems(s), "");
}

TEST(LogRetention, ZeroKeepsEverything) {
  State s = WithLogs();
  s.TrimLogs(0);
  EXPECT_EQ(s.events.size(), 5u);
  EXPECT_EQ(s.trimmed, State::Trimmed{});
}

TEST(LogRetention, ADumpKeepsWhatWasTrimmedAndLoadsBackExactly) {
  State s = WithLogs();
  s.TrimLogs(2);
  const json dump = DumpState(s);
  EXPECT_EQ(dump["trimmed"], (json{{"events", 3}, {"deliveries", 0}, {"notifications", 1}, {"walletMovements", 0}}));
  const State back = LoadState(dump);
  EXPECT_EQ(back.trimmed, s.trimmed);
  EXPECT_EQ(DumpState(back), dump);
  EXPECT_NE(back.FindEvent(s.events.back().id), nullptr);
}

TEST(LogRetention, ATrimmedCountOutOfRangeIsRefused) {
  json dump = DumpState(WithLogs());
  dump["trimmed"]["events"] = 1'000'000'000'000'001ULL;
  EXPECT_THROW(LoadState(dump), std::invalid_argument);
  dump["trimmed"] = json{{"events", "many"}};
  EXPECT_THROW(LoadState(dump), std::invalid_argument);
}

}  // namespace
}  // namespace emsim::model
