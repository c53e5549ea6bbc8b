#pragma once
// The simulator's one clock (DESIGN.md "Time is a dial"). It only says what time it is; what
// falls due is the scheduler's business (runtime/scheduler.hpp), the same in both modes:
//  - real: the wall clock plus an offset; advancing or setting `now` adds to the offset;
//  - manual: frozen; moves only when set or advanced.
// Neither mode ever moves backwards, except by a reset of a manual clock (back to its start, so a
// test sees the same times on every run) and by loading a state dump (its clock exactly).
#include <atomic>
#include <functional>
#include <mutex>
#include <string>

#include "core/time.hpp"

namespace emsim::runtime {

enum class ClockMode { kReal, kManual };

std::string ToString(ClockMode m);

// A reading that never decreases: each Observe answers the highest value observed so far. Lock
// free, so every request can read the wall through it.
class HighWater {
 public:
  model::Millis Observe(model::Millis reading);

 private:
  std::atomic<model::Millis> highest_{0};
};

class Clock {
 public:
  Clock(ClockMode mode, model::Millis start);

  model::Millis Now() const;
  ClockMode mode() const;

  // Sets `now`; refuses (answers false) to go backwards.
  bool Set(model::Millis now);
  void SetMode(ClockMode mode);
  // POST /_sim/reset: back to the start-up mode. A manual clock goes back to its start time; a
  // real clock keeps its "now" (it never goes backwards: a reset does not undo advances).
  void Reset();
  // Exact restore for a state load: mode and now, even backwards.
  void Restore(ClockMode mode, model::Millis now);

  // The system clock, never backwards: the highest reading seen by this process. The system clock
  // itself can step back (an NTP correction, a VM resumed on another host); emsim's real clock
  // must not, or a tenant reset "to its start" or a retry's due time could land in the past.
  static model::Millis WallNow();

  // Told after every move the clock makes (Set, SetMode, Reset, Restore), outside the clock's lock:
  // the scheduler's way of hearing that jobs may have fallen due. Set once, before the clock is
  // shared between threads (the scheduler's constructor), and cleared by its destructor.
  void SetMovedObserver(std::function<void()> observer) { moved_ = std::move(observer); }

  // The latest time the clock accepts, the end of year 9999 (the timestamp form's last year):
  // keeps every `now + delay` of the model far from overflow.
  static constexpr model::Millis kLatest = 253402300799999;

 private:
  // Now() is read by every request and must not serialize them (measured under 32 connections): readers take no lock.
  // Writers hold mu_ and store the value a mode reads before publishing the mode (release), so
  // a reader that sees a mode (acquire) also sees its value.
  std::mutex mu_;
  std::atomic<ClockMode> mode_;
  ClockMode start_mode_;
  model::Millis start_;
  std::atomic<model::Millis> manual_now_{0};   // manual mode
  std::atomic<model::Millis> real_offset_{0};  // real mode: now = wall + offset
  std::function<void()> moved_;
  void Moved() const {
    if (moved_) moved_();
  }
};

}  // namespace emsim::runtime
