#include "runtime/search_warmer.hpp"

#include <chrono>

#include "core/thread_name.hpp"
#include "model/search.hpp"
#include "runtime/log.hpp"

namespace emsim::runtime {

SearchWarmer::SearchWarmer(const Store& store, size_t min_records) : store_(store), min_records_(min_records) {
  if (min_records_ == 0) return;
  thread_ = core::NamedThread("index-warmup", [this] { Run(); });
}

SearchWarmer::~SearchWarmer() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SearchWarmer::Kick() {
  if (min_records_ == 0) return;
  {
    std::lock_guard lock(mu_);
    asked_ = true;
  }
  cv_.notify_all();
}

SearchWarmer::Status SearchWarmer::status() const {
  std::lock_guard lock(mu_);
  const bool ready = !asked_ && !building_;
  return {ready, ready ? 0 : left_.load(std::memory_order_relaxed)};
}

void SearchWarmer::AwaitReady() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return stop_ || (!asked_ && !building_); });
}

void SearchWarmer::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || asked_; });
    if (stop_) return;
    building_ = true;
    left_.store(0, std::memory_order_relaxed);  // not known before the first step
    size_t left = 1, steps = 0;
    const auto began = std::chrono::steady_clock::now();
    // A kick during the build (the world replaced) starts it over: the step after it reads the
    // new world, whose caches are empty.
    while (left > 0 && !stop_) {
      asked_ = false;
      lock.unlock();
      try {
        left = store_.ReadStep([this](const model::State& s) { return model::WarmSearchIndexes(s, min_records_, kStep); });
      } catch (const std::exception& e) {
        // Out of memory, most likely: what is built stays, searches build the rest themselves.
        Log("warn", "search index warm-up stopped", {{"error", e.what()}});
        left = 0;
      }
      left_.store(left, std::memory_order_relaxed);
      ++steps;
      lock.lock();
      if (asked_) left = 1;
    }
    // Said only for a world big enough to take steps (one step is a small world's whole build).
    if (steps > 1 && !stop_)
      Log("info", "search indexes built",
          {{"steps", steps},
           {"ms", std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began).count()}});
    building_ = false;
    cv_.notify_all();
  }
}

}  // namespace emsim::runtime
