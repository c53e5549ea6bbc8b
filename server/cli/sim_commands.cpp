#include "cli/sim_commands.hpp"

#include <httplib.h>

#include <algorithm>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "core/json.hpp"
#include "core/time.hpp"

namespace emsim::cli {

namespace {

constexpr const char* kSimCommandsUsage = R"(Usage:
  emsim clock show                      GET /_sim/clock
  emsim clock advance DURATION          POST /_sim/clock/advance (90s, 2h, 1d, 2h30m, PT2H30M)
  emsim clock set ISO [--mode manual|real]
                                        PUT /_sim/clock, e.g. 2026-01-01T09:00:00.000Z
  emsim events list [--type T] [--account ACC] [--limit N]
  emsim events show EVT_ID              the event and its delivery attempts
  emsim events resend EVT_ID [--endpoint ID]
                                        POST /_sim/events/EVT_ID/resend
  emsim deliveries list [--event ID] [--endpoint ID] [--status S] [--limit N]
                                        S: succeeded|failed|dropped|scheduled|in_flight
  emsim trigger EVENT_TYPE [--object ID] [--api-key KEY]
                                        POST /_sim/trigger: the real state change behind the
                                        event type on an object of the account of KEY (or
                                        EMSIM_API_KEY); prints what changed and the events' ids
Every command:
  --url URL            the emsim (or EMSIM_URL; default http://127.0.0.1:8080)
  --admin-token TOKEN  sent as 'Authorization: Bearer TOKEN' (or EMSIM_ADMIN_TOKEN)
  --json               print the emsim's JSON document instead of lines
Exit codes: 0 success; 1 the emsim answered an error (message on stderr) or the event asked
for does not exist; 2 usage error or the emsim is unreachable.
)";

// Exit code 2 with the message: bad arguments, or no emsim answering.
struct SimUsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Exit code 1: the emsim answered an error, or what was asked for is not there.
struct SimAnsweredError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SimInvocation {
  std::string url, token;
  bool json = false;
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // --flag value, among `allowed`
};

SimInvocation ParseSimArgs(const std::vector<std::string>& args, size_t from, const std::vector<std::string>& allowed,
                           const EnvLookup& env) {
  SimInvocation inv;
  inv.url = "http://127.0.0.1:8080";
  if (const char* u = env("EMSIM_URL"); u && *u) inv.url = u;
  if (const char* t = env("EMSIM_ADMIN_TOKEN"); t && *t) inv.token = t;
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      inv.json = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      inv.positional.push_back(a);
      continue;
    }
    const bool known = a == "--url" || a == "--admin-token" ||
                       std::find(allowed.begin(), allowed.end(), a) != allowed.end();
    if (!known) throw SimUsageError("unknown flag '" + a + "'");
    if (i + 1 >= args.size()) throw SimUsageError(a + " needs a value");
    const std::string v = args[++i];
    if (a == "--url") inv.url = v;
    else if (a == "--admin-token") inv.token = v;
    else inv.options[a] = v;
  }
  return inv;
}

std::string SimOption(const SimInvocation& inv, const std::string& flag) {
  auto it = inv.options.find(flag);
  return it == inv.options.end() ? std::string() : it->second;
}

// One request to the control plane: the parsed answer on 2xx; SimAnsweredError on an error
// answer (its Part 7 message), SimUsageError when nothing answers.
json SimCall(const SimInvocation& inv, const std::string& method, const std::string& path,
             const httplib::Params& query = {}, const std::optional<json>& body = std::nullopt) {
  httplib::Client client(inv.url);
  if (!client.is_valid()) throw SimUsageError("--url " + inv.url + " is not an http(s) URL");
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(120, 0);  // an advance answers once every job it ran has finished
  httplib::Headers headers;
  if (!inv.token.empty()) headers.emplace("Authorization", "Bearer " + inv.token);
  httplib::Result res = method == "GET"    ? client.Get(path, query, headers)
                        : method == "PUT"  ? client.Put(path, headers, body ? body->dump() : "", "application/json")
                                           : client.Post(path, headers, body ? body->dump() : "", "application/json");
  if (!res) throw SimUsageError(inv.url + " unreachable (" + httplib::to_string(res.error()) + " error)");
  json doc = json::parse(res->body, nullptr, false);
  if (res->status >= 400) {
    std::string message = doc.is_object() && doc.contains("message") && doc["message"].is_string()
                              ? doc["message"].get<std::string>()
                              : res->body;
    // Part 7's validation shape: the fields and what is wrong with each say more than the summary.
    if (doc.is_object() && doc.contains("errors") && doc["errors"].is_array() && !doc["errors"].empty()) {
      message = "validation failed";
      for (const auto& e : doc["errors"])
        if (e.is_object()) message += "; " + e.value("param", "") + ": " + e.value("msg", "");
    }
    throw SimAnsweredError(method + " " + path + " answered " + std::to_string(res->status) + ": " + message);
  }
  if (doc.is_discarded()) throw SimAnsweredError(method + " " + path + " answered non-JSON: " + res->body);
  return doc;
}

std::string SimText(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "-";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

void PrintClock(std::ostream& out, const json& c) {
  out << "now " << SimText(c, "now") << " (" << SimText(c, "mode") << " clock, epochMs " << SimText(c, "epochMs")
      << ")";
  if (c.contains("jobsRun")) out << ", " << SimText(c, "jobsRun") << " jobs run";
  out << "\n";
}

// An event as one line: its creation time (Part 6 `created`, Unix seconds), id, type, account.
void PrintEventLine(std::ostream& out, const json& e) {
  const std::string created =
      e.contains("created") && e["created"].is_number_integer() ? model::FormatIso(e["created"].get<model::Millis>() * 1000) : "-";
  out << created << "  " << SimText(e, "id") << "  " << std::left << std::setw(32) << SimText(e, "type")
      << std::right << "  " << SimText(e, "accountId") << "\n";
}

// A delivery attempt as one line: when it was due, its ids, the attempt number, what came of it.
void PrintDeliveryLine(std::ostream& out, const json& d) {
  out << SimText(d, "scheduledAt") << "  " << SimText(d, "id") << "  " << SimText(d, "eventId") << "  "
      << SimText(d, "endpointId") << "  attempt " << SimText(d, "attempt") << "  " << SimText(d, "status");
  if (d.contains("responseStatus") && !d["responseStatus"].is_null()) out << "  HTTP " << d["responseStatus"].dump();
  if (d.contains("error") && d["error"].is_string() && !d["error"].get<std::string>().empty())
    out << "  error: " << d["error"].get<std::string>();
  if (d.contains("durationMs") && d["durationMs"].is_number() && SimText(d, "status") != "scheduled")
    out << "  " << d["durationMs"].dump() << " ms";
  out << "\n";
}

int RunSim(const std::string& name, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const SimUsageError& e) {
    err << "emsim " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const SimAnsweredError& e) {
    err << "emsim " << name << ": " << e.what() << "\n";
    return 1;
  }
}

bool WantsHelp(const std::vector<std::string>& args, std::ostream& out) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      out << kSimCommandsUsage;
      return true;
    }
  return false;
}

void ExpectPositionals(const SimInvocation& inv, size_t n, const std::string& what) {
  if (inv.positional.size() != n) throw SimUsageError(what + " (see --help)");
}

}  // namespace

int ClockCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const EnvLookup& env) {
  if (WantsHelp(args, out)) return 0;
  return RunSim("clock", err, [&] {
    const std::string verb = args.empty() ? "" : args[0];
    json doc;
    if (verb == "show") {
      auto inv = ParseSimArgs(args, 1, {}, env);
      ExpectPositionals(inv, 0, "clock show takes no arguments");
      doc = SimCall(inv, "GET", "/_sim/clock");
      inv.json ? void(out << doc.dump(2) << "\n") : PrintClock(out, doc);
    } else if (verb == "advance") {
      auto inv = ParseSimArgs(args, 1, {}, env);
      ExpectPositionals(inv, 1, "clock advance needs one DURATION, e.g. 2h");
      doc = SimCall(inv, "POST", "/_sim/clock/advance", {}, json{{"duration", inv.positional[0]}});
      inv.json ? void(out << doc.dump(2) << "\n") : PrintClock(out, doc);
    } else if (verb == "set") {
      auto inv = ParseSimArgs(args, 1, {"--mode"}, env);
      ExpectPositionals(inv, 1, "clock set needs one ISO time, e.g. 2026-01-01T09:00:00.000Z");
      json body = {{"now", inv.positional[0]}};
      if (const std::string mode = SimOption(inv, "--mode"); !mode.empty()) body["mode"] = mode;
      doc = SimCall(inv, "PUT", "/_sim/clock", {}, body);
      inv.json ? void(out << doc.dump(2) << "\n") : PrintClock(out, doc.contains("clock") ? doc["clock"] : doc);
    } else {
      throw SimUsageError("clock needs show, advance DURATION or set ISO (see emsim clock --help)");
    }
    return 0;
  });
}

int EventsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const EnvLookup& env) {
  if (WantsHelp(args, out)) return 0;
  return RunSim("events", err, [&] {
    const std::string verb = args.empty() ? "" : args[0];
    if (verb == "list") {
      auto inv = ParseSimArgs(args, 1, {"--type", "--account", "--limit"}, env);
      ExpectPositionals(inv, 0, "events list takes no positional arguments");
      httplib::Params q;
      if (auto v = SimOption(inv, "--type"); !v.empty()) q.emplace("type", v);
      if (auto v = SimOption(inv, "--account"); !v.empty()) q.emplace("accountId", v);
      if (auto v = SimOption(inv, "--limit"); !v.empty()) q.emplace("limit", v);
      const json doc = SimCall(inv, "GET", "/_sim/events", q);
      if (inv.json) out << doc.dump(2) << "\n";
      else
        for (const auto& e : doc.value("events", json::array())) PrintEventLine(out, e);
      return 0;
    }
    if (verb == "show") {
      auto inv = ParseSimArgs(args, 1, {}, env);
      ExpectPositionals(inv, 1, "events show needs one EVT_ID");
      const std::string id = inv.positional[0];
      // The control plane lists events (there is no GET /_sim/events/:id): the one asked for is
      // picked from the list, so an unknown id is this command's own "not found" (exit 1).
      const json all = SimCall(inv, "GET", "/_sim/events");
      json event;
      for (const auto& e : all.value("events", json::array()))
        if (e.value("id", "") == id) event = e;
      if (event.is_null()) throw SimAnsweredError("no event " + id + " on " + inv.url);
      const json deliveries = SimCall(inv, "GET", "/_sim/deliveries", {{"eventId", id}});
      if (inv.json) {
        out << json{{"event", event}, {"deliveries", deliveries.value("deliveries", json::array())}}.dump(2) << "\n";
        return 0;
      }
      PrintEventLine(out, event);
      out << event.dump(2) << "\n";
      const json list = deliveries.value("deliveries", json::array());
      out << list.size() << " delivery attempt" << (list.size() == 1 ? "" : "s") << "\n";
      for (const auto& d : list) PrintDeliveryLine(out, d);
      return 0;
    }
    if (verb == "resend") {
      auto inv = ParseSimArgs(args, 1, {"--endpoint"}, env);
      ExpectPositionals(inv, 1, "events resend needs one EVT_ID");
      json body = json::object();
      if (auto v = SimOption(inv, "--endpoint"); !v.empty()) body["endpointId"] = v;
      const json doc = SimCall(inv, "POST", "/_sim/events/" + inv.positional[0] + "/resend", {}, body);
      if (inv.json) {
        out << doc.dump(2) << "\n";
        return 0;
      }
      const json list = doc.value("deliveries", json::array());
      if (list.empty()) out << "no active endpoint subscribed to the event: nothing scheduled\n";
      for (const auto& d : list)
        out << "scheduled " << SimText(d, "id") << " of " << SimText(doc, "eventId") << " to "
            << SimText(d, "endpointId") << " (attempt 1, due " << SimText(d, "scheduledAt") << ")\n";
      return 0;
    }
    throw SimUsageError("events needs list, show EVT_ID or resend EVT_ID (see emsim events --help)");
  });
}

int TriggerCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const EnvLookup& env) {
  if (WantsHelp(args, out)) return 0;
  return RunSim("trigger", err, [&] {
    auto inv = ParseSimArgs(args, 0, {"--object", "--api-key"}, env);
    ExpectPositionals(inv, 1, "trigger needs one EVENT_TYPE, e.g. domain.updated");
    std::string key = SimOption(inv, "--api-key");
    if (key.empty())
      if (const char* k = env("EMSIM_API_KEY"); k && *k) key = k;
    if (key.empty())
      throw SimUsageError("an API key is required: --api-key KEY or EMSIM_API_KEY (the account whose object changes)");
    json body = {{"type", inv.positional[0]}, {"apiKey", key}};
    if (auto v = SimOption(inv, "--object"); !v.empty()) body["objectId"] = v;
    const json doc = SimCall(inv, "POST", "/_sim/trigger", {}, body);
    if (inv.json) {
      out << doc.dump(2) << "\n";
      return 0;
    }
    out << SimText(doc, "type") << " on " << SimText(doc, "objectId") << ": " << SimText(doc, "change") << "\n";
    for (const auto& e : doc.value("events", json::array()))
      out << SimText(e, "id") << "  " << SimText(e, "type") << "\n";
    return 0;
  });
}

int DeliveriesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                      const EnvLookup& env) {
  if (WantsHelp(args, out)) return 0;
  return RunSim("deliveries", err, [&] {
    if (args.empty() || args[0] != "list") throw SimUsageError("deliveries needs list (see emsim deliveries --help)");
    auto inv = ParseSimArgs(args, 1, {"--event", "--endpoint", "--status", "--limit"}, env);
    ExpectPositionals(inv, 0, "deliveries list takes no positional arguments");
    httplib::Params q;
    if (auto v = SimOption(inv, "--event"); !v.empty()) q.emplace("eventId", v);
    if (auto v = SimOption(inv, "--endpoint"); !v.empty()) q.emplace("endpointId", v);
    if (auto v = SimOption(inv, "--status"); !v.empty()) q.emplace("status", v);
    if (auto v = SimOption(inv, "--limit"); !v.empty()) q.emplace("limit", v);
    const json doc = SimCall(inv, "GET", "/_sim/deliveries", q);
    if (inv.json) out << doc.dump(2) << "\n";
    else
      for (const auto& d : doc.value("deliveries", json::array())) PrintDeliveryLine(out, d);
    return 0;
  });
}

}  // namespace emsim::cli
