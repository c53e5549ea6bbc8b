#include "sim/scheduler.hpp"

#include <chrono>
#include <iostream>
#include <vector>

namespace emsim::sim {

void Scheduler::Register(const std::string& kind, Runner runner, bool parallel) {
  runners_[kind] = {std::move(runner), parallel};
}

bool Scheduler::HasRunner(const std::string& kind) const { return runners_.count(kind) != 0; }

void Scheduler::RunOne(const model::Job& job) {
  auto it = runners_.find(job.kind);
  if (it == runners_.end()) {
    // A job nobody can run (e.g. from a hand-edited state dump) is dropped, loudly.
    std::cerr << "emsim: dropping job " << job.seq << " of unknown kind " << job.kind << "\n";
    return;
  }
  try {
    it->second.first(job);
  } catch (const std::exception& e) {
    std::cerr << "emsim: job " << job.seq << " (" << job.kind << ") failed: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "emsim: job " << job.seq << " (" << job.kind << ") failed\n";
  }
}

void Scheduler::RunBatch(std::vector<model::Job>& batch) {
  // In scheduling order; consecutive parallel-kind jobs run together on threads.
  size_t i = 0;
  while (i < batch.size()) {
    auto it = runners_.find(batch[i].kind);
    const bool parallel = it != runners_.end() && it->second.second;
    if (!parallel) {
      RunOne(batch[i++]);
      continue;
    }
    size_t j = i;
    while (j < batch.size()) {
      auto jt = runners_.find(batch[j].kind);
      if (jt == runners_.end() || !jt->second.second) break;
      ++j;
    }
    constexpr size_t kWorkers = 32;
    std::atomic<size_t> next{i};
    std::vector<std::thread> workers;
    for (size_t w = 0; w < std::min(kWorkers, j - i); ++w) {
      workers.emplace_back([&] {
        for (size_t k; (k = next.fetch_add(1)) < j;) RunOne(batch[k]);
      });
    }
    for (auto& t : workers) t.join();
    i = j;
  }
}

std::int64_t Scheduler::RunDueLocked(model::Millis limit) {
  std::int64_t ran = 0;
  for (;;) {
    // Take every job due at the earliest due time <= limit.
    std::vector<model::Job> batch;
    model::Millis due = 0;
    store_.Write([&](model::State& s) {
      if (s.jobs.empty() || s.jobs.begin()->first.first > limit) return;
      due = s.jobs.begin()->first.first;
      while (!s.jobs.empty() && s.jobs.begin()->first.first == due) {
        batch.push_back(std::move(s.jobs.begin()->second));
        s.jobs.erase(s.jobs.begin());
      }
    });
    if (batch.empty()) return ran;
    if (clock_.mode() == ClockMode::kManual) clock_.Set(due);  // never backwards
    RunBatch(batch);
    ran += static_cast<std::int64_t>(batch.size());
  }
}

Scheduler::AdvanceResult Scheduler::AdvanceTo(model::Millis target) {
  std::lock_guard lock(run_mu_);
  const std::int64_t ran = RunDueLocked(target);
  clock_.Set(target);
  // Jobs that became due exactly at target while running are already included (limit is
  // inclusive); a job scheduled "now" by the last one also runs:
  const std::int64_t more = RunDueLocked(clock_.Now());
  return {clock_.Now(), ran + more};
}

void Scheduler::Start() {
  std::lock_guard lock(thread_mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    std::unique_lock lock(thread_mu_);
    while (!stop_) {
      lock.unlock();
      // Look first under the shared lock: a tick or a Poke with nothing due must not take the
      // store's write lock (every POST pokes; issue 7).
      if (clock_.mode() == ClockMode::kReal && AnyDue(clock_.Now())) {
        std::lock_guard run(run_mu_);
        RunDueLocked(clock_.Now());
      }
      lock.lock();
      // A tick is short enough for "on time" in real mode; Poke() wakes it at once.
      cv_.wait_for(lock, std::chrono::milliseconds(20));
    }
  });
}

void Scheduler::Stop() {
  {
    std::lock_guard lock(thread_mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Scheduler::AnyDue(model::Millis limit) const {
  return store_.Read([&](const model::State& s) { return !s.jobs.empty() && s.jobs.begin()->first.first <= limit; });
}

// Only the real-clock thread waits for pokes; under a manual clock jobs run inside an advance,
// so waking the thread would only cost a context switch per request.
void Scheduler::Poke() {
  if (clock_.mode() == ClockMode::kReal) cv_.notify_one();
}

}  // namespace emsim::sim
