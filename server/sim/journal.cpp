#include "sim/journal.hpp"

#include <cctype>

namespace emsim::sim {

void Journal::Put(Item item) {
  if (capacity_ == 0) return;
  {
    std::lock_guard lock(mu_);
    if (entries_.size() < capacity_) {
      entries_.push_back(std::move(item));
      return;
    }
    std::swap(entries_[next_], item);  // `item` now holds the oldest entry
    next_ = (next_ + 1) % capacity_;
  }
}  // the oldest entry is freed here, outside the lock

void Journal::Add(JournalEntry entry) { Put(std::move(entry)); }

void Journal::Add(json entry) { Put(std::move(entry)); }

json ToJson(const JournalEntry& e) {
  json out = {{"id", e.id},
              {"time", model::FormatIso(e.time)},
              {"method", e.method},
              {"path", e.path},
              {"query", e.query.is_null() ? json::object() : e.query},
              {"operationId", e.operationId.empty() ? json(nullptr) : json(e.operationId)},
              {"status", e.status}};
  if (e.hasBody) {
    json body = json::parse(e.body, nullptr, false);  // it parsed when the request came
    out["body"] = body.is_discarded() ? json() : Redact(body);
  }
  else if (!e.rawBody.empty()) out["rawBody"] = RedactRawBody(e.rawBody);  // a password in an unparsable body
  json response = e.response.empty() ? json() : json::parse(e.response, nullptr, false);
  if (response.is_discarded()) response = json();
  if (e.validationErrorsInResponse && response.is_object()) out["validationErrors"] = response.value("errors", json());
  else if (!e.validationErrors.is_null()) out["validationErrors"] = e.validationErrors;
  if (!response.is_null()) out["response"] = std::move(response);
  if (!e.faultId.empty()) out["faultId"] = e.faultId;
  if (!e.faultError.empty()) out["faultError"] = e.faultError;
  return out;
}

json Journal::List(const json& filters, size_t limit) const {
  std::lock_guard lock(mu_);
  json out = json::array();
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Item& item = entries_[(next_ + i) % entries_.size()];  // oldest first
    json e = std::holds_alternative<json>(item) ? std::get<json>(item) : ToJson(std::get<JournalEntry>(item));
    bool keep = true;
    for (const auto& [key, want] : filters.items()) {
      if (!e.contains(key) || e[key] != want) keep = false;
    }
    if (keep) out.push_back(std::move(e));
  }
  if (limit && out.size() > limit) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(limit));
  return out;
}

void Journal::Clear() {
  std::vector<Item> old;
  {
    std::lock_guard lock(mu_);
    old.swap(entries_);
    next_ = 0;
  }
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

std::string RedactRawBody(const std::string& raw) {
  std::string lower(raw);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("password") != std::string::npos) return "[redacted: unparsed body mentions a password]";
  return raw;
}

}  // namespace emsim::sim
