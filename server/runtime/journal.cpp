#include "runtime/journal.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "core/json_limits.hpp"
#include "model/state_secrets.hpp"

namespace emsim::runtime {

Journal::Journal(size_t capacity)
    : capacity_(capacity),
      stripes_(std::min(capacity, kMaxStripes)),
      per_stripe_(capacity == 0 ? 0 : (capacity + stripes_.size() - 1) / stripes_.size()) {}

std::uint64_t Journal::Put(Item&& item) {
  if (capacity_ == 0) return 0;
  const std::uint64_t ticket = tickets_.fetch_add(1, std::memory_order_relaxed);
  Stripe& stripe = stripes_[ticket % stripes_.size()];
  std::lock_guard lock(stripe.mu);
  if (stripe.ring.size() < per_stripe_) {
    stripe.ring.emplace_back(ticket, std::move(item));
    return ticket;
  }
  auto& slot = stripe.ring[stripe.next];
  slot.first = ticket;
  std::swap(slot.second, item);  // `item`, the caller's, now holds the oldest entry: freed by the
                                 // caller after this returns, outside the lock
  stripe.next = (stripe.next + 1) % per_stripe_;
  return ticket;
}

std::uint64_t Journal::Add(JournalEntry&& entry) {
  Item item(std::move(entry));
  return Put(std::move(item));
}  // the entry it replaced is freed here

json ToJson(const JournalEntry& e) {
  json out = {{"id", e.id},
              {"time", model::FormatIso(e.time)},
              {"method", e.method},
              {"path", e.path},
              {"query", e.query.is_null() ? json::object() : e.query},
              {"operationId", e.operationId.empty() ? json(nullptr) : json(e.operationId)},
              {"accountId", e.accountId.empty() ? json(nullptr) : json(e.accountId)},
              {"status", e.status}};
  json headers = json::object();
  // Header bytes are whatever the client sent; the journal is listed as JSON, so made UTF-8.
  for (const auto& [name, value] : e.headers) headers[model::SafeText(name, 256)] = model::SafeText(value, 4096);
  out["headers"] = std::move(headers);
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

namespace {

constexpr const char* kSecretHeaders[] = {"x-auth-service", "authorization", "cookie"};

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string Quoted(const json& v) { return v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump(); }

// Whether `doc` contains `want`: an object wants each of its keys (with a value containing the
// wanted one), anything else wants an equal value. An explicit stack, not recursion: the pattern
// is client input (its depth is bounded by the body parser, but nothing here relies on that).
bool JsonContains(const json& doc, const json& want) {
  std::vector<std::pair<const json*, const json*>> todo = {{&doc, &want}};
  while (!todo.empty()) {
    auto [d, w] = todo.back();
    todo.pop_back();
    if (!w->is_object()) {
      if (*d != *w) return false;
      continue;
    }
    if (!d->is_object()) return false;
    for (const auto& [key, value] : w->items()) {
      auto it = d->find(key);
      if (it == d->end()) return false;
      todo.emplace_back(&*it, &value);
    }
  }
  return true;
}

}  // namespace

std::vector<std::string> Mismatches(const json& record, const RequestPattern& p) {
  std::vector<std::string> why;
  auto text = [&](const char* key) { return record.contains(key) ? record[key] : json(); };
  auto exact = [&](const char* key, const std::optional<std::string>& want) {
    if (want && text(key) != json(*want)) why.push_back(std::string(key) + ": " + Quoted(text(key)) + ", not '" + *want + "'");
  };
  exact("method", p.method);
  exact("path", p.path);
  if (p.pathPrefix) {
    const json path = text("path");
    if (!path.is_string() || path.get<std::string>().rfind(*p.pathPrefix, 0) != 0)
      why.push_back("path: " + Quoted(path) + " does not start with '" + *p.pathPrefix + "'");
  }
  exact("operationId", p.operationId);
  exact("accountId", p.accountId);
  if (p.status && text("status") != json(*p.status))
    why.push_back("status: " + Quoted(text("status")) + ", not " + std::to_string(*p.status));
  if (p.since) {
    const json time = text("time");
    const auto at = time.is_string() ? model::ParseIso(time.get<std::string>()) : std::nullopt;
    if (!at || *at < *p.since) why.push_back("time: " + Quoted(time) + ", before " + model::FormatIso(*p.since));
  }
  const json headers = record.value("headers", json::object());
  for (const auto& [name, want] : p.headers) {
    const std::string lower = Lower(name);
    if (!headers.contains(lower)) why.push_back("header " + lower + ": absent, not '" + want + "'");
    else if (headers[lower] != json(want))
      why.push_back("header " + lower + ": " + Quoted(headers[lower]) + ", not '" + want + "'");
  }
  if (!p.body.is_null()) {
    const json body = record.value("body", json());
    if (body.is_null()) why.push_back("body: none, or not JSON");
    else if (!JsonContains(body, p.body)) why.push_back("body: does not contain " + p.body.dump());
  }
  return why;
}

std::vector<json> Journal::Records() const {
  // Every stripe's entries, put back in ticket order (the order requests were journaled), keeping
  // the newest capacity_: the stripes together can hold a few more.
  std::vector<std::pair<std::uint64_t, json>> all;
  for (const Stripe& stripe : stripes_) {
    std::lock_guard lock(stripe.mu);
    for (const auto& [ticket, item] : stripe.ring) {
      if (item.pending) continue;  // its answer is not out yet
      all.emplace_back(ticket, ToJson(item));
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t first = all.size() > capacity_ ? all.size() - capacity_ : 0;
  std::vector<json> out;
  out.reserve(all.size() - first);
  for (size_t i = first; i < all.size(); ++i) out.push_back(std::move(all[i].second));
  return out;
}

json Journal::List(const RequestPattern& pattern, size_t limit, bool secrets) const {
  json out = json::array();
  for (json& e : Records()) {
    if (!Mismatches(e, pattern).empty()) continue;
    if (!secrets) {
      for (const char* part : {"body", "response"})
        if (auto it = e.find(part); it != e.end()) model::MaskSecretValues(*it);
      if (auto h = e.find("headers"); h != e.end() && h->is_object())
        for (const char* name : kSecretHeaders)
          if (h->contains(name)) (*h)[name] = model::kMaskedSecret;
    }
    out.push_back(std::move(e));
  }
  if (limit && out.size() > limit) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(limit));
  return out;
}

json Journal::Count(const RequestPattern& pattern) const {
  const std::vector<json> records = Records();
  size_t count = 0;
  // (mismatches, -position): the closest misses, newest first among equals.
  std::vector<std::tuple<size_t, std::ptrdiff_t, std::vector<std::string>>> misses;
  for (size_t i = 0; i < records.size(); ++i) {
    std::vector<std::string> why = Mismatches(records[i], pattern);
    if (why.empty()) ++count;
    else if (count == 0) misses.emplace_back(why.size(), -static_cast<std::ptrdiff_t>(i), std::move(why));
  }
  json out = {{"count", count}, {"nearMisses", json::array()}};
  if (count > 0) return out;
  const size_t keep = std::min<size_t>(3, misses.size());
  std::partial_sort(misses.begin(), misses.begin() + static_cast<std::ptrdiff_t>(keep), misses.end(),
                    [](const auto& a, const auto& b) { return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b)); });
  for (size_t i = 0; i < keep; ++i) {
    const json& r = records[static_cast<size_t>(-std::get<1>(misses[i]))];
    json request = json::object();
    for (const char* key : {"id", "time", "method", "path", "operationId", "accountId", "status"})
      if (r.contains(key)) request[key] = r[key];
    out["nearMisses"].push_back({{"request", std::move(request)}, {"mismatches", std::get<2>(misses[i])}});
  }
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

template <class F>
bool Journal::WithEntry(std::uint64_t ticket, F&& f) {
  if (capacity_ == 0) return false;
  Stripe& stripe = stripes_[ticket % stripes_.size()];  // where Put put it: a few dozen slots to look at
  std::lock_guard lock(stripe.mu);
  for (auto& slot : stripe.ring) {
    if (slot.first != ticket) continue;
    f(slot.second);
    return true;
  }
  return false;
}

void Journal::Settle(std::uint64_t ticket) {
  WithEntry(ticket, [](JournalEntry& e) { e.pending = false; });
}

bool Journal::Replace(std::uint64_t ticket, int status, std::string response) {
  return WithEntry(ticket, [&](JournalEntry& e) {
    e.status = status;
    e.response = std::move(response);
    e.validationErrors = json();
    e.validationErrorsInResponse = false;
    e.pending = false;
  });
}

size_t Journal::EraseAccount(const std::string& account_id) {
  size_t erased = 0;
  for (Stripe& stripe : stripes_) {
    std::vector<std::pair<std::uint64_t, Item>> gone;  // freed outside the lock
    std::lock_guard lock(stripe.mu);
    auto of_account = [&](const Item& item) { return item.accountId == account_id; };
    std::vector<std::pair<std::uint64_t, Item>> kept;
    for (auto& slot : stripe.ring) (of_account(slot.second) ? gone : kept).push_back(std::move(slot));
    if (gone.empty()) continue;
    // Oldest first, so the ring fills from its start again (`next` counts only once it is full).
    std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    stripe.ring.swap(kept);
    stripe.next = 0;
    erased += gone.size();
  }
  return erased;
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
