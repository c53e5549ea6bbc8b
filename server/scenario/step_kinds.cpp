#include "scenario/step_kinds.hpp"

#include <algorithm>
#include <sstream>

#include "core/time.hpp"
#include "scenario/match.hpp"

namespace emsim::scenario {

namespace {

const std::vector<std::string> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE"};

// The most repeats one scenario may nest inside each other (the parser and runner recurse once per level).
constexpr int kMaxRepeatNesting = 8;

std::string Plain(const json& v) { return v.is_string() ? v.get<std::string>() : Brief(v, 60); }
std::string BriefBody(const std::optional<json>& b) { return b && !b->empty() ? " " + Brief(*b, 80) : std::string(); }

// ---- request: GET: /v1/... (any public or /_sim path) ----------------------------------------
void ParseRequest(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  ScenarioCall& c = st.call;
  const std::string& method = c.method;
  std::string path = r.Text(n[method], method);
  // A link emsim handed out (paymentLink, invoiceUrl, a sink's url) may be used as is.
  if (path.empty() || (path[0] != '/' && path.rfind("${", 0) != 0 && path.rfind("http://", 0) != 0 &&
                       path.rfind("https://", 0) != 0))
    r.Fail(n[method], where + ": the path must start with '/' (or be a URL or a ${variable} holding one), got '" +
                          path + "'");
  if (auto q = path.find('?'); q != std::string::npos) {
    std::stringstream qs(path.substr(q + 1));
    std::string pair;
    while (std::getline(qs, pair, '&')) {
      if (pair.empty()) continue;
      const auto eq = pair.find('=');
      c.query[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
    }
    path = path.substr(0, q);
  }
  c.path = path;
  if (yaml::Node a = n["as"]; a.IsDefined()) {
    c.as = r.Text(a, "as");
    if (c.as == "none") c.as.clear();
  } else if (path.rfind("/_sim", 0) != 0) {
    c.as = r.DefaultAs();
  }
  if (yaml::Node w = n["workspace"]; w.IsDefined()) c.workspace = r.Text(w, "workspace");
  if (yaml::Node h = n["headers"]; h.IsDefined()) c.headers = r.StringMap(h, where + ": headers");
  if (yaml::Node q = n["query"]; q.IsDefined()) {
    json extra = r.StringMap(q, where + ": query");
    for (auto& [k, v] : extra.items()) c.query[k] = v;
  }
  if (yaml::Node b = n["body"]; b.IsDefined()) c.body = r.ToJson(b, false);
  if (yaml::Node raw = n["raw_body"]; raw.IsDefined()) {
    if (c.body) r.Fail(raw, where + ": give either body (JSON) or raw_body (text), not both");
    c.rawBody = r.Text(raw, "raw_body");
  }
  if (yaml::Node ct = n["content_type"]; ct.IsDefined()) c.contentType = r.Text(ct, "content_type");
}
std::string DisplayRequest(const ScenarioStep& st, const yaml::Node&) { return st.call.method + " " + st.call.path; }

// ---- advance: 5m -> POST /_sim/clock/advance -------------------------------------------------------
void ParseAdvance(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const yaml::Node v = n["advance"];
  const std::string d = r.ScalarText(v, "advance");
  auto ms = model::ParseDuration(d);  // the one grammar (README "Durations")
  if (!ms) r.Fail(v, where + ": advance: " + model::DurationProblem(d));
  st.call.method = "POST";
  st.call.path = "/_sim/clock/advance";
  st.call.body = json{{"seconds", static_cast<double>(*ms) / model::kSecond}};
  // `as: t1`: the tenant's own clock (POST /_sim/tenants), not the instance clock.
  if (yaml::Node a = n["as"]; a.IsDefined()) st.call.as = r.Text(a, "as");
}
std::string DisplayAdvance(const ScenarioStep&, const yaml::Node& n) { return "advance " + n["advance"].Scalar(); }

// ---- at: 2026-01-02T00:00:00.000Z -> PUT /_sim/clock ------------------------------------------------
void ParseAt(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const yaml::Node v = n["at"];
  const std::string t = r.Text(v, "at");
  if (t.find("${") == std::string::npos && !model::ParseIso(t))
    r.Fail(v, where + ": at: expected an ISO 8601 UTC time like 2026-01-02T09:00:00.000Z, got '" + t + "'");
  st.call.method = "PUT";
  st.call.path = "/_sim/clock";
  st.call.body = json{{"now", t}};
  if (yaml::Node a = n["as"]; a.IsDefined()) st.call.as = r.Text(a, "as");  // as advance
}
std::string DisplayAt(const ScenarioStep&, const yaml::Node& n) { return "at " + n["at"].Scalar(); }

// ---- sink: name -> POST /_sim/sinks; tenant: name -> POST /_sim/tenants ---------------------------
// Each binds a variable to the answer (a tenant also an account alias: run.cpp).
void ParseCreate(Reader& r, const yaml::Node& n, ScenarioStep& st, const char* key, const char* path,
                 const std::string& where) {
  st.bind = r.VarName(n[key], key);
  st.call.method = "POST";
  st.call.path = path;
  st.call.body = json::object();
  if (yaml::Node cfg = n["config"]; cfg.IsDefined() && !cfg.IsNull()) st.call.body = r.Map(cfg, where + ": config");
}
void ParseSink(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  ParseCreate(r, n, st, "sink", "/_sim/sinks", where);
}
void ParseTenant(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  ParseCreate(r, n, st, "tenant", "/_sim/tenants", where);
}
std::string DisplaySink(const ScenarioStep& st, const yaml::Node&) { return "sink " + st.bind + BriefBody(st.call.body); }
std::string DisplayTenant(const ScenarioStep& st, const yaml::Node&) {
  return "tenant " + st.bind + BriefBody(st.call.body);
}

// ---- update_sink: name -> PATCH /_sim/sinks/:id ----------------------------------------------------
void ParseSinkUpdate(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const std::string var = r.VarName(n["update_sink"], "update_sink");
  r.CheckVars(n["update_sink"], "${" + var + "}");
  st.call.method = "PATCH";
  st.call.path = "/_sim/sinks/${" + var + ".id}";
  yaml::Node cfg = n["config"];
  if (!cfg.IsDefined()) r.Fail(n, where + ": update_sink needs `config:` with the fields to change");
  st.call.body = r.Map(cfg, where + ": config");
}
std::string DisplaySinkUpdate(const ScenarioStep& st, const yaml::Node& n) {
  return "update_sink " + n["update_sink"].Scalar() + BriefBody(st.call.body);
}

// ---- fault: {...} -> POST /_sim/faults; clear_faults: true -> DELETE /_sim/faults ------------------
void ParseFault(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  st.call.method = "POST";
  st.call.path = "/_sim/faults";
  st.call.body = r.Map(n["fault"], where + ": fault");
}
std::string DisplayFault(const ScenarioStep& st, const yaml::Node&) { return "fault" + BriefBody(st.call.body); }
void ParseClearFaults(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  if (!r.Bool(n["clear_faults"], "clear_faults")) r.Fail(n["clear_faults"], where + ": write clear_faults: true");
  st.call.method = "DELETE";
  st.call.path = "/_sim/faults";
}
std::string DisplayClearFaults(const ScenarioStep&, const yaml::Node&) { return "clear_faults"; }

// ---- transition: {domain, status} -> POST /_sim/domains/:id/transition -----------------------------
void ParseTransition(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const yaml::Node v = n["transition"];
  json body = r.Map(v, where + ": transition");
  if (!body.contains("domain") || !body["domain"].is_string())
    r.Fail(v, where + ": transition needs `domain:` (a domain id) and `status:`");
  if (!body.contains("status")) r.Fail(v, where + ": transition needs `status:` (e.g. ACTIVE)");
  st.call.method = "POST";
  st.call.path = "/_sim/domains/" + body["domain"].get<std::string>() + "/transition";
  body.erase("domain");
  st.call.body = body;
}
std::string DisplayTransition(const ScenarioStep& st, const yaml::Node& n) {
  return "transition " + n["transition"]["domain"].Scalar() + " -> " + Plain(st.call.body->value("status", json()));
}

// ---- wallet: {as, balance} -> PUT /_sim/wallet -------------------------------------------------------
void ParseWallet(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const yaml::Node v = n["wallet"];
  if (!v.IsMap()) r.Fail(v, where + ": wallet: expected {as: alice, balance: 10}");
  r.OnlyKeys(v, where + ": wallet", {"as", "balance"});
  if (!v["as"].IsDefined() || !v["balance"].IsDefined())
    r.Fail(v, where + ": wallet needs `as:` (whose wallet) and `balance:` (whole dollars)");
  st.call.method = "PUT";
  st.call.path = "/_sim/wallet";
  st.call.as = r.Text(v["as"], "as");
  st.call.body = json{{"balance", r.ToJson(v["balance"], false)}};
}
std::string DisplayWallet(const ScenarioStep& st, const yaml::Node&) {
  return "wallet of " + st.call.as + " = " + (*st.call.body)["balance"].dump();
}

// ---- trigger: {type, as, objectId, data} -> POST /_sim/events ---------------------------------------
void ParseTrigger(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const yaml::Node v = n["trigger"];
  if (!v.IsMap()) r.Fail(v, where + ": trigger: expected {type: domain.updated, as: alice, objectId: ..., data: {...}}");
  r.OnlyKeys(v, where + ": trigger", {"type", "as", "objectId", "data"});
  if (!v["type"].IsDefined() || !v["as"].IsDefined())
    r.Fail(v, where + ": trigger needs `type:` (an event type) and `as:` (whose account)");
  st.call.method = "POST";
  st.call.path = "/_sim/events";
  st.call.as = r.Text(v["as"], "as");
  json body = {{"type", r.Text(v["type"], "type")}};
  if (v["objectId"].IsDefined()) body["objectId"] = r.Text(v["objectId"], "objectId");
  if (v["data"].IsDefined()) body["data"] = r.Map(v["data"], where + ": trigger.data");
  st.call.body = body;  // the runner adds apiKey (the key behind `as`)
}
std::string DisplayTrigger(const ScenarioStep& st, const yaml::Node&) {
  const json& b = *st.call.body;
  return "trigger " + b.value("type", "") + (b.contains("objectId") ? " on " + b["objectId"].get<std::string>() : "");
}

// ---- expect_state: {...} -> GET /_sim/state -----------------------------------------------------------
void ParseExpectState(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  st.call.method = "GET";
  st.call.path = "/_sim/state";
  st.expectBody = r.Map(n["expect_state"], where + ": expect_state", true);
}
std::string DisplayExpectState(const ScenarioStep& st, const yaml::Node&) {
  std::string keys;
  for (const auto& [k, v] : st.expectBody->items()) keys += (keys.empty() ? " " : ", ") + k;
  return "expect_state" + keys;
}

// ---- expect_events / expect_deliveries / expect_notifications: select from a /_sim list, then check -----
void ParseList(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const char* key = ToString(st.kind);
  const yaml::Node v = n[key];
  if (!v.IsMap()) r.Fail(v, where + ": " + key + ": expected a map (see scenarios/README.md)");
  std::vector<std::string> allowed = {"where", "count", "items", "contains"};
  ScenarioCall& c = st.call;
  c.method = "GET";
  if (st.kind == StepKind::kExpectEvents) {
    c.path = "/_sim/events";
    allowed.insert(allowed.end(), {"type", "as"});
  } else if (st.kind == StepKind::kExpectDeliveries) {
    c.path = "/_sim/deliveries";
    allowed.insert(allowed.end(), {"event", "endpoint", "sink", "attempts_after_event", "signature_verified"});
  } else {
    c.path = "/_sim/notifications";
    allowed.insert(allowed.end(), {"as"});
  }
  r.OnlyKeys(v, where + ": " + key, allowed);
  ListCheck& l = st.list;
  if (yaml::Node w = v["where"]; w.IsDefined()) l.filter = r.Map(w, where + ": where", true);
  if (yaml::Node t = v["type"]; t.IsDefined()) l.filter["type"] = r.Text(t, "type");
  if (yaml::Node a = v["as"]; a.IsDefined()) c.as = r.Text(a, "as");
  if (yaml::Node e = v["event"]; e.IsDefined()) l.filter["$event"] = r.Text(e, "event");
  if (yaml::Node e = v["endpoint"]; e.IsDefined()) l.filter["$endpoint"] = r.Text(e, "endpoint");
  if (yaml::Node s = v["sink"]; s.IsDefined()) {
    st.sinkVar = r.VarName(s, "sink");
    r.CheckVars(s, "${" + st.sinkVar + "}");
  }
  if (yaml::Node cnt = v["count"]; cnt.IsDefined()) {
    l.count = r.ToJson(cnt, true);
    if (!l.count->is_number_integer() && !IsMatcher(*l.count) && !l.count->is_string())
      r.Fail(cnt, where + ": count: expected a whole number or a matcher like {$gte: 1}");
  }
  if (yaml::Node it = v["items"]; it.IsDefined()) {
    if (!it.IsSequence()) r.Fail(it, where + ": items: expected a list (matched by position)");
    l.items = r.ToJson(it, true);
  }
  if (yaml::Node ct = v["contains"]; ct.IsDefined()) {
    if (!ct.IsSequence()) r.Fail(ct, where + ": contains: expected a list (matched in any order)");
    l.contains = r.ToJson(ct, true);
  }
  if (yaml::Node a = v["attempts_after_event"]; a.IsDefined()) {
    if (!a.IsSequence()) r.Fail(a, where + ": attempts_after_event: expected a list of durations like [0s, 1m, 6m]");
    json offsets = json::array();
    for (size_t i = 0; i < a.size(); ++i) {
      const yaml::Node d = a[i];
      const std::string text = r.ScalarText(d, "attempts_after_event");
      auto ms = model::ParseDuration(text);
      if (!ms) r.Fail(d, where + ": attempts_after_event: " + model::DurationProblem(text));
      offsets.push_back(*ms);
    }
    st.attemptOffsets = offsets;
  }
  if (yaml::Node s = v["signature_verified"]; s.IsDefined()) {
    st.signatureVerified = r.Bool(s, "signature_verified");
    if (st.sinkVar.empty()) r.Fail(s, where + ": signature_verified needs `sink:` (the sink that recorded the requests)");
  }
  if (!l.count && !l.items && !l.contains && !st.attemptOffsets && !st.signatureVerified)
    r.Fail(v, where + ": " + key + " checks nothing; give count, items, contains" +
                  (st.kind == StepKind::kExpectDeliveries ? ", attempts_after_event or signature_verified" : ""));
}
std::string DisplayList(const ScenarioStep& st, const yaml::Node&) {
  std::string d = ToString(st.kind);
  for (const auto& [k, v] : st.list.filter.items()) d += " " + (k[0] == '$' ? k.substr(1) : k) + "=" + Plain(v);
  if (!st.sinkVar.empty()) d += " sink=" + st.sinkVar;
  return d;
}

// ---- set: {var: value} (no call) -------------------------------------------------------------------------
void ParseSet(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string&, const std::string& where) {
  const yaml::Node v = n["set"];
  if (!v.IsMap()) r.Fail(v, where + ": set: expected a map of variable: value");
  for (size_t e = 0; e < v.size(); ++e) {
    const std::string k = v.Key(e).Scalar();
    if (!IsIdentifier(k)) r.Fail(v.Key(e), where + ": set: '" + k + "' is not a variable name");
    st.setVars[k] = r.ToJson(v.Value(e), false);
  }
  for (auto& [k, v2] : st.setVars.items()) r.Define(k);
}

// ---- repeat: {times, var, steps} (no call of its own) ------------------------------------------------------
void ParseRepeat(Reader& r, const yaml::Node& n, ScenarioStep& st, const std::string& label, const std::string& where) {
  const yaml::Node v = n["repeat"];
  if (!v.IsMap()) r.Fail(v, where + ": repeat: expected {times: N, steps: [...]}");
  r.OnlyKeys(v, where + ": repeat", {"times", "var", "steps"});
  const std::optional<std::int64_t> times = v["times"].AsInt();
  if (!times) r.Fail(v["times"].IsDefined() ? v["times"] : v, where + ": repeat needs `times:` (a whole number 1..10000)");
  if (*times < 1 || *times > 10000) r.Fail(v["times"], where + ": repeat times must be 1..10000");
  st.times = static_cast<int>(*times);
  st.loopVar = v["var"].IsDefined() ? r.VarName(v["var"], "var") : "i";
  r.Define(st.loopVar);
  yaml::Node inner = v["steps"];
  if (!inner.IsDefined() || !inner.IsSequence() || inner.size() == 0)
    r.Fail(inner.IsDefined() ? inner : v, where + ": repeat needs `steps:` (a non-empty list)");
  if (std::count(label.begin(), label.end(), '.') >= kMaxRepeatNesting)
    r.Fail(v, where + ": repeats nest deeper than " + std::to_string(kMaxRepeatNesting) + " levels");
  st.steps = r.Steps(inner, label + ".");
}

std::string DisplayKind(const ScenarioStep& st, const yaml::Node&) { return ToString(st.kind); }

}  // namespace

// The table of step kinds: see step_kinds.hpp for what adding one takes.
const std::vector<StepKindSpec>& StepKinds() {
  static const std::vector<StepKindSpec> k = {
      {StepKind::kRequest, "request",
       {"name", "as", "workspace", "headers", "query", "body", "raw_body", "content_type", "expect", "save"},
       ParseRequest, DisplayRequest},
      {StepKind::kAdvance, "advance", {"name", "as", "expect", "save"}, ParseAdvance, DisplayAdvance},
      {StepKind::kAt, "at", {"name", "as", "expect", "save"}, ParseAt, DisplayAt},
      {StepKind::kSink, "sink", {"name", "config", "expect", "save"}, ParseSink, DisplaySink},
      {StepKind::kSinkUpdate, "update_sink", {"name", "config", "expect", "save"}, ParseSinkUpdate, DisplaySinkUpdate},
      {StepKind::kFault, "fault", {"name", "expect", "save"}, ParseFault, DisplayFault},
      {StepKind::kClearFaults, "clear_faults", {"name", "expect"}, ParseClearFaults, DisplayClearFaults},
      {StepKind::kTransition, "transition", {"name", "expect", "save"}, ParseTransition, DisplayTransition},
      {StepKind::kWallet, "wallet", {"name", "expect", "save"}, ParseWallet, DisplayWallet},
      {StepKind::kTrigger, "trigger", {"name", "expect", "save"}, ParseTrigger, DisplayTrigger},
      {StepKind::kTenant, "tenant", {"name", "config", "expect", "save"}, ParseTenant, DisplayTenant},
      {StepKind::kExpectEvents, "expect_events", {"name", "save"}, ParseList, DisplayList},
      {StepKind::kExpectDeliveries, "expect_deliveries", {"name", "save"}, ParseList, DisplayList},
      {StepKind::kExpectNotifications, "expect_notifications", {"name", "save"}, ParseList, DisplayList},
      {StepKind::kExpectState, "expect_state", {"name", "save"}, ParseExpectState, DisplayExpectState},
      {StepKind::kSet, "set", {"name"}, ParseSet, DisplayKind, false},
      {StepKind::kRepeat, "repeat", {"name"}, ParseRepeat, DisplayKind, false},
  };
  return k;
}

const StepKindSpec& SpecOf(StepKind kind) {
  for (const auto& spec : StepKinds())
    if (spec.kind == kind) return spec;
  return StepKinds().front();  // unreachable: every StepKind has its row
}

const char* ToString(StepKind kind) { return SpecOf(kind).key; }

const std::vector<std::string>& RequestMethods() { return kMethods; }

}  // namespace emsim::scenario
