// Store::ReadStep: the read transactions of work taken in steps (a search index built ahead or by
// a search) let a waiting write go first. Plain Read lets a reader in while a write waits, which is
// how two such workers whose steps overlapped kept writes out for as long as both ran.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>

#include "runtime/store.hpp"

namespace emsim::runtime {
namespace {

TEST(StoreSteps, AStepBeginsAfterTheWriteThatWasWaitingAndSeesIt) {
  Store store{model::State()};
  auto reader = std::make_unique<Store::ReadTxn>(store.BeginRead());  // a read under way (another step, a list)
  std::thread write([&] { store.Write([](model::State& s) { s.ids.Restore(s.ids.seed(), 41); }); });
  while (store.WritesWaiting() == 0) std::this_thread::yield();  // the write is queued behind the read

  // The step waits for the write however long it takes (no give-up here): it sees its change.
  std::atomic<bool> stepped{false};
  std::uint64_t seen = 0;
  std::thread step([&] {
    store.ReadStep([&](const model::State& s) { seen = s.ids.counter(); return 0; }, std::chrono::hours(1));
    stepped = true;
  });
  // Plain Read would have joined the read under way at once (and seen 0).
  for (int i = 0; i < 1000; ++i) std::this_thread::yield();
  EXPECT_FALSE(stepped.load()) << "the step began while a write was waiting";
  reader.reset();
  write.join();
  step.join();
  EXPECT_EQ(seen, 41u);
  EXPECT_EQ(store.WritesWaiting(), 0);

  // With no write waiting, a step runs at once, beside other reads.
  const Store::ReadTxn other = store.BeginRead();
  EXPECT_EQ(store.ReadStep([](const model::State& s) { return s.ids.counter(); }), 41u);
}

TEST(StoreSteps, AStepInsideAWriteOfTheSameThreadIsRefused) {
  Store store{model::State()};
  store.Write([&](model::State&) { EXPECT_THROW(store.ReadStep([](const model::State&) { return 0; }), std::logic_error); });
}

}  // namespace
}  // namespace emsim::runtime
