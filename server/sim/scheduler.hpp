#pragma once
// Runs the delayed work kept in State::jobs (DESIGN.md promise 3). Jobs are data; a runner is
// registered per job kind at start-up. Manual mode: AdvanceTo() fires every job that falls due,
// in (due time, scheduling order), moving the clock to each job's time first, so jobs scheduled
// by jobs also run when they fall inside the window. Real mode: a background thread does the same
// as time passes.
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "model/store.hpp"
#include "sim/clock.hpp"

namespace emsim::sim {

class Scheduler {
 public:
  using Runner = std::function<void(const model::Job&)>;

  Scheduler(model::Store& store, Clock& clock) : store_(store), clock_(clock) {}
  ~Scheduler() { Stop(); }

  // `parallel`: jobs of this kind that fall due at the same instant may run concurrently
  // (webhook deliveries: many receivers served at once, still all finished before later jobs).
  void Register(const std::string& kind, Runner runner, bool parallel = false);
  bool HasRunner(const std::string& kind) const;

  struct AdvanceResult {
    model::Millis now;
    std::int64_t jobsRun;
  };
  // Runs every job due at or before `target`, then sets the clock to `target`.
  AdvanceResult AdvanceTo(model::Millis target);

  // Real mode: starts/stops the thread that runs jobs as they fall due.
  void Start();
  void Stop();
  // Wakes the real-mode thread (after new jobs were scheduled), so it need not wait for its tick.
  void Poke();

 private:
  std::int64_t RunDueLocked(model::Millis limit);
  bool AnyDue(model::Millis limit) const;
  void RunBatch(std::vector<model::Job>& batch);
  void RunOne(const model::Job& job);

  model::Store& store_;
  Clock& clock_;
  std::map<std::string, std::pair<Runner, bool>> runners_;
  std::mutex run_mu_;  // one advance at a time: jobs run in order
  std::mutex thread_mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace emsim::sim
