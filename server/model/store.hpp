#pragma once
// The one store (STYLE.md habit 3): a State behind a reader/writer lock, a baseline to reset to,
// and whole-state dump/load. Every change to the world goes through Write(), so concurrent
// requests never lose an update: a wallet debit and its balance check happen under one lock.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <utility>

#include "model/state.hpp"

namespace emsim::model {

class Store {
 public:
  // The baseline (what Reset returns to) is copied on a background thread, so a large fixture
  // starts serving reads without waiting for the copy (100k mailboxes: ~40% of the load time).
  // Nothing can change the state before the copy is done: Write, Reset and Load wait for it.
  // The indexes are built once here and copied with the state.
  explicit Store(State initial) : state_((initial.RebuildIndexes(), std::move(initial))) {
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
    std::unique_lock lock(mu_);
    return f(state_, static_cast<const State&>(*baseline_));
  }

  // Back to the state the store was created with (the loaded fixtures).
  void Reset() {
    AwaitBaseline();
    std::unique_lock lock(mu_);
    state_ = *baseline_;
    ++generation_;
  }

  json Dump() const {
    std::shared_lock lock(mu_);
    return DumpState(state_);
  }

  // Replaces the whole state; throws (leaving the state as it was) when `j` is not a valid dump.
  void Load(const json& j) {
    State next = LoadState(j);
    AwaitBaseline();
    std::unique_lock lock(mu_);
    state_ = std::move(next);
    ++generation_;
  }

  // Counts Reset() and Load(): work begun on one state (a webhook attempt in flight) compares it
  // before writing its result, so it never lands in the state that replaced it.
  std::uint64_t generation() const { return generation_.load(); }

 private:
  void AwaitBaseline() {
    if (baseline_ready_.load(std::memory_order_acquire)) return;
    std::unique_lock lock(baseline_mu_);
    baseline_cv_.wait(lock, [this] { return baseline_ready_.load(); });
  }

  mutable std::shared_mutex mu_;
  std::atomic<std::uint64_t> generation_{0};
  State state_;
  std::unique_ptr<State> baseline_;
  std::atomic<bool> baseline_ready_{false};
  std::mutex baseline_mu_;
  std::condition_variable baseline_cv_;
  std::thread copier_;
};

}  // namespace emsim::model
