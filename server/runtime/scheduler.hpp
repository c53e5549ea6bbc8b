#pragma once
// Runs the delayed work kept in State::jobs (DESIGN.md "Time is a dial"). The one rule of time:
//
//   The clock says what time it is; the scheduler runs every job whose due time is <= now,
//   exactly once, as soon as it can, and each job runs *at its due time*.
//
// The clock modes differ only in how "now" moves (runtime/clock.hpp); nothing here depends on them.
// So, in both modes: a job due now (a first webhook attempt) starts at once; a job due later
// (a retry) waits; nothing runs early or twice; and what a job does carries its due time (the
// events it creates, the delivery log), however late it actually ran.
//
// One thread (the loop) starts due jobs. It sleeps until the earliest waiting job is due and is
// woken by what it watches, and by nothing else: the store, when a write schedules work due earlier
// or replaces the state (Store::SetJobsObserver), and the clock, when it moves or changes mode
// (Clock::SetMovedObserver). Jobs are data, and of two kinds:
//  - state jobs change only the state: they run under the write lock, in the write that removes
//    them (a domain transition, a placement step);
//  - task jobs do work outside the lock (a webhook attempt on the wire): they run on the
//    scheduler's workers, marked `running` in the state until the task's own write removes them,
//    so a slow receiver holds up neither requests nor other jobs, and a job in flight is never
//    started again.
//
// Clocks: the instance clock (runtime::Clock) and the clocks of tenants that have one of their own
// (model::Tenant, in the state). Every job is due on one of them (model::Job::clock) and the rule
// above holds for each: a job runs when *its* clock reaches its due time. Each clock's waiting
// jobs are kept in due order (State::waitingJobs) and the own clocks with a job waiting in order
// of when it falls due in wall-clock terms (State::ownClockQueue), so starting a job costs
// O(log n) whatever the number of clocks; a manual own clock is there only while a job of it is
// due (it moves only when advanced or set).
//
// AdvanceTo(target) walks the clock forward through every due time up to `target`: at each due
// time it first waits for the jobs due before it to finish (their retries may fall before the
// next step), moves the clock there and starts that instant's jobs (tasks in parallel); it
// answers when every job due by `target` has finished. Two advances never run at once, and the
// loop starts nothing while one runs.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <string>
#include <thread>
#include <vector>

#include "runtime/store.hpp"
#include "runtime/clock.hpp"

namespace emsim::runtime {

class Scheduler {
 public:
  // A state job's work, under the write lock; `at` is the job's due time.
  using StateRunner = std::function<void(model::State&, const model::Job&, model::Millis at)>;
  // A task job's work, on a worker with no lock held; `at` is the job's due time, `generation`
  // the store's generation when it was started (runtime::Store::generation). The task's last write
  // must remove the job (if the state is still of that generation).
  using TaskRunner = std::function<void(const model::Job&, model::Millis at, std::uint64_t generation)>;

  static constexpr size_t kWorkers = 32;  // tasks in flight at once (webhook attempts)
  // Jobs started in one write at most. Jobs due at one instant can be a million (a manual clock
  // held still while placement tests are bought); in one write they would hold the write lock, and
  // every event they emit past the log retention, until the last of them ran (6 GB and 20 s for
  // 626k purchases). In writes of this many, requests get in between and retention trims as it
  // goes; the order (dueMs, seq) is the same.
  static constexpr size_t kMaxJobsPerWrite = 256;

  Scheduler(runtime::Store& store, Clock& clock);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Registered at start-up, before Start().
  void Register(const std::string& kind, StateRunner runner);
  void RegisterTask(const std::string& kind, TaskRunner runner);
  bool HasRunner(const std::string& kind) const;

  struct AdvanceResult {
    model::Millis now;
    std::int64_t jobsRun;
  };
  // Moves the clock to `target` (never backwards: an earlier target only runs what is due now),
  // running every job due on the way at its due time; answers when all of them have finished.
  AdvanceResult AdvanceTo(model::Millis target) { return AdvanceClock("", target); }
  // The same for the clock `clock` ("" the instance clock, else a tenant with a clock of its own):
  // only that clock's jobs run; every other clock stays where it is.
  AdvanceResult AdvanceClock(const std::string& clock, model::Millis target);

  void Start();
  // Stops the loop and the workers; tasks in flight finish, queued ones are abandoned.
  void Stop();
  // True from the start of Stop(): work that waits in real time (a sink's delay) ends early.
  bool stopping() const { return stopping_.load(); }
  // After a reset or a state load: tasks queued for an earlier state (an older generation of the
  // store) are dropped; they would do nothing, their state is gone. Tasks already queued for the
  // new state stay.
  void ForgetQueued();
  // Holds back the starting of jobs while the caller replaces the state and the clock together
  // (reset, state load): no job may start on the new state at the old time, or the reverse.
  [[nodiscard]] std::unique_lock<std::mutex> HoldStarts() { return std::unique_lock(start_mu_); }

 private:
  struct Task {
    model::Job job;
    std::uint64_t generation;
  };
  // Starts the waiting jobs of `clock` due at its earliest due time, if that is <= limit (in
  // that clock's time), kMaxJobsPerWrite at most; answers how many started.
  std::int64_t StartEarliest(const std::string& clock, model::Millis limit);
  // The same inside a write, `most` at most: the tasks to queue are added to `tasks`.
  std::int64_t StartBatch(model::State& s, const std::string& clock, model::Millis limit, std::vector<Task>& tasks,
                          size_t most = kMaxJobsPerWrite);
  // Starts what is due on every own clock whose earliest job is due by the wall clock now.
  std::int64_t StartDueOwnClocks();
  void QueueTasks(std::vector<Task>& tasks);
  // The earliest due time of a job of `clock` that is not running (model::kNoJobDue: none).
  model::Millis EarliestWaiting(const std::string& clock) const;
  // When the first own clock falls due, in wall-clock terms (model::kNoJobDue: none).
  model::Millis NextOwnClockWall() const;
  // `clock`'s now ("" the instance clock); nullopt when the tenant is gone.
  std::optional<model::Millis> NowOf(const std::string& clock) const;
  void SetClock(const std::string& clock, model::Millis now);
  // Blocks until no task of `clock` whose due time is < `before` is running or queued.
  void AwaitTasksBefore(const std::string& clock, model::Millis before);
  void OnScheduled(model::Millis due);  // the store's observer; the clock's with INT64_MIN
  void Loop();
  void Work();
  void Finished(const Task& task);

  runtime::Store& store_;
  Clock& clock_;
  std::map<std::string, StateRunner> state_runners_;
  std::map<std::string, TaskRunner> task_runners_;

  std::mutex advance_mu_;  // one advance at a time
  std::mutex start_mu_;    // the loop and an advance never start jobs at the same time

  // The loop's sleep. `wake_below_`: a job scheduled due before this wakes the loop; the loop
  // lowers it to "everything" (INT64_MAX) while it looks at the jobs, so nothing scheduled
  // meanwhile is missed.
  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool poked_ = false;
  bool stop_ = false;
  std::atomic<model::Millis> wake_below_{INT64_MAX};
  std::atomic<bool> stopping_{false};
  std::thread loop_;

  // Tasks: queued or in flight, by due time, so an advance can wait for those due before a step.
  std::mutex task_mu_;
  std::condition_variable task_cv_;  // a task was queued (workers) or finished (advances)
  std::deque<Task> queue_;
  // Due times of queued and running tasks, per clock.
  std::unordered_map<std::string, std::multiset<model::Millis>> unfinished_;
  void Unfinished(const model::Job& job);  // one fewer (task_mu_ held)
  bool workers_stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace emsim::runtime
