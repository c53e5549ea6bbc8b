#include "runtime/scheduler.hpp"

#include <algorithm>
#include <chrono>

#include "model/tenants.hpp"
#include "runtime/log.hpp"
#include "core/thread_name.hpp"

namespace emsim::runtime {

using model::Millis;

Scheduler::Scheduler(runtime::Store& store, Clock& clock) : store_(store), clock_(clock) {
  store_.SetJobsObserver([this](Millis due) { OnScheduled(due); });
  clock_.SetMovedObserver([this] { OnScheduled(INT64_MIN); });
}

Scheduler::~Scheduler() {
  Stop();
  store_.SetJobsObserver({});
  clock_.SetMovedObserver({});
}

void Scheduler::Register(const std::string& kind, StateRunner runner) { state_runners_[kind] = std::move(runner); }

void Scheduler::RegisterTask(const std::string& kind, TaskRunner runner) { task_runners_[kind] = std::move(runner); }

bool Scheduler::HasRunner(const std::string& kind) const {
  return state_runners_.count(kind) != 0 || task_runners_.count(kind) != 0;
}

// ---- starting jobs ---------------------------------------------------------------------------------

Millis Scheduler::EarliestWaiting(const std::string& clock) const {
  return store_.Read([&](const model::State& s) {
    auto w = s.waitingJobs.find(clock);
    return w == s.waitingJobs.end() || w->second.empty() ? model::kNoJobDue : w->second.begin()->first;
  });
}

Millis Scheduler::NextOwnClockWall() const {
  return store_.Read([](const model::State& s) {
    return s.ownClockQueue.empty() ? model::kNoJobDue : s.ownClockQueue.begin()->first;
  });
}

std::optional<Millis> Scheduler::NowOf(const std::string& clock) const {
  if (clock.empty()) return clock_.Now();
  return store_.Read([&](const model::State& s) -> std::optional<Millis> {
    const model::Tenant* t = model::OwnClockTenant(s, clock);
    if (!t) return std::nullopt;
    return model::OwnClockNow(*t, Clock::WallNow());
  });
}

void Scheduler::SetClock(const std::string& clock, Millis now) {
  if (clock.empty()) {
    clock_.Set(now);  // never backwards: a real clock may already be past it
    return;
  }
  store_.Write([&](model::State& s) { model::SetOwnClock(s, clock, now, Clock::WallNow()); });
}

std::int64_t Scheduler::StartBatch(model::State& s, const std::string& clock, Millis limit, std::vector<Task>& tasks,
                                   size_t most) {
  auto w = s.waitingJobs.find(clock);
  if (w == s.waitingJobs.end() || w->second.empty() || w->second.begin()->first > limit) return 0;
  const Millis due = w->second.begin()->first;
  std::vector<model::JobKey> batch;
  for (auto it = w->second.begin(); it != w->second.end() && it->first == due && batch.size() < most; ++it)
    batch.push_back(*it);
  const std::uint64_t generation = store_.generation();
  std::int64_t n = 0;
  // In scheduling order. A state job may schedule or remove others: each key is looked up again.
  for (const auto& key : batch) {
    auto it = s.jobs.find(key);
    if (it == s.jobs.end() || it->second.running) continue;
    model::Job& job = it->second;
    ++n;
    if (auto t = task_runners_.find(job.kind); t != task_runners_.end()) {
      s.MarkJobRunning(job);
      tasks.push_back({job, generation});
      continue;
    }
    model::Job taken = std::move(job);
    job.clock = taken.clock;  // EraseJob finds the clock's index by it
    s.EraseJob(it);
    auto r = state_runners_.find(taken.kind);
    if (r == state_runners_.end()) {
      // A job nobody can run (from a hand-edited state dump) is dropped, loudly.
      Log("warn", "dropping a job of unknown kind", {{"job", taken.seq}, {"kind", taken.kind}});
      continue;
    }
    // What the job schedules is due on its clock too.
    s.jobClock = taken.clock;
    try {
      r->second(s, taken, taken.dueMs);
    } catch (const std::exception& e) {
      Log("error", "job failed", {{"job", taken.seq}, {"kind", taken.kind}, {"what", e.what()}});
    }
    s.jobClock.clear();
  }
  return n;
}

void Scheduler::QueueTasks(std::vector<Task>& tasks) {
  if (tasks.empty()) return;
  std::lock_guard lock(task_mu_);
  if (workers_.empty() && !workers_stop_)
    for (size_t i = 0; i < kWorkers; ++i) workers_.emplace_back([this] { Work(); });
  for (auto& t : tasks) {
    unfinished_[t.job.clock].insert(t.job.dueMs);
    queue_.push_back(std::move(t));
  }
  task_cv_.notify_all();
}

std::int64_t Scheduler::StartEarliest(const std::string& clock, Millis limit) {
  std::vector<Task> tasks;
  const std::int64_t started =
      store_.Write([&](model::State& s) -> std::int64_t { return StartBatch(s, clock, limit, tasks); });
  QueueTasks(tasks);
  return started;
}

std::int64_t Scheduler::StartDueOwnClocks() {
  // Looked at under the shared lock first: a write transaction per loop turn would cost every
  // emsim without tenants (and with --data-dir, a commit).
  if (NextOwnClockWall() > Clock::WallNow()) return 0;
  std::vector<Task> tasks;
  const std::int64_t started = store_.Write([&](model::State& s) -> std::int64_t {
    const Millis wall = Clock::WallNow();
    std::int64_t n = 0;
    // Each step starts at least one job of the front clock (it is due: its key <= wall), which
    // moves the clock back in the queue to its next job. The caller calls again while some start.
    while (n < static_cast<std::int64_t>(kMaxJobsPerWrite) && !s.ownClockQueue.empty() &&
           s.ownClockQueue.begin()->first <= wall) {
      const std::string clock = s.ownClockQueue.begin()->second;
      const model::Tenant* t = model::OwnClockTenant(s, clock);
      // What this write may still start: a write starts kMaxJobsPerWrite jobs at most, across clocks.
      const auto left = kMaxJobsPerWrite - static_cast<size_t>(n);
      const std::int64_t k = t ? StartBatch(s, clock, model::OwnClockNow(*t, wall), tasks, left) : 0;
      if (k == 0) {  // cannot happen while the queue is right; never spin on it
        s.ownClockQueue.erase(s.ownClockQueue.begin());
        s.ownClockQueued.erase(clock);
        Log("error", "own clock queued with nothing due", {{"clock", clock}});
        continue;
      }
      n += k;
    }
    return n;
  });
  QueueTasks(tasks);
  return started;
}

// ---- tasks ------------------------------------------------------------------------------------------

void Scheduler::Work() {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(task_mu_);
      task_cv_.wait(lock, [&] { return workers_stop_ || !queue_.empty(); });
      if (workers_stop_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task_runners_.at(task.job.kind)(task.job, task.job.dueMs, task.generation);
    } catch (const std::exception& e) {
      Log("error", "job failed", {{"job", task.job.seq}, {"kind", task.job.kind}, {"what", e.what()}});
    }
    Finished(task);
  }
}

void Scheduler::Finished(const Task& task) {
  // A task that ended without removing its job (it threw) must not leave it running for ever:
  // it is dropped, loudly, so it is neither lost silently nor run twice.
  store_.Write([&](model::State& s) {
    if (store_.generation() != task.generation) return;
    auto it = s.jobs.find({task.job.dueMs, task.job.seq});
    if (it != s.jobs.end() && it->second.running) {
      Log("error", "job did not record its outcome; dropped", {{"job", task.job.seq}, {"kind", task.job.kind}});
      s.EraseJob(it);
    }
  });
  std::lock_guard lock(task_mu_);
  Unfinished(task.job);
  task_cv_.notify_all();
}

void Scheduler::Unfinished(const model::Job& job) {
  auto c = unfinished_.find(job.clock);
  if (c == unfinished_.end()) return;
  if (auto it = c->second.find(job.dueMs); it != c->second.end()) c->second.erase(it);
  if (c->second.empty()) unfinished_.erase(c);
}

void Scheduler::AwaitTasksBefore(const std::string& clock, Millis before) {
  std::unique_lock lock(task_mu_);
  task_cv_.wait(lock, [&] {
    auto c = unfinished_.find(clock);
    return c == unfinished_.end() || c->second.empty() || *c->second.begin() >= before;
  });
}

void Scheduler::ForgetQueued() {
  std::lock_guard lock(task_mu_);
  // The loop may already have started jobs of the new state (the store woke it when it swapped the
  // state in): those are kept, or their jobs would stay marked running and never run.
  const std::uint64_t current = store_.generation();
  std::erase_if(queue_, [&](const Task& t) {
    if (t.generation == current) return false;
    Unfinished(t.job);
    return true;
  });
  task_cv_.notify_all();
}

// ---- advancing the clock -------------------------------------------------------------------------

Scheduler::AdvanceResult Scheduler::AdvanceClock(const std::string& clock, Millis target) {
  std::lock_guard advance(advance_mu_);
  std::lock_guard start(start_mu_);
  std::int64_t ran = 0;
  for (;;) {
    const Millis due = EarliestWaiting(clock);
    if (due <= target) {
      // Jobs due earlier finish first: what they schedule (a retry a minute later) may fall
      // before this step, and then it runs first.
      AwaitTasksBefore(clock, due);
      if (EarliestWaiting(clock) != due) continue;
      SetClock(clock, due);
      ran += StartEarliest(clock, due);
      continue;
    }
    // Nothing waits until `target`: let what runs finish, then look again (it may have
    // scheduled more within the window).
    AwaitTasksBefore(clock, target == INT64_MAX ? target : target + 1);
    if (EarliestWaiting(clock) <= target) continue;
    break;
  }
  SetClock(clock, target);
  return {NowOf(clock).value_or(target), ran};
}

// ---- the loop ----------------------------------------------------------------------------------------

void Scheduler::OnScheduled(Millis due) {
  if (due >= wake_below_.load()) return;  // the loop already wakes by then
  {
    std::lock_guard lock(loop_mu_);
    poked_ = true;
  }
  loop_cv_.notify_one();
}

void Scheduler::Loop() {
  for (;;) {
    wake_below_ = INT64_MAX;  // while looking, any new job wakes the loop again
    {
      std::lock_guard start(start_mu_);
      while (StartEarliest("", clock_.Now()) > 0) {
      }
      while (StartDueOwnClocks() > 0) {
      }
    }
    const Millis next = EarliestWaiting("");
    const Millis own_next = NextOwnClockWall();  // wall-clock terms
    std::unique_lock lock(loop_mu_);
    if (stop_) return;
    if (poked_) {
      poked_ = false;
      continue;
    }
    wake_below_ = next;
    const Millis now = clock_.Now(), wall = Clock::WallNow();
    if (next <= now || own_next <= wall) continue;  // fell due while looking (real clocks move)
    // A manual clock moves only by Set (which pokes): nothing of it becomes due by waiting.
    Millis wait = model::kNoJobDue;
    if (next != model::kNoJobDue && clock_.mode() == ClockMode::kReal) wait = next - now;
    if (own_next != model::kNoJobDue) wait = std::min(wait, own_next - wall);
    auto woken = [&] { return poked_ || stop_; };
    if (wait == model::kNoJobDue) {
      loop_cv_.wait(lock, woken);
    } else {
      // Real clock: until the job is due. At most a second, so a wall clock stepped by the host
      // (NTP) is followed within a second.
      loop_cv_.wait_for(lock, std::chrono::milliseconds(std::min<Millis>(wait, 1000)), woken);
    }
    poked_ = false;
    if (stop_) return;
  }
}

void Scheduler::Start() {
  std::lock_guard lock(loop_mu_);
  if (loop_.joinable()) return;
  stop_ = false;
  stopping_ = false;
  loop_ = core::NamedThread("scheduler", [this] { Loop(); });
}

void Scheduler::Stop() {
  stopping_ = true;
  {
    std::lock_guard lock(loop_mu_);
    stop_ = true;
  }
  loop_cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(task_mu_);
    workers_stop_ = true;
    for (const auto& t : queue_) Unfinished(t.job);
    queue_.clear();
    workers.swap(workers_);
  }
  task_cv_.notify_all();
  for (auto& t : workers) t.join();
}

}  // namespace emsim::runtime
