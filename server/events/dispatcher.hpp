#pragma once
// The webhook dispatcher (STYLE.md habit 7): the scheduler's task for "webhooks.deliver" jobs,
// which State::Emit and failed attempts schedule. One attempt = look up the event and endpoint
// under the store lock, sign and POST with the lock released, record the outcome under the lock
// (model/webhooks.hpp decides retries and auto-disable). It runs on the scheduler's workers, so
// attempts due together go out in parallel and a slow receiver holds up nothing else; it runs at
// the job's due time, which is the attempt's simulated time in the delivery log.
#include <cstdint>

#include "app/services.hpp"
#include "events/transport.hpp"

namespace emsim::events {

inline constexpr const char* kUserAgent = "Service-Webhooks/1.0";  // Part 6 delivery headers

class Dispatcher {
 public:
  explicit Dispatcher(app::Services& svc);
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // The scheduler's task for model::kDeliverJob: one attempt, made at `at` (its due time), on
  // the state of `generation` (nothing is recorded once that state was reset or replaced).
  void Attempt(const model::Job& job, model::Millis at, std::uint64_t generation);

 private:
  app::Services& svc_;
  TransportOptions transport_;
};

}  // namespace emsim::events
