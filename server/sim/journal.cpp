#include "sim/journal.hpp"

namespace emsim::sim {

void Journal::Add(json entry) {
  std::lock_guard lock(mu_);
  if (capacity_ == 0) return;
  if (entries_.size() >= capacity_) entries_.pop_front();
  entries_.push_back(std::move(entry));
}

json Journal::List(const json& filters, size_t limit) const {
  std::lock_guard lock(mu_);
  json out = json::array();
  for (const auto& e : entries_) {
    bool keep = true;
    for (const auto& [key, want] : filters.items()) {
      if (!e.contains(key) || e[key] != want) keep = false;
    }
    if (keep) out.push_back(e);
  }
  if (limit && out.size() > limit) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(limit));
  return out;
}

void Journal::Clear() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

size_t Journal::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

json Redact(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items()) out[k] = (k == "password" && !v.is_null()) ? json("[redacted]") : Redact(v);
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(Redact(v));
    return out;
  }
  return value;
}

}  // namespace emsim::sim
