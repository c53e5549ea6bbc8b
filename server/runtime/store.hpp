#pragma once
// The one store (STYLE.md habit 3): a State behind a reader/writer lock, a baseline to reset to,
// and whole-state dump/load. Every change to the world goes through Write(), so concurrent
// requests never lose an update: a wallet debit and its balance check happen under one lock.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "model/state.hpp"

namespace emsim::runtime {

using model::DumpState;
using model::kNoJobDue;
using model::LoadState;
using model::Millis;
using model::State;

// Hands the pages of freed memory back to the system: after start-up (the fixture text, its parse
// tree and the schema files are gone) and after a big state is freed.
void ReturnFreedPages();

class Store {
 public:
  // What Reset returns to is the state the store was created with (the loaded fixtures). Either
  // the store keeps a copy of it, or, for a state a recipe rebuilds exactly (a fixture's
  // `generate:` mapping, sim/fixture_gen.hpp), `rebuild` makes it again when it is needed: a
  // 100k-mailbox fixture is then held once, not twice (issue 7: 350 -> 190 MiB resident), at the
  // price of a slower reset (the rebuild, ~0.35 s at 100k, against ~0.1 s for copying in place).
  using Rebuild = std::function<State()>;

  // Without `rebuild`, the copy is made on a background thread so a large fixture starts serving
  // reads without waiting for it. Nothing can change the state before the copy is done: Write,
  // Reset and Load wait for it. `initial`'s indexes must be current (LoadState and the fixture
  // loader keep them so); they are copied, or rebuilt, with the state.
  explicit Store(State initial, Rebuild rebuild = {}) : state_(std::move(initial)), rebuild_(std::move(rebuild)) {
    if (rebuild_) {
      baseline_ready_ = true;
      return;
    }
    copier_ = std::thread([this] {
      auto copy = std::make_unique<State>(state_);  // state_ cannot change until baseline_ready_
      std::lock_guard lock(baseline_mu_);
      baseline_ = std::move(copy);
      baseline_ready_ = true;
      baseline_cv_.notify_all();
    });
  }
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Inside an Exclusive section on this thread, Read and Write run `f` in it without locking
  // again (the lock is not recursive: locking it twice would deadlock).
  template <class F>
  auto Read(F&& f) const {
    if (held_ == this) return f(static_cast<const State&>(state_));
    std::shared_lock lock(mu_);
    return f(static_cast<const State&>(state_));
  }

  // The first Write of an Exclusive section ends the section when it returns: see Exclusive.
  template <class F>
  auto Write(F&& f) {
    if (held_ == this) {
      struct EndSection {
        ~EndSection() {
          held_ = nullptr;
          section_->unlock();
        }
      } end;
      JobsWatch watch(*this);  // destroyed before `end`: still under the lock
      return f(state_);
    }
    AwaitBaseline();
    std::unique_lock lock(mu_);
    JobsWatch watch(*this);
    return f(state_);
  }

  // The scheduler's one wake-up: called after a write that scheduled a job, with the earliest
  // due time it scheduled, and after Reset and Load with kNoJobDue's opposite (INT64_MIN: look
  // again at everything). It runs with the write lock held, so it must only signal, never lock
  // the store. Set once, before the store is used by more than one thread.
  void SetJobsObserver(std::function<void(Millis)> observer) { jobs_observer_ = std::move(observer); }

  // A write section for a request: the router runs a write route's authentication and its handler
  // in one, so a POST takes the lock once. Authenticating under the shared lock and then writing
  // under the exclusive one made every POST a reader and then a writer of a glibc rwlock, which
  // prefers readers and wakes all of them on each write unlock: under 32 connections the MONTHLY
  // purchase spent much of its CPU going to sleep and waking up on the lock (issue 7).
  //
  // The section holds the write lock from the start of `f` until the first Write that `f` makes
  // returns (or `f` ends): reads before that Write see the state it changes, and what the handler
  // does after its change (writing the answer) does not hold up other requests. Later Reads and
  // Writes lock as usual. Reset, Load, Dump and the baseline calls refuse to run inside a section
  // (they lock, or wait for another thread that may) with a logic_error, not a deadlock.
  template <class F>
  auto Exclusive(F&& f) {
    RefuseNested("Exclusive");
    AwaitBaseline();
    std::unique_lock lock(mu_);
    struct Section {
      Section(const Store* s, std::unique_lock<std::shared_mutex>* l) {
        held_ = s;
        section_ = l;
      }
      ~Section() {
        held_ = nullptr;
        section_ = nullptr;
      }
    } section(this, &lock);
    // A section that ends without a Write still reports what it scheduled (under its lock).
    struct WatchIfHeld {
      Store& store;
      std::unique_lock<std::shared_mutex>& lock;
      ~WatchIfHeld() {
        if (lock.owns_lock()) store.ReportScheduled();
      }
    } watch{*this, lock};
    state_.earliestNewJobDue = kNoJobDue;
    return f(state_);
  }

  // Like Write, with the loaded fixtures at hand (POST /_sim/tenants clones from them).
  template <class F>
  auto WriteWithBaseline(F&& f) {
    RefuseNested("WriteWithBaseline");
    AwaitBaseline();
    if (rebuild_) {
      // Rebuilt before taking the lock (other requests go on meanwhile); freed after releasing it.
      struct Rebuilt {
        Store& store;
        State state;
        ~Rebuilt() { store.Discard(std::move(state)); }
      } fixture{*this, rebuild_()};
      std::unique_lock lock(mu_);
      JobsWatch watch(*this);
      return f(state_, static_cast<const State&>(fixture.state));
    }
    std::unique_lock lock(mu_);
    JobsWatch watch(*this);
    return f(state_, static_cast<const State&>(*baseline_));
  }

  // Back to the state the store was created with (the loaded fixtures).
  void Reset() {
    RefuseNested("Reset");
    AwaitBaseline();
    if (rebuild_) {
      Replace(rebuild_());  // rebuilt before taking the lock
      return;
    }
    {
      std::unique_lock lock(mu_);
      state_ = *baseline_;  // copy-assigned in place: the records' buffers are reused, nothing is freed
      ++generation_;
    }
    if (jobs_observer_) jobs_observer_(INT64_MIN);
  }

  json Dump() const {
    RefuseNested("Dump");
    std::shared_lock lock(mu_);
    return DumpState(state_);
  }

  // Replaces the whole state; throws (leaving the state as it was) when `j` is not a valid dump.
  void Load(const json& j) {
    RefuseNested("Load");
    State next = LoadState(j);
    AwaitBaseline();
    Replace(std::move(next));
  }

  // Counts Reset() and Load(): work begun on one state (a webhook attempt in flight) compares it
  // before writing its result, so it never lands in the state that replaced it.
  std::uint64_t generation() const { return generation_.load(); }

 private:
  // A programming error made loud (a 500 naming it) instead of a deadlock.
  void RefuseNested(const char* what) const {
    if (held_ == this) throw std::logic_error(std::string("Store::") + what + " inside an Exclusive section");
  }

  void Replace(State next) {
    {
      std::unique_lock lock(mu_);
      std::swap(state_, next);
      ++generation_;
    }
    if (jobs_observer_) jobs_observer_(INT64_MIN);
    Discard(std::move(next));  // the old state, outside the lock
  }

  // Clears the state's note of newly scheduled work on entry and reports it on exit; the store's
  // lock is held for the whole life of a watch.
  struct JobsWatch {
    explicit JobsWatch(Store& s) : store(s) { store.state_.earliestNewJobDue = kNoJobDue; }
    ~JobsWatch() { store.ReportScheduled(); }
    Store& store;
  };
  void ReportScheduled() {
    const Millis due = state_.earliestNewJobDue;
    if (due == kNoJobDue) return;
    state_.earliestNewJobDue = kNoJobDue;
    if (jobs_observer_) jobs_observer_(due);
  }

  // Frees a state that is no longer used: a small one at once, a big one (a 100k-mailbox state
  // takes ~0.25 s to free) on a background thread, so the request that replaced it need not wait.
  void Discard(State old);  // store.cpp

  void AwaitBaseline() {
    if (baseline_ready_.load(std::memory_order_acquire)) return;
    std::unique_lock lock(baseline_mu_);
    baseline_cv_.wait(lock, [this] { return baseline_ready_.load(); });
  }

  mutable std::shared_mutex mu_;
  // The store this thread is in an Exclusive section of, and the section's lock.
  static inline thread_local const Store* held_ = nullptr;
  static inline thread_local std::unique_lock<std::shared_mutex>* section_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  State state_;
  const Rebuild rebuild_;
  std::unique_ptr<State> baseline_;  // the copy kept when there is no rebuild_
  std::atomic<bool> baseline_ready_{false};
  std::mutex baseline_mu_;
  std::condition_variable baseline_cv_;
  std::thread copier_;
  std::mutex discard_mu_;
  std::thread discarder_;  // the one freeing a big state, if any
  std::function<void(Millis)> jobs_observer_;
};

}  // namespace emsim::runtime
