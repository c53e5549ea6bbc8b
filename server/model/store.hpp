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
#include <thread>
#include <utility>

#include "model/state.hpp"

namespace emsim::model {

class Store {
 public:
  // What Reset returns to is the state the store was created with (the loaded fixtures). A state
  // that a recipe rebuilds exactly (a fixture's `generate:` mapping, sim/fixture_gen.hpp) is
  // rebuilt by `rebuild` when it is needed, so a 100k-mailbox fixture is held once, not twice
  // (issue 7: it halves resident memory; a rebuild costs about what copying it would).
  using Rebuild = std::function<State()>;

  // Without `rebuild`, the store keeps a copy, made on a background thread so a large fixture
  // starts serving reads without waiting for it. Nothing can change the state before the copy is
  // done: Write, Reset and Load wait for it. `initial`'s indexes must be current (LoadState and
  // the fixture loader keep them so); they are copied, or rebuilt, with the state.
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
  ~Store() {
    if (copier_.joinable()) copier_.join();
  }
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  template <class F>
  auto Read(F&& f) const {
    std::shared_lock lock(mu_);
    return f(static_cast<const State&>(state_));
  }

  template <class F>
  auto Write(F&& f) {
    AwaitBaseline();
    std::unique_lock lock(mu_);
    return f(state_);
  }

  // Like Write, with the loaded fixtures at hand (POST /_sim/tenants clones from them).
  template <class F>
  auto WriteWithBaseline(F&& f) {
    AwaitBaseline();
    if (rebuild_) {
      const State fixture = rebuild_();  // before the lock: other requests go on meanwhile
      std::unique_lock lock(mu_);
      return f(state_, fixture);
    }
    std::unique_lock lock(mu_);
    return f(state_, static_cast<const State&>(*baseline_));
  }

  // Back to the state the store was created with (the loaded fixtures). The fixture state is
  // copied (or rebuilt) before taking the lock and the old state is freed after releasing it, so
  // other requests wait only for the swap (a 100k-mailbox state takes ~0.1 s to copy and to free).
  void Reset() {
    AwaitBaseline();
    State fresh = rebuild_ ? rebuild_() : State(*baseline_);  // the baseline never changes once made
    Replace(std::move(fresh));
  }

  json Dump() const {
    std::shared_lock lock(mu_);
    return DumpState(state_);
  }

  // Replaces the whole state; throws (leaving the state as it was) when `j` is not a valid dump.
  void Load(const json& j) {
    State next = LoadState(j);
    AwaitBaseline();
    Replace(std::move(next));
  }

  // Counts Reset() and Load(): work begun on one state (a webhook attempt in flight) compares it
  // before writing its result, so it never lands in the state that replaced it.
  std::uint64_t generation() const { return generation_.load(); }

 private:
  void Replace(State next) {
    {
      std::unique_lock lock(mu_);
      std::swap(state_, next);
      ++generation_;
    }
    // `next` now holds the old state: freed here, outside the lock.
  }

  void AwaitBaseline() {
    if (baseline_ready_.load(std::memory_order_acquire)) return;
    std::unique_lock lock(baseline_mu_);
    baseline_cv_.wait(lock, [this] { return baseline_ready_.load(); });
  }

  mutable std::shared_mutex mu_;
  std::atomic<std::uint64_t> generation_{0};
  State state_;
  const Rebuild rebuild_;
  std::unique_ptr<State> baseline_;  // the copy kept when there is no rebuild_
  std::atomic<bool> baseline_ready_{false};
  std::mutex baseline_mu_;
  std::condition_variable baseline_cv_;
  std::thread copier_;
};

}  // namespace emsim::model
