#include "model/faults.hpp"

#include <algorithm>

namespace emsim::model {

namespace {

bool PathMatches(const std::string& pattern, const std::string& path) {
  if (!pattern.empty() && pattern.back() == '*') return path.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == path;
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
  f.times = spec.value("times", std::int64_t{1});

  if (f.hasBody && !f.patch.empty()) return Error::Validation("patch", "send body (a whole answer) or patch (edits to the real answer), not both");
  if (f.target == kFaultTargetRequest) {
    // The control plane stays reachable, so a test can always list and clear its faults (the
    // pipeline never consults faults for /_sim paths, whatever the pattern).
    if (f.path.rfind("/_sim", 0) == 0)
      return Error::Validation("path", "faults apply to the public API; /_sim paths cannot be faulted");
    if (f.corruptSignature)
      return Error::Validation("corruptSignature", "corruptSignature applies to target delivery (webhook POSTs) only");
    if (!f.status && !f.hasBody && f.patch.empty() && f.delayMs == 0)
      return Error::Validation("body", "a request fault needs at least one of status, body, patch or delayMs");
  } else {
    // A delivery fault changes what emsim sends; what the receiver answers is the receiver's
    // business (a sink under /_sim/sinks can fail on purpose).
    if (f.status || f.hasBody || f.delayMs != 0)
      return Error::Validation(f.status ? "status" : f.hasBody ? "body" : "delayMs",
                               "a delivery fault takes corruptSignature and/or patch only");
    if (f.method != "*" && f.method != "POST")
      return Error::Validation("method", "webhook deliveries are POST requests; use POST or *");
    if (!f.corruptSignature && f.patch.empty())
      return Error::Validation("body", "a delivery fault needs corruptSignature or patch");
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
