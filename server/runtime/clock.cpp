#include "runtime/clock.hpp"

#include <chrono>

#include "core/json_limits.hpp"

namespace emsim::runtime {

// The clock's last time is the model's (loaded states, fixtures): one bound, checked here so the
// two cannot drift apart.
static_assert(Clock::kLatest == model::kMaxTimeMs);

std::string ToString(ClockMode m) { return m == ClockMode::kReal ? "real" : "manual"; }

model::Millis HighWater::Observe(model::Millis reading) {
  model::Millis seen = highest_.load(std::memory_order_relaxed);
  // Only a reading above the mark writes: one compare-exchange per millisecond, not per call.
  while (reading > seen && !highest_.compare_exchange_weak(seen, reading, std::memory_order_relaxed)) {
  }
  return reading > seen ? reading : seen;
}

model::Millis Clock::WallNow() {
  static HighWater wall;
  return wall.Observe(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

Clock::Clock(ClockMode mode, model::Millis start) : mode_(mode), start_mode_(mode), start_(start) {
  Restore(mode, start);
}

model::Millis Clock::Now() const {
  return mode_.load(std::memory_order_acquire) == ClockMode::kManual ? manual_now_.load(std::memory_order_relaxed)
                                                                      : WallNow() + real_offset_.load(std::memory_order_relaxed);
}

ClockMode Clock::mode() const { return mode_.load(std::memory_order_acquire); }

bool Clock::Set(model::Millis now) {
  {
    std::lock_guard lock(mu_);
    if (now < Now() || now > kLatest) return false;
    if (mode_ == ClockMode::kManual) manual_now_ = now;
    else real_offset_ = now - WallNow();
  }
  Moved();
  return true;
}

void Clock::SetMode(ClockMode mode) {
  {
    std::lock_guard lock(mu_);
    if (mode == mode_) return;
    if (mode == ClockMode::kManual) {
      manual_now_ = WallNow() + real_offset_;  // freeze where real time is
    } else {
      real_offset_ = manual_now_ - WallNow();  // continue from the frozen time
    }
    mode_.store(mode, std::memory_order_release);
  }
  Moved();  // the scheduler's loop waits differently in each mode
}

void Clock::Reset() {
  if (start_mode_ == ClockMode::kManual) {
    Restore(ClockMode::kManual, start_);
    return;
  }
  {
    std::lock_guard lock(mu_);
    if (mode_ == ClockMode::kManual) real_offset_ = manual_now_ - WallNow();  // continue from the frozen time
    mode_.store(ClockMode::kReal, std::memory_order_release);
  }
  Moved();
}

void Clock::Restore(ClockMode mode, model::Millis now) {
  {
    std::lock_guard lock(mu_);
    manual_now_ = now;
    real_offset_ = now - WallNow();
    mode_.store(mode, std::memory_order_release);
  }
  Moved();
}

}  // namespace emsim::runtime
