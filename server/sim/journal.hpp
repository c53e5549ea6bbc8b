#pragma once
// The request journal (GET /_sim/requests): a bounded, thread-safe ring of the latest requests.
#include <deque>
#include <mutex>

#include "model/json.hpp"

namespace emsim::sim {

class Journal {
 public:
  explicit Journal(size_t capacity) : capacity_(capacity) {}

  void Add(json entry);
  // Newest last. Filters: method, path (exact), operationId, status; limit keeps the newest N.
  json List(const json& filters, size_t limit) const;
  void Clear();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  size_t capacity_;
  std::deque<json> entries_;
};

// Replaces the value of every "password" key, at any depth, so secrets never reach the journal,
// the logs or a dump (Part 4.5 third-party credentials).
json Redact(const json& value);

}  // namespace emsim::sim
