#include "http/pool.hpp"
#include "core/thread_name.hpp"

#include <algorithm>

namespace emsim::http {

ElasticPool::ElasticPool(size_t start_threads, size_t max_threads) : max_(std::max<size_t>(1, max_threads)) {
  std::lock_guard lock(mu_);
  while (threads_.size() < std::min(start_threads, max_))
    threads_.push_back(core::NamedThread("http-conn", [this] { Work(); }));
}

void ElasticPool::enqueue(std::function<void()> fn) {
  std::lock_guard lock(mu_);
  jobs_.push_back(std::move(fn));
  // Every job is a connection that may stay open for long: it gets a thread of its own when
  // no idle one is left, rather than waiting behind others.
  if (jobs_.size() > idle_ && threads_.size() < max_) {
    threads_.push_back(core::NamedThread("http-conn", [this] { Work(); }));
  } else {
    cv_.notify_one();
  }
}

void ElasticPool::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (auto& t : threads) t.join();
}

void ElasticPool::Work() {
  std::unique_lock lock(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (jobs_.empty()) return;  // stopping, and nothing left to serve
    auto fn = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace emsim::http
