#include "runtime/journal.hpp"

#include <algorithm>
#include <cctype>

#include "core/json_limits.hpp"
#include "model/state_secrets.hpp"

namespace emsim::runtime {

Journal::Journal(size_t capacity)
    : capacity_(capacity),
      stripes_(std::min(capacity, kMaxStripes)),
      per_stripe_(capacity == 0 ? 0 : (capacity + stripes_.size() - 1) / stripes_.size()) {}

void Journal::Put(Item&& item) {
  if (capacity_ == 0) return;
  const std::uint64_t ticket = tickets_.fetch_add(1, std::memory_order_relaxed);
  Stripe& stripe = stripes_[ticket % stripes_.size()];
  std::lock_guard lock(stripe.mu);
  if (stripe.ring.size() < per_stripe_) {
    stripe.ring.emplace_back(ticket, std::move(item));
    return;
  }
  auto& slot = stripe.ring[stripe.next];
  slot.first = ticket;
  std::swap(slot.second, item);  // `item`, the caller's, now holds the oldest entry: freed by the
                                 // caller after this returns, outside the lock
  stripe.next = (stripe.next + 1) % per_stripe_;
}

void Journal::Add(JournalEntry&& entry) {
  Item item(std::move(entry));
  Put(std::move(item));
}  // the entry it replaced is freed here

void Journal::Add(json entry) {
  // Records made before the pipeline ran (the transport's errors) quote the request line as it
  // came: made UTF-8 here, so listing the journal can always write them.
  for (const char* key : {"method", "path"}) {
    if (auto it = entry.find(key); it != entry.end() && it->is_string()) {
      const std::string& text = it->get_ref<const std::string&>();
      if (!model::IsValidUtf8(text) || text.size() > 4096) *it = model::SafeText(text, 4096);
    }
  }
  Item item(std::move(entry));
  Put(std::move(item));
}

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

json Journal::List(const json& filters, size_t limit, bool secrets) const {
  // Every stripe's entries, put back in ticket order (the order requests were journaled), keeping
  // the newest capacity_: the stripes together can hold a few more.
  std::vector<std::pair<std::uint64_t, json>> all;
  for (const Stripe& stripe : stripes_) {
    std::lock_guard lock(stripe.mu);
    for (const auto& [ticket, item] : stripe.ring) {
      all.emplace_back(ticket, std::holds_alternative<json>(item) ? std::get<json>(item)
                                                                  : ToJson(std::get<JournalEntry>(item)));
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t first = all.size() > capacity_ ? all.size() - capacity_ : 0;
  json out = json::array();
  for (size_t i = first; i < all.size(); ++i) {
    json& e = all[i].second;
    bool keep = true;
    for (const auto& [key, want] : filters.items()) {
      if (!e.contains(key) || e[key] != want) keep = false;
    }
    if (!keep) continue;
    if (!secrets)
      for (const char* part : {"body", "response"})
        if (auto it = e.find(part); it != e.end()) model::MaskSecretValues(*it);
    out.push_back(std::move(e));
  }
  if (limit && out.size() > limit) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(limit));
  return out;
}

void Journal::Clear() {
  for (Stripe& stripe : stripes_) {
    std::vector<std::pair<std::uint64_t, Item>> old;
    {
      std::lock_guard lock(stripe.mu);
      old.swap(stripe.ring);
      stripe.next = 0;
    }
  }
}

size_t Journal::size() const {
  size_t n = 0;
  for (const Stripe& stripe : stripes_) {
    std::lock_guard lock(stripe.mu);
    n += stripe.ring.size();
  }
  return std::min(n, capacity_);
}

// Recursive on the value's depth, which the limited parser bounded when the body came
// (model::kRequestJsonLimits / kStateJsonLimits: at most 96 levels).
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

}  // namespace emsim::runtime
