#pragma once
// The transport's worker pool (cpp-httplib's TaskQueue): one thread per connection, grown on
// demand.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace emsim::http {

// A worker pool that grows on demand, up to one thread per connection the cap allows. cpp-httplib
// serves a connection on one thread for its whole life; a fixed pool smaller than the number of
// open connections leaves the next client waiting for one of them to go away (measured on the
// old 160-thread pool: 150 idle keep-alive connections pushed a fresh client's latency to 4.5 s).
// A thread waiting on an idle connection sleeps in poll() and costs only its stack.
class ElasticPool final : public httplib::TaskQueue {
 public:
  ElasticPool(size_t start_threads, size_t max_threads);
  ~ElasticPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void Work();

  const size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace emsim::http
