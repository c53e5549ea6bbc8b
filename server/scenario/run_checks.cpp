#include "scenario/run_checks.hpp"

#include <map>

#include "core/json_limits.hpp"
#include "schema/event_check.hpp"
#include "schema/registry.hpp"

namespace emsim::scenario {

json ListOf(const json& body) {
  if (body.is_array()) return body;
  if (body.is_object())
    for (const char* key : {"events", "deliveries", "notifications", "items", "data"})
      if (body.contains(key) && body[key].is_array()) return body[key];
  return json::array();
}

void CheckAttemptTimes(const json& offsets, const json& deliveries, const json& events,
                       std::vector<std::string>& problems) {
  std::map<std::string, model::Millis> created;
  for (const auto& e : ListOf(events))
    if (e.contains("id") && e.contains("created") && e["created"].is_number())
      created[e["id"].get<std::string>()] = e["created"].get<model::Millis>() * model::kSecond;
  std::vector<json> made;
  for (const auto& d : deliveries)
    if (d.contains("sentAt") && d["sentAt"].is_string()) made.push_back(d);
  if (made.size() != offsets.size())
    problems.push_back("attempts_after_event: expected " + std::to_string(offsets.size()) + " attempt(s) made, got " +
                       std::to_string(made.size()));
  for (size_t i = 0; i < made.size() && i < offsets.size(); ++i) {
    const json& d = made[i];
    const std::string event_id = d.value("eventId", "");
    const auto sent = model::ParseIso(d["sentAt"].get<std::string>());
    auto at = created.find(event_id);
    if (!sent || at == created.end()) {
      problems.push_back("attempts_after_event: attempt " + std::to_string(i + 1) + " of event '" + event_id +
                         "': no sentAt or no such event in /_sim/events");
      continue;
    }
    const model::Millis actual = *sent - at->second;
    const model::Millis want = offsets[i].get<model::Millis>();
    if (actual / model::kSecond != want / model::kSecond)
      problems.push_back("attempts_after_event: attempt " + std::to_string(i + 1) + " (" + event_id + " attempt " +
                         d.value("attempt", json()).dump() + ") was sent " + FormatDuration(actual) +
                         " after the event, expected " + FormatDuration(want));
  }
}

void CheckSinkSignatures(const json& sink, const std::string& sink_var, bool want, const schema::Registry* schemas,
                         std::vector<std::string>& problems) {
  const json requests = sink.value("requests", json::array());
  if (requests.empty()) problems.push_back("signature_verified: sink " + sink_var + " recorded no request");
  for (const auto& r : requests) {
    const json valid = r.value("signatureValid", json());
    const std::string n = r.value("number", json()).dump();
    if (valid != json(want))
      problems.push_back("signature_verified: request " + n + " to sink " + sink_var + ": signatureValid is " +
                         valid.dump() + " (" + r.value("signatureCheck", json("")).dump() + "), expected " +
                         (want ? "true" : "false"));
    // What a sink recorded is whatever was POSTed to it: read with the request limits.
    auto parsed = model::ParseJsonLimited(r.value("body", std::string()), model::kRequestJsonLimits);
    if (!parsed) {
      problems.push_back("request " + n + " to sink " + sink_var + ": the body is not JSON");
      continue;
    }
    if (!schemas) continue;
    for (auto& p : schema::EventSchemaProblems(*schemas, *parsed))
      problems.push_back("sink " + sink_var + " request " + n + ": " + p);
  }
}

}  // namespace emsim::scenario
