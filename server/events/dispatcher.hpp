#pragma once
// The webhook dispatcher (STYLE.md habit 7): the scheduler's task for "webhooks.deliver" jobs,
// which State::Emit and failed attempts schedule. One attempt = look up the event and endpoint
// under the store lock, sign and POST with the lock released, record the outcome under the lock
// (model/webhooks.hpp decides retries and auto-disable). It runs on the scheduler's workers, so
// attempts due together go out in parallel and a slow receiver holds up nothing else; it runs at
// the job's due time, which is the attempt's simulated time in the delivery log.
#include <cstdint>

#include <atomic>

#include "events/transport.hpp"
#include "runtime/clock.hpp"
#include "runtime/store.hpp"

namespace emsim::events {

inline constexpr const char* kUserAgent = "Service-Webhooks/1.0";  // Part 6 delivery headers

struct DispatcherOptions {
  TransportOptions transport;
  // `t` of X-Service-Signature from the simulated clock (the attempt's due time), not the wall clock.
  bool signWithSimulatedTime = false;
};

class Dispatcher {
 public:
  // `faults_may_exist`: the hint that /_sim/faults may hold an outbound fault (see app::Services).
  Dispatcher(runtime::Store& store, const std::atomic<bool>& faults_may_exist, DispatcherOptions options);
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // The scheduler's task for model::kDeliverJob: one attempt, made at `at` (its due time), on
  // the state of `generation` (nothing is recorded once that state was reset or replaced).
  void Attempt(const model::Job& job, model::Millis at, std::uint64_t generation);

 private:
  runtime::Store& store_;
  const std::atomic<bool>& faults_may_exist_;
  DispatcherOptions options_;
};

}  // namespace emsim::events
