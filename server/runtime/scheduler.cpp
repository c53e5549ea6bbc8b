#include "runtime/scheduler.hpp"

#include <algorithm>
#include <chrono>

#include "runtime/log.hpp"

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

Millis Scheduler::EarliestWaiting() const {
  return store_.Read([](const model::State& s) {
    // Running jobs are few (at most the tasks in flight) and sit at the front: skip them.
    for (const auto& [key, job] : s.jobs)
      if (!job.running) return key.first;
    return model::kNoJobDue;
  });
}

std::int64_t Scheduler::StartEarliest(Millis limit) {
  std::vector<Task> tasks;
  const std::int64_t started = store_.Write([&](model::State& s) -> std::int64_t {
    Millis due = model::kNoJobDue;
    std::vector<model::JobKey> batch;
    for (const auto& [key, job] : s.jobs) {
      if (job.running) continue;
      if (due == model::kNoJobDue) {
        if (key.first > limit) break;
        due = key.first;
      } else if (key.first != due) {
        break;
      }
      batch.push_back(key);
    }
    const std::uint64_t generation = store_.generation();
    std::int64_t n = 0;
    // In scheduling order. A state job may schedule or remove others: each key is looked up again.
    for (const auto& key : batch) {
      auto it = s.jobs.find(key);
      if (it == s.jobs.end() || it->second.running) continue;
      model::Job& job = it->second;
      ++n;
      if (auto t = task_runners_.find(job.kind); t != task_runners_.end()) {
        job.running = true;
        tasks.push_back({job, generation});
        continue;
      }
      model::Job taken = std::move(job);
      s.EraseJob(it);
      auto r = state_runners_.find(taken.kind);
      if (r == state_runners_.end()) {
        // A job nobody can run (from a hand-edited state dump) is dropped, loudly.
        Log("warn", "dropping a job of unknown kind", {{"job", taken.seq}, {"kind", taken.kind}});
        continue;
      }
      try {
        r->second(s, taken, taken.dueMs);
      } catch (const std::exception& e) {
        Log("error", "job failed", {{"job", taken.seq}, {"kind", taken.kind}, {"what", e.what()}});
      }
    }
    return n;
  });
  if (!tasks.empty()) {
    std::lock_guard lock(task_mu_);
    if (workers_.empty() && !workers_stop_)
      for (size_t i = 0; i < kWorkers; ++i) workers_.emplace_back([this] { Work(); });
    for (auto& t : tasks) {
      unfinished_.insert(t.job.dueMs);
      queue_.push_back(std::move(t));
    }
    task_cv_.notify_all();
  }
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
  unfinished_.erase(unfinished_.find(task.job.dueMs));
  task_cv_.notify_all();
}

void Scheduler::AwaitTasksBefore(Millis before) {
  std::unique_lock lock(task_mu_);
  task_cv_.wait(lock, [&] { return unfinished_.empty() || *unfinished_.begin() >= before; });
}

void Scheduler::ForgetQueued() {
  std::lock_guard lock(task_mu_);
  // The loop may already have started jobs of the new state (the store woke it when it swapped the
  // state in): those are kept, or their jobs would stay marked running and never run.
  const std::uint64_t current = store_.generation();
  std::erase_if(queue_, [&](const Task& t) {
    if (t.generation == current) return false;
    unfinished_.erase(unfinished_.find(t.job.dueMs));
    return true;
  });
  task_cv_.notify_all();
}

// ---- advancing the clock -------------------------------------------------------------------------

Scheduler::AdvanceResult Scheduler::AdvanceTo(Millis target) {
  std::lock_guard advance(advance_mu_);
  std::lock_guard start(start_mu_);
  std::int64_t ran = 0;
  for (;;) {
    const Millis due = EarliestWaiting();
    if (due <= target) {
      // Jobs due earlier finish first: what they schedule (a retry a minute later) may fall
      // before this step, and then it runs first.
      AwaitTasksBefore(due);
      if (EarliestWaiting() != due) continue;
      clock_.Set(due);  // never backwards: a real clock may already be past it
      ran += StartEarliest(due);
      continue;
    }
    // Nothing waits until `target`: let what runs finish, then look again (it may have
    // scheduled more within the window).
    AwaitTasksBefore(target == INT64_MAX ? target : target + 1);
    if (EarliestWaiting() <= target) continue;
    break;
  }
  clock_.Set(target);
  return {clock_.Now(), ran};
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
      while (StartEarliest(clock_.Now()) > 0) {
      }
    }
    const Millis next = EarliestWaiting();
    std::unique_lock lock(loop_mu_);
    if (stop_) return;
    if (poked_) {
      poked_ = false;
      continue;
    }
    wake_below_ = next;
    const Millis now = clock_.Now();
    if (next <= now) continue;  // fell due while looking (a real clock moves)
    auto woken = [&] { return poked_ || stop_; };
    if (next == model::kNoJobDue || clock_.mode() == ClockMode::kManual) {
      // A manual clock moves only by Set (which pokes): nothing becomes due by waiting.
      loop_cv_.wait(lock, woken);
    } else {
      // Real clock: until the job is due. At most a second, so a wall clock stepped by the host
      // (NTP) is followed within a second.
      const Millis wait = std::min<Millis>(next - now, 1000);
      loop_cv_.wait_for(lock, std::chrono::milliseconds(wait), woken);
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
  loop_ = std::thread([this] { Loop(); });
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
    for (const auto& t : queue_) unfinished_.erase(unfinished_.find(t.job.dueMs));
    queue_.clear();
    workers.swap(workers_);
  }
  task_cv_.notify_all();
  for (auto& t : workers) t.join();
}

}  // namespace emsim::runtime
