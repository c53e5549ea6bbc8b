#pragma once
// The simulator's one clock (DESIGN.md "Time is a dial"). Real mode follows the wall clock
// (plus an offset, so switching modes or setting `now` never moves time backwards); manual mode
// is frozen and moves only when told.
#include <atomic>
#include <mutex>
#include <string>

#include "model/time.hpp"

namespace emsim::sim {

enum class ClockMode { kReal, kManual };

std::string ToString(ClockMode m);

class Clock {
 public:
  Clock(ClockMode mode, model::Millis start);

  model::Millis Now() const;
  ClockMode mode() const;

  // Sets `now`; refuses (answers false) to go backwards.
  bool Set(model::Millis now);
  void SetMode(ClockMode mode);
  // Back to the start-up mode and time (POST /_sim/reset).
  void Reset();
  // Exact restore for a state load: mode and now, even backwards.
  void Restore(ClockMode mode, model::Millis now);

  static model::Millis WallNow();

 private:
  // Now() is read by every request and must not serialize them (issue 7): readers take no lock.
  // Writers hold mu_ and store the value a mode reads before publishing the mode (release), so
  // a reader that sees a mode (acquire) also sees its value.
  std::mutex mu_;
  std::atomic<ClockMode> mode_;
  ClockMode start_mode_;
  model::Millis start_;
  std::atomic<model::Millis> manual_now_{0};   // manual mode
  std::atomic<model::Millis> real_offset_{0};  // real mode: now = wall + offset
};

}  // namespace emsim::sim
