#pragma once
// Opt-in rate limits (--rate-limit), as the real service publishes them (from the public
// reference, docs.zapmail.ai "Rate Limits": per API key, 5 requests a second and 200 a minute
// over every request, and 100 domain-availability checks per 30 minutes; counted before the key
// is validated, so a wrong key counts against its own value). Windows slide on the simulated
// clock, so a test on a manual clock moves past a limit with POST /_sim/clock/advance.
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/time.hpp"

namespace emsim::app {

struct RateLimits {
  std::int64_t perSecond = 5;
  std::int64_t perMinute = 200;
  std::int64_t availabilityPer30Min = 100;  // POST /v1/domain/available (Part 4.4)
};

class RateLimiter {
 public:
  explicit RateLimiter(RateLimits limits, size_t max_keys = 100000) : limits_(limits), max_keys_(max_keys) {}

  struct Verdict {
    bool allowed = true;
    std::int64_t retryAfterSeconds = 0;  // when refused: until the fullest window has room
    std::string limit;                   // when refused: which limit, e.g. "5 requests per second"
  };
  // Counts one request of `api_key` at `now` if every limit that applies has room; otherwise
  // counts nothing and says when to retry. `availability`: the request is a domain
  // availability check (it counts against all three limits).
  Verdict Admit(std::string_view api_key, model::Millis now, bool availability);
  // Forgets every count (POST /_sim/reset).
  void Clear();
  size_t TrackedKeys() const;

 private:
  struct Window {
    std::deque<model::Millis> times;  // admitted requests inside the window, oldest first
  };
  struct Key {
    Window second, minute, availability;
    model::Millis last = 0;
  };
  // Drops keys idle for longer than the longest window; if still too many (a client sending a
  // new key value with each request), the least recently used half.
  void Sweep(model::Millis now);

  RateLimits limits_;
  size_t max_keys_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Key> keys_;
};

}  // namespace emsim::app
