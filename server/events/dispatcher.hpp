#pragma once
// The webhook dispatcher (STYLE.md habit 7): runs the "webhooks.deliver" jobs that State::Emit
// and failed attempts schedule. One attempt = look up the event and endpoint under the store lock,
// sign and POST with the lock released, record the outcome under the lock (model/webhooks.hpp
// decides retries and auto-disable).
//
// Manual clock: the attempt runs inside POST /_sim/clock/advance, on the scheduler's threads
// (attempts due at the same instant run in parallel), so advancing 2 days runs the whole retry
// schedule deterministically. Real clock: the scheduler hands the job to this dispatcher's worker
// pool and goes on at once, so a slow or dead receiver delays neither an API request, nor other
// jobs, nor other endpoints.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "app/services.hpp"
#include "events/transport.hpp"

namespace emsim::events {

inline constexpr const char* kUserAgent = "Service-Webhooks/1.0";  // Part 6 delivery headers
inline constexpr size_t kDeliveryWorkers = 32;                   // real clock: attempts in flight at once

class Dispatcher {
 public:
  explicit Dispatcher(app::Services& svc);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // The scheduler's runner for model::kDeliverJob.
  void Run(const model::Job& job);
  // Forgets queued attempts (POST /_sim/reset); attempts in flight finish but record nothing.
  void Reset();
  // Joins the workers; queued attempts are abandoned (the process is going away).
  void Stop();
  bool stopping() const { return stop_.load(); }

 private:
  void Attempt(const model::Job& job, std::uint64_t generation);
  void Work();

  app::Services& svc_;
  TransportOptions transport_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<model::Job, std::uint64_t>> queue_;
  std::vector<std::thread> workers_;  // started on first use
  std::atomic<bool> stop_{false};
};

}  // namespace emsim::events
