#include "sim/clock.hpp"

#include <chrono>

namespace emsim::sim {

std::string ToString(ClockMode m) { return m == ClockMode::kReal ? "real" : "manual"; }

model::Millis Clock::WallNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Clock::Clock(ClockMode mode, model::Millis start) : mode_(mode), start_mode_(mode), start_(start) {
  Restore(mode, start);
}

model::Millis Clock::Now() const {
  std::lock_guard lock(mu_);
  return mode_ == ClockMode::kManual ? manual_now_ : WallNow() + real_offset_;
}

ClockMode Clock::mode() const {
  std::lock_guard lock(mu_);
  return mode_;
}

bool Clock::Set(model::Millis now) {
  std::lock_guard lock(mu_);
  const model::Millis current = mode_ == ClockMode::kManual ? manual_now_ : WallNow() + real_offset_;
  if (now < current) return false;
  if (mode_ == ClockMode::kManual) manual_now_ = now;
  else real_offset_ = now - WallNow();
  return true;
}

void Clock::SetMode(ClockMode mode) {
  std::lock_guard lock(mu_);
  if (mode == mode_) return;
  if (mode == ClockMode::kManual) {
    manual_now_ = WallNow() + real_offset_;  // freeze where real time is
  } else {
    real_offset_ = manual_now_ - WallNow();  // continue from the frozen time
  }
  mode_ = mode;
}

void Clock::Reset() { Restore(start_mode_, start_); }

void Clock::Restore(ClockMode mode, model::Millis now) {
  std::lock_guard lock(mu_);
  mode_ = mode;
  manual_now_ = now;
  real_offset_ = now - WallNow();
}

}  // namespace emsim::sim
