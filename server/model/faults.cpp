#include "model/faults.hpp"

#include <algorithm>

#include "core/hash.hpp"

namespace emsim::model {

namespace {

bool PathMatches(const std::string& pattern, const std::string& path) {
  if (!pattern.empty() && pattern.back() == '*') return path.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == path;
}

// A number in [0, 1) drawn from (seed, fault id, n): the same run with the same --seed makes the
// same choices (splitmix64's finalizer spreads FNV-1a's bits).
double Draw(std::uint64_t seed, const std::string& fault_id, std::int64_t n) {
  std::uint64_t x = core::Fnv1a64(fault_id, core::Fnv1a64(std::to_string(seed) + ":" + std::to_string(n) + ":"));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) / static_cast<double>(1ULL << 53);
}

// Counts the match and answers whether it is affected: always at probability 1, else by a draw.
bool Roll(const State& s, Fault& f) {
  const std::int64_t n = f.seen++;
  return f.probability >= 1.0 || Draw(s.ids.seed(), f.id, n) < f.probability;
}

std::optional<Millis> DurationField(const json& spec, const char* name, Error& error) {
  if (!spec.contains(name)) return std::nullopt;
  const auto text = spec[name].get<std::string>();
  auto ms = ParseDuration(text);
  if (!ms) error = Error::Validation(name, DurationProblem(text));
  else if (*ms > kMaxFaultHoldMs) error = Error::Validation(name, std::string(name) + " must be at most 30d");
  return ms;
}

bool Matches(const Fault& f, const std::string& target, const std::string& method, const std::string& path,
             const std::string& api_key) {
  return f.Active() && f.target == target && (f.method == "*" || f.method == method) && PathMatches(f.path, path) &&
         (!f.apiKey || *f.apiKey == api_key);
}

}  // namespace

Result<Fault> AddFault(State& s, const json& spec, Millis now) {
  Fault f;
  f.target = spec.value("target", std::string(kFaultTargetRequest));
  f.method = spec.value("method", std::string("*"));
  f.path = spec.at("path").get<std::string>();
  if (spec.contains("apiKey")) f.apiKey = spec["apiKey"].get<std::string>();
  if (spec.contains("status")) f.status = spec["status"].get<int>();
  if (spec.contains("body")) {
    f.hasBody = true;
    f.body = spec["body"];
  }
  if (spec.contains("patch")) f.patch = spec["patch"];
  f.delayMs = spec.value("delayMs", Millis{0});
  f.corruptSignature = spec.value("corruptSignature", false);
  f.duplicate = spec.value("duplicate", false);
  f.dropAfterResponse = spec.value("dropAfterResponse", false);
  f.reorder = spec.value("reorder", false);
  f.probability = spec.value("probability", 1.0);
  f.times = spec.value("times", std::int64_t{1});
  Error bad_duration;
  const auto stale = DurationField(spec, "staleTimestamp", bad_duration);
  const auto delay = DurationField(spec, "delay", bad_duration);
  const auto hold = DurationField(spec, "holdFor", bad_duration);
  if (!bad_duration.errors.empty()) return bad_duration;
  f.staleBy = stale.value_or(0);
  f.delayBy = delay.value_or(0);
  if (hold) f.holdFor = *hold;
  if (!(f.probability > 0.0 && f.probability <= 1.0))
    return Error::Validation("probability", "probability must be more than 0 and at most 1");

  if (f.hasBody && !f.patch.empty()) return Error::Validation("patch", "send body (a whole answer) or patch (edits to the real answer), not both");
  if (f.target == kFaultTargetRequest) {
    // The control plane stays reachable, so a test can always list and clear its faults (the
    // pipeline never consults faults for /_sim paths, whatever the pattern).
    if (f.path.rfind("/_sim", 0) == 0)
      return Error::Validation("path", "faults apply to the public API; /_sim paths cannot be faulted");
    for (const char* name : {"corruptSignature", "duplicate", "dropAfterResponse", "staleTimestamp", "delay", "reorder",
                             "holdFor"})
      if (spec.contains(name))
        return Error::Validation(name, std::string(name) + " applies to target delivery (webhook POSTs) only");
    if (!f.status && !f.hasBody && f.patch.empty() && f.delayMs == 0)
      return Error::Validation("body", "a request fault needs at least one of status, body, patch or delayMs");
  } else {
    // A delivery fault changes what emsim sends; what the receiver answers is the receiver's
    // business (a sink under /_sim/sinks can fail on purpose).
    if (f.status || f.hasBody || f.delayMs != 0)
      return Error::Validation(f.status ? "status" : f.hasBody ? "body" : "delayMs",
                               "a delivery fault changes what emsim sends (corruptSignature, patch, duplicate, "
                               "dropAfterResponse, staleTimestamp, delay, reorder); the receiver's answer is a sink's "
                               "behaviour");
    if (f.method != "*" && f.method != "POST")
      return Error::Validation("method", "webhook deliveries are POST requests; use POST or *");
    if (f.Holds() && (f.corruptSignature || !f.patch.empty() || f.duplicate || f.dropAfterResponse || f.staleBy))
      return Error::Validation(f.delayBy ? "delay" : "reorder",
                               "delay and reorder hold an attempt back; give what to do when it is sent in a fault of "
                               "its own");
    if (f.delayBy && f.reorder) return Error::Validation("reorder", "give delay or reorder, not both");
    if (spec.contains("holdFor") && !f.reorder) return Error::Validation("holdFor", "holdFor applies to reorder only");
    if (spec.contains("delay") && f.delayBy == 0) return Error::Validation("delay", "delay must be more than 0s");
    if (spec.contains("staleTimestamp") && f.staleBy == 0)
      return Error::Validation("staleTimestamp", "staleTimestamp must be more than 0s");
    if (!f.corruptSignature && f.patch.empty() && !f.duplicate && !f.dropAfterResponse && !f.staleBy && !f.Holds())
      return Error::Validation("body", "a delivery fault needs one of corruptSignature, patch, duplicate, "
                                       "dropAfterResponse, staleTimestamp, delay or reorder");
  }
  f.id = "flt_" + std::to_string(s.nextFaultSeq++);
  f.createdAt = now;
  s.faults.push_back(f);
  return f;
}

std::optional<Fault> TakeFault(State& s, const std::string& target, const std::string& method,
                               const std::string& path, const std::string& api_key) {
  for (auto& f : s.faults) {
    if (!Matches(f, target, method, path, api_key)) continue;
    if (!Roll(s, f)) continue;  // this match passes unaffected; a later fault may still apply
    ++f.hits;
    return f;
  }
  return std::nullopt;
}

std::optional<Fault> TakeDeliveryFault(State& s, const std::string& path, bool holding, const std::string& api_key) {
  for (auto& f : s.faults) {
    if (f.Holds() != holding || !Matches(f, kFaultTargetDelivery, "POST", path, api_key)) continue;
    if (!Roll(s, f)) continue;
    ++f.hits;
    return f;
  }
  return std::nullopt;
}

bool AnyFaultMatches(const State& s, const std::string& target, const std::string& method, const std::string& path,
                     const std::string& api_key) {
  for (const auto& f : s.faults)
    if (Matches(f, target, method, path, api_key)) return true;
  return false;
}

bool DeleteFault(State& s, const std::string& id) {
  for (auto it = s.faults.begin(); it != s.faults.end(); ++it) {
    if (it->id != id) continue;
    s.faults.erase(it);
    return true;
  }
  return false;
}

void ClearFaults(State& s) { s.faults.clear(); }

json FaultView(const Fault& f) {
  json j = {{"id", f.id},         {"target", f.target}, {"method", f.method},
            {"path", f.path},     {"times", f.times},   {"hits", f.hits},
            {"active", f.Active()}, {"createdAt", FormatIso(f.createdAt)}};
  j["remaining"] = f.times == 0 ? json(nullptr) : json(std::max<std::int64_t>(0, f.times - f.hits));
  if (f.apiKey) j["apiKey"] = *f.apiKey;
  if (f.status) j["status"] = *f.status;
  if (f.hasBody) j["body"] = f.body;
  if (!f.patch.empty()) j["patch"] = f.patch;
  if (f.delayMs) j["delayMs"] = f.delayMs;
  if (f.corruptSignature) j["corruptSignature"] = true;
  if (f.duplicate) j["duplicate"] = true;
  if (f.dropAfterResponse) j["dropAfterResponse"] = true;
  if (f.staleBy) j["staleTimestamp"] = FormatDuration(f.staleBy);
  if (f.delayBy) j["delay"] = FormatDuration(f.delayBy);
  if (f.reorder) {
    j["reorder"] = true;
    j["holdFor"] = FormatDuration(f.holdFor);
  }
  if (f.probability < 1.0) j["probability"] = f.probability;
  j["seen"] = f.seen;
  return j;
}

// nlohmann's patch and the copies of `body` and `f.body` recurse on their depth: every value here
// came through the limited parser (core/json_limits.hpp: 64 levels for a request, 96 for a
// loaded state), so the recursion is bounded.
Result<json> ApplyFaultPatch(const json& body, const json& patch) {
  try {
    return body.patch(patch);
  } catch (const json::exception& e) {
    return Error::Validation("patch", std::string("the patch does not apply to this answer: ") + e.what());
  }
}

}  // namespace emsim::model
