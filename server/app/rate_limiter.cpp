#include "app/rate_limiter.hpp"

#include <algorithm>

namespace emsim::app {

namespace {

constexpr model::Millis kSecondWindow = 1000;
constexpr model::Millis kMinuteWindow = 60 * 1000;
constexpr model::Millis kAvailabilityWindow = 30 * 60 * 1000;

// Drops the times that left the window; answers 0 when there is room for one more, else the
// milliseconds until the oldest leaves it. A limit of 0 or less imposes nothing.
model::Millis Wait(std::deque<model::Millis>& times, model::Millis now, model::Millis window, std::int64_t limit) {
  while (!times.empty() && times.front() <= now - window) times.pop_front();
  if (limit <= 0 || static_cast<std::int64_t>(times.size()) < limit) return 0;
  // The request that frees a slot is the (size - limit + 1)-th oldest: usually the oldest.
  const model::Millis frees = times[times.size() - static_cast<size_t>(limit)] + window;
  return std::max<model::Millis>(1, frees - now);
}

std::string Text(std::int64_t n, const char* per) { return std::to_string(n) + " requests per " + per; }

}  // namespace

RateLimiter::Verdict RateLimiter::Admit(std::string_view api_key, model::Millis now, bool availability) {
  std::lock_guard lock(mu_);
  if (keys_.size() >= max_keys_) Sweep(now);
  Key& k = keys_[std::string(api_key)];
  k.last = std::max(k.last, now);
  Verdict v;
  model::Millis wait = 0;
  auto check = [&](Window& w, model::Millis window, std::int64_t limit, std::string what) {
    const model::Millis ms = Wait(w.times, now, window, limit);
    if (ms > wait) {
      wait = ms;
      v.limit = std::move(what);
    }
  };
  check(k.second, kSecondWindow, limits_.perSecond, Text(limits_.perSecond, "second"));
  check(k.minute, kMinuteWindow, limits_.perMinute, Text(limits_.perMinute, "minute"));
  if (availability)
    check(k.availability, kAvailabilityWindow, limits_.availabilityPer30Min,
          Text(limits_.availabilityPer30Min, "30 minutes") + " of POST /v1/domain/available");
  if (wait > 0) {
    v.allowed = false;
    v.retryAfterSeconds = (wait + 999) / 1000;
    return v;
  }
  k.second.times.push_back(now);
  k.minute.times.push_back(now);
  if (availability) k.availability.times.push_back(now);
  return v;
}

void RateLimiter::Sweep(model::Millis now) {
  for (auto it = keys_.begin(); it != keys_.end();) {
    if (it->second.last <= now - kAvailabilityWindow) it = keys_.erase(it);
    else ++it;
  }
  if (keys_.size() < max_keys_) return;
  std::vector<model::Millis> lasts;
  lasts.reserve(keys_.size());
  for (const auto& [key, k] : keys_) lasts.push_back(k.last);
  auto mid = lasts.begin() + static_cast<std::ptrdiff_t>(lasts.size() / 2);
  std::nth_element(lasts.begin(), mid, lasts.end());
  const model::Millis cut = *mid;
  for (auto it = keys_.begin(); it != keys_.end();) {
    if (it->second.last < cut) it = keys_.erase(it);
    else ++it;
  }
  // All at one instant (a burst of new keys within the same millisecond): drop from the front.
  while (keys_.size() >= max_keys_) keys_.erase(keys_.begin());
}

void RateLimiter::Clear() {
  std::lock_guard lock(mu_);
  keys_.clear();
}

size_t RateLimiter::TrackedKeys() const {
  std::lock_guard lock(mu_);
  return keys_.size();
}

}  // namespace emsim::app
