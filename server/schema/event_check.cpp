#include "schema/event_check.hpp"

#include "schema/registry.hpp"

namespace emsim::schema {

std::vector<std::string> EventSchemaProblems(const schema::Registry& schemas, json event) {
  if (!event.is_object() || !event.contains("type") || !event["type"].is_string())
    return {"not an event: an object with a string `type` is expected"};
  const std::string name = "events/" + event["type"].get<std::string>();
  if (!schemas.Has(name)) return {"no schema " + name + ".json for this event type"};
  event.erase("accountId");
  std::vector<std::string> out;
  for (const auto& issue : schemas.Check(name, event))
    out.push_back("schema " + name + ": " + (issue.Pointer().empty() ? "(event)" : issue.Pointer()) + " " +
                  issue.message);
  return out;
}

std::vector<std::string> EventListProblems(const schema::Registry& schemas, const json& events) {
  const json* list = &events;
  if (events.is_object() && events.contains("events")) list = &events["events"];
  if (!list->is_array()) return {"GET /_sim/events did not answer a list of events"};
  std::vector<std::string> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    const std::string who = "events[" + std::to_string(i) + "] " + (e.is_object() ? e.value("id", "?") : "?") + " " +
                            (e.is_object() && e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : "?");
    for (auto& p : EventSchemaProblems(schemas, e)) out.push_back(who + ": " + p);
  }
  return out;
}

}  // namespace emsim::schema
