#pragma once
// The one store (STYLE.md habit 3): a State behind a reader/writer lock, a baseline to reset to,
// and whole-state dump/load. Every change to the world goes through Write(), so concurrent
// requests never lose an update: a wallet debit and its balance check happen under one lock.
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "model/state.hpp"

namespace emsim::model {

class Store {
 public:
  explicit Store(State initial) : baseline_(initial), state_(std::move(initial)) {
    baseline_.RebuildIndexes();
    state_.RebuildIndexes();
  }

  template <class F>
  auto Read(F&& f) const {
    std::shared_lock lock(mu_);
    return f(static_cast<const State&>(state_));
  }

  template <class F>
  auto Write(F&& f) {
    std::unique_lock lock(mu_);
    return f(state_);
  }

  // Back to the state the store was created with (the loaded fixtures).
  void Reset() {
    std::unique_lock lock(mu_);
    state_ = baseline_;
  }

  json Dump() const {
    std::shared_lock lock(mu_);
    return DumpState(state_);
  }

  // Replaces the whole state; throws (leaving the state as it was) when `j` is not a valid dump.
  void Load(const json& j) {
    State next = LoadState(j);
    std::unique_lock lock(mu_);
    state_ = std::move(next);
  }

 private:
  mutable std::shared_mutex mu_;
  State baseline_;
  State state_;
};

}  // namespace emsim::model
