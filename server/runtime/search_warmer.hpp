#pragma once
// Builds the search indexes of a world's big workspaces (model::WarmSearchIndexes) before anyone
// searches: once the world is there (emsim's start) and again whenever it is replaced (reset,
// state load). Built by the first search instead, a workspace of 4.5 M generated mailboxes kept
// that search waiting ~10 s, and its emails' ~12 s (bench/scale.sh); a small workspace's first
// search builds its index in milliseconds, so only workspaces with `min_records` records of a kind
// or more are built ahead (--warm-indexes; 0 turns it off), and a world that grows by writes (a
// soak, tenants) still builds only what it searches.
//
// One thread, in steps, each a read transaction of its own (Store::ReadStep, as a search's own
// catch-up takes them, app::Ctx::ReadInSteps): a write waits for a step, never for the whole
// build, and reads go on beside it. A search that comes before the build is done takes steps of the same build and finds
// the rest done. Ready (Status) when no build is under way.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "runtime/store.hpp"

namespace emsim::runtime {

class SearchWarmer {
 public:
  // Records indexed a step: ~2-5 ms of work, as a search's own step (api/query.hpp kIndexStep).
  static constexpr size_t kStep = 4096;

  // With `min_records` 0 nothing is built and no thread runs. Kick() starts a build.
  SearchWarmer(const Store& store, size_t min_records);
  ~SearchWarmer();  // stops between two steps
  SearchWarmer(const SearchWarmer&) = delete;
  SearchWarmer& operator=(const SearchWarmer&) = delete;

  // The world is new (started, reset, loaded): build its indexes. A build under way starts over
  // on the world as it is at its next step.
  void Kick();

  struct Status {
    bool ready = true;  // no build under way or asked for
    size_t left = 0;    // records (or email-order steps) not yet indexed, at most
  };
  Status status() const;
  // Returns once no build is under way or asked for (tests; no timing involved).
  void AwaitReady();

 private:
  void Run();

  const Store& store_;
  const size_t min_records_;
  mutable std::mutex mu_;
  std::condition_variable cv_;  // a kick or stop for the thread; the end of a build for AwaitReady
  bool asked_ = false, building_ = false, stop_ = false;
  std::atomic<size_t> left_{0};
  std::thread thread_;
};

}  // namespace emsim::runtime
