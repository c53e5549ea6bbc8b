#include "scenario/run.hpp"

#include <chrono>
#include <set>

#include "core/json_limits.hpp"
#include "schema/registry.hpp"
#include "schema/event_check.hpp"
#include "fixture/fixtures.hpp"
#include "scenario/match.hpp"
#include "scenario/run_checks.hpp"
#include "scenario/vars.hpp"

namespace emsim::scenario {

namespace {

struct Http {
  int status = 0;
  std::string error;  // transport failure: no status
  json body;          // parsed JSON, or the raw text as a JSON string
  bool isJson = false;
  HeaderList headers;
};

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "http://127.0.0.1:8080/_sim/invoices/x" -> "/_sim/invoices/x": links emsim hands out are
// followed on the emsim under test, whatever host they name.
std::string LocalPath(const std::string& path) {
  for (const char* scheme : {"http://", "https://"}) {
    if (path.rfind(scheme, 0) != 0) continue;
    const size_t slash = path.find('/', std::string(scheme).size());
    return slash == std::string::npos ? "/" : path.substr(slash);
  }
  return path;
}

class Runner {
 public:
  Runner(const Scenario& sc, const ScenarioRunOptions& o) : sc_(sc), o_(o) { vars_ = sc.header.vars; }

  ScenarioReport Run() {
    const auto started = std::chrono::steady_clock::now();
    ScenarioReport rep;
    rep.file = sc_.file;
    rep.name = sc_.header.name;
    rep.description = sc_.header.description;
    std::string original_mode;
    try {
      if (o_.prepare) original_mode = Prepare();
      LoadAccounts();
      CheckAliases(sc_.steps);
    } catch (const std::exception& e) {
      rep.setupError = e.what();
    }
    bool stop = !rep.setupError.empty();
    for (const auto& st : sc_.steps) {
      StepReport sr;
      if (stop) {
        sr = Skipped(st, std::to_string(rep.steps.size() + 1));
      } else {
        sr = RunStep(st, std::to_string(rep.steps.size() + 1));
        // Later steps build on earlier ones: after a failure they are reported, not run.
        if (sr.outcome == StepOutcome::kFailed) stop = true;
      }
      sr.caseName = CaseName(st, rep.steps.size() + 1);
      if (sr.outcome == StepOutcome::kPassed) ++rep.passed;
      else if (sr.outcome == StepOutcome::kFailed) ++rep.failed;
      else ++rep.skipped;
      rep.steps.push_back(std::move(sr));
    }
    // Only a run that got going has events of its own to check.
    if (rep.setupError.empty()) {
      if (auto events = CheckAllEvents()) {
        ++rep.failed;
        rep.steps.push_back(std::move(*events));
      }
    }
    if (o_.prepare && !original_mode.empty() && original_mode != sc_.header.clockMode)
      Send("PUT", "/_sim/clock", {}, {}, json{{"mode", original_mode}});
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return rep;
  }

 private:
  // ---- HTTP -----------------------------------------------------------------------------------
  Http Send(const std::string& method, const std::string& path, const json& query, const json& headers,
            const std::optional<json>& body, const std::optional<std::string>& raw = std::nullopt,
            const std::string& content_type = "") {
    ClientRequest req;
    req.method = method;
    req.path = path;
    if (query.is_object())
      for (const auto& [k, v] : query.items()) req.query.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    bool has_type = false, has_auth = false;
    if (headers.is_object())
      for (const auto& [k, v] : headers.items()) {
        const std::string name = Lower(k);
        has_type = has_type || name == "content-type";
        has_auth = has_auth || name == "authorization";
        req.headers.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
      }
    if (!o_.adminToken.empty() && !has_auth) req.headers.emplace_back("Authorization", "Bearer " + o_.adminToken);
    if (body || raw) {
      req.body = raw ? *raw : body->dump();
      const std::string ct = !content_type.empty() ? content_type : raw ? "" : "application/json";
      if (!ct.empty() && !has_type) req.headers.emplace_back("Content-Type", ct);
    }
    Http out;
    ClientResponse res = o_.client->Send(req);
    if (!res.error.empty()) {
      out.error = std::move(res.error);
      return out;
    }
    out.status = res.status;
    out.headers = std::move(res.headers);
    // The answer may come from any server the runner was pointed at: read with limits, so the
    // matcher's recursion stays bounded.
    auto parsed = model::ParseJsonLimited(res.body, model::kAnswerJsonLimits);
    if (parsed) {
      out.body = std::move(*parsed);
      out.isJson = true;
    } else {
      out.body = std::move(res.body);
    }
    return out;
  }

  // A control-plane call during preparation: any failure stops the run before it starts.
  json Control(const std::string& method, const std::string& path, const std::optional<json>& body = std::nullopt) {
    Http r = Send(method, path, {}, {}, body);
    if (!r.error.empty()) throw std::runtime_error(method + " " + path + ": " + r.error);
    if (r.status < 200 || r.status >= 300)
      throw std::runtime_error(method + " " + path + " answered " + std::to_string(r.status) + ": " + Brief(r.body, 300));
    return r.body;
  }

  // ---- preparation (running emsim) ------------------------------------------------------------
  // Answers the clock mode the emsim had, to put it back afterwards.
  std::string Prepare() {
    const ScenarioHeader& h = sc_.header;
    const std::string original_mode = Control("GET", "/_sim/clock").value("mode", "");
    const bool own_fixture = !h.fixtures.empty();
    // The scenario's own fixture is read before anything changes: a bad file stops the run with the
    // emsim as it was, not reset.
    json state;
    std::optional<model::Millis> start = h.clockStart;
    if (own_fixture) {
      const std::string path = h.fixtures == "default" ? o_.defaultFixture : h.fixtures;
      fixture::Fixture f = fixture::LoadFixtureFile(path, h.seed.value_or(1));
      state = model::DumpState(f.state);
      if (!start) start = f.clockStart;
    }
    if (h.reset) Control("POST", "/_sim/reset");
    if (own_fixture || h.seed || h.clockStart) {
      if (!own_fixture) {
        state = Control("GET", "/_sim/state?secrets=true");
        if (h.seed) state["ids"]["seed"] = *h.seed;
      }
      const json clock = Control("GET", "/_sim/clock");
      // PUT /_sim/state restores the clock exactly, even backwards: the one way to start a
      // scenario at its own time on an emsim whose clock has moved on.
      state["clock"] = {{"mode", h.clockMode}, {"epochMs", start.value_or(clock.value("epochMs", model::Millis{0}))}};
      Control("PUT", "/_sim/state", state);
    } else if (original_mode != h.clockMode) {
      Control("PUT", "/_sim/clock", json{{"mode", h.clockMode}});
    }
    return original_mode;
  }

  // Account aliases: "alice" for acc_alice (the id without acc_) and for a user named Alice,
  // plus the header's `accounts:`. Read from the emsim's state, so they hold for any fixture.
  void LoadAccounts() {
    const json state = Control("GET", "/_sim/state?secrets=true");
    for (const auto& a : state.value("accounts", json::array())) {
      const std::string key = a.value("apiKey", "");
      const std::string id = a.value("id", "");
      if (key.empty()) continue;
      std::string alias = id.rfind("acc_", 0) == 0 ? id.substr(4) : id;
      aliases_[Lower(alias)] = key;
      accountOfKey_[key] = id;
      if (a.contains("user") && a["user"].is_object()) {
        const std::string first = Lower(a["user"].value("firstName", ""));
        if (!first.empty() && !aliases_.count(first)) aliases_[first] = key;
      }
    }
    for (const auto& [alias, key] : sc_.header.accounts.items()) aliases_[alias] = key.get<std::string>();
  }

  // Every literal `as:` must name a known account (or a tenant a step creates) before step 1 runs.
  void CheckAliases(const std::vector<ScenarioStep>& steps) {
    std::set<std::string> tenants;
    CollectTenants(sc_.steps, tenants);
    for (const auto& st : steps) {
      const std::string& as = st.call.as;
      if (!as.empty() && as.find("${") == std::string::npos && !aliases_.count(as) && !tenants.count(as)) {
        std::string known;
        for (const auto& [k, v] : aliases_) known += (known.empty() ? "" : ", ") + k;
        throw std::runtime_error(sc_.file + ":" + std::to_string(st.line) + ": as: no account '" + as +
                                 "' (known: " + known + "; or a tenant a step creates, or ${var} holding an API key)");
      }
      CheckAliases(st.steps);
    }
  }
  void CollectTenants(const std::vector<ScenarioStep>& steps, std::set<std::string>& out) {
    for (const auto& st : steps) {
      if (st.kind == StepKind::kTenant) out.insert(st.bind);
      CollectTenants(st.steps, out);
    }
  }

  std::string ApiKeyFor(const std::string& as_interpolated) {
    auto it = aliases_.find(as_interpolated);
    return it != aliases_.end() ? it->second : as_interpolated;
  }

  // ---- steps ----------------------------------------------------------------------------------
  StepReport Base(const ScenarioStep& st, const std::string& label) {
    StepReport r;
    r.label = label;
    r.line = st.line;
    r.kind = ToString(st.kind);
    r.name = st.name;
    return r;
  }

  StepReport Skipped(const ScenarioStep& st, const std::string& label) {
    StepReport r = Base(st, label);
    r.outcome = StepOutcome::kSkipped;
    r.summary = Describe(st);
    return r;
  }

  // The step as written in the file: ${variables} not filled in.
  static std::string Written(const ScenarioStep& st) {
    if (st.kind == StepKind::kRepeat) return "repeat " + std::to_string(st.times) + " times";
    if (st.kind == StepKind::kSet) return "set " + st.setVars.dump();
    std::string d = st.display;
    if (!st.call.as.empty() && st.kind != StepKind::kWallet) d += " as " + st.call.as;
    if (!st.call.workspace.empty()) d += " in workspace " + st.call.workspace;
    return d;
  }

  // JUnit names a test case from the source alone: the same on every run (seed, clock, ids).
  static std::string CaseName(const ScenarioStep& st, size_t number) {
    std::string n = "step " + std::to_string(number);
    if (!st.name.empty()) n += " " + st.name;
    return n + ": " + Written(st);
  }

  std::string Describe(const ScenarioStep& st) const {
    const std::string d = Written(st);
    if (st.kind == StepKind::kRepeat || st.kind == StepKind::kSet) return d;
    try {
      return InterpolateText(d, vars_);
    } catch (const VariableError&) {
      return d;  // not set yet: the report shows the ${...} as written
    }
  }

  StepReport RunStep(const ScenarioStep& st, const std::string& label) {
    StepReport r = Base(st, label);
    if (st.kind == StepKind::kSet) return RunSet(st, r);
    if (st.kind == StepKind::kRepeat) return RunRepeat(st, r);
    r.summary = Describe(st);
    auto fail = [&](std::string problem) {
      r.outcome = StepOutcome::kFailed;
      r.problems.push_back(std::move(problem));
      return r;
    };

    // ---- build the request --------------------------------------------------------------------
    const ScenarioCall& c = st.call;
    std::string path, api_key;
    json query, headers = json::object();
    std::optional<json> body;
    std::optional<std::string> raw;
    try {
      path = LocalPath(InterpolateText(c.path, vars_));
      query = Interpolate(c.query, vars_);
      headers = Interpolate(c.headers, vars_);
      if (c.body) body = Interpolate(*c.body, vars_);
      if (c.rawBody) raw = InterpolateText(*c.rawBody, vars_);
      if (!c.as.empty()) api_key = ApiKeyFor(InterpolateText(c.as, vars_));
      if (!api_key.empty() && !headers.contains("x-auth-service")) headers["x-auth-service"] = api_key;
      if (!c.workspace.empty()) headers["x-workspace-key"] = InterpolateText(c.workspace, vars_);
    } catch (const VariableError& e) {
      return fail(e.what());
    }
    // POST /_sim/events names the account by API key in its body (DESIGN.md /_sim table).
    if (st.kind == StepKind::kTrigger && body) (*body)["apiKey"] = api_key;
    r.summary = Describe(st);
    r.request = {{"method", c.method}, {"path", path}};
    if (!query.empty()) r.request["query"] = query;
    if (!headers.empty()) r.request["headers"] = headers;
    if (body) r.request["body"] = *body;
    else if (raw) r.request["body"] = *raw;

    // ---- send ---------------------------------------------------------------------------------
    Http res = Send(c.method, path, query, headers, body, raw, c.contentType);
    if (!res.error.empty()) return fail(res.error);
    r.response = {{"status", res.status}, {"body", res.body}};
    r.summary += " -> " + std::to_string(res.status);
    if (st.kind == StepKind::kAdvance && res.body.is_object() && res.body.contains("jobsRun"))
      r.summary += " (now " + res.body.value("now", "") + ", " + res.body["jobsRun"].dump() + " jobs run)";

    // ---- check --------------------------------------------------------------------------------
    std::vector<std::string> problems;
    CheckStatus(st, res, problems);
    CheckHeaders(st, res, problems);
    CheckSchema(c.method, path, res, problems);
    json subject = res.body;
    try {
      if (st.expectBody) {
        for (const auto& m : MatchJson(Interpolate(*st.expectBody, vars_), res.body))
          problems.push_back((m.path.empty() ? std::string("body") : "body" + m.path) + ": " + m.message);
      }
      if (st.kind == StepKind::kExpectEvents || st.kind == StepKind::kExpectDeliveries ||
          st.kind == StepKind::kExpectNotifications)
        subject = CheckList(st, res.body, api_key, problems);
    } catch (const VariableError& e) {
      problems.push_back(e.what());
    }
    if (!problems.empty()) {
      r.outcome = StepOutcome::kFailed;
      r.problems = std::move(problems);
      // A listing step's checks ran on the selected items: show those.
      if (subject.is_array() && subject != res.body) r.response["body"] = subject;
      // The whole state is long: show the parts the step asserted.
      if (st.kind == StepKind::kExpectState && st.expectBody && res.body.is_object()) {
        json shown = json::object();
        for (const auto& [k, v] : st.expectBody->items())
          if (res.body.contains(k)) shown[k] = res.body[k];
        r.response["body"] = shown;
      }
      return r;
    }

    // ---- remember -----------------------------------------------------------------------------
    if (!st.bind.empty()) {
      vars_[st.bind] = res.body;
      if (st.kind == StepKind::kTenant && res.body.is_object() && res.body.contains("apiKey")) {
        const std::string key = res.body["apiKey"].get<std::string>();
        aliases_[st.bind] = key;
        accountOfKey_[key] = res.body.value("accountId", "");
      }
    }
    for (const auto& [var, where] : st.save) {
      auto v = LookupPath(subject, where);
      if (!v) return fail("save " + var + ": nothing at '" + where + "' in " + Brief(subject, 300));
      vars_[var] = *v;
    }
    r.outcome = StepOutcome::kPassed;
    r.request = nullptr;
    r.response = nullptr;
    return r;
  }

  StepReport RunSet(const ScenarioStep& st, StepReport& r) {
    std::string names;
    try {
      for (const auto& [k, v] : st.setVars.items()) {
        vars_[k] = Interpolate(v, vars_);
        names += (names.empty() ? "" : ", ") + k + " = " + Brief(vars_[k], 60);
      }
    } catch (const VariableError& e) {
      r.outcome = StepOutcome::kFailed;
      r.problems.push_back(e.what());
      r.summary = "set";
      return r;
    }
    r.summary = "set " + names;
    r.outcome = StepOutcome::kPassed;
    return r;
  }

  // A repeat is one line in the report; when an iteration fails, that inner step's report
  // (labelled with the iteration) stands in for it.
  StepReport RunRepeat(const ScenarioStep& st, StepReport& r) {
    int ran = 0;
    for (int i = 1; i <= st.times; ++i) {
      vars_[st.loopVar] = i;
      for (size_t k = 0; k < st.steps.size(); ++k) {
        StepReport inner = RunStep(st.steps[k], r.label + "." + std::to_string(k + 1) + " [" + st.loopVar + "=" +
                                                    std::to_string(i) + "]");
        ++ran;
        if (inner.outcome == StepOutcome::kFailed) {
          inner.summary = "repeat " + std::to_string(st.times) + " times, iteration " + std::to_string(i) + ": " +
                          (inner.name.empty() ? "" : inner.name + ": ") + inner.summary;
          inner.name = st.name;
          return inner;
        }
      }
    }
    r.summary = "repeat " + std::to_string(st.times) + " times: " + std::to_string(ran) + " steps passed";
    r.outcome = StepOutcome::kPassed;
    return r;
  }

  void CheckStatus(const ScenarioStep& st, const Http& res, std::vector<std::string>& problems) {
    if (st.expectStatus.is_null()) {
      if (res.status < 200 || res.status >= 300)
        problems.push_back("status: expected 2xx, got " + std::to_string(res.status) +
                           " (write expect: {status: " + std::to_string(res.status) + "} if that is intended)");
      return;
    }
    for (const auto& m : MatchJson(st.expectStatus, json(res.status))) problems.push_back("status: " + m.message);
  }

  void CheckHeaders(const ScenarioStep& st, const Http& res, std::vector<std::string>& problems) {
    for (const auto& [name, want] : st.expectHeaders.items()) {
      std::optional<json> actual;
      for (const auto& [k, v] : res.headers)
        if (Lower(k) == name) actual = v;
      std::vector<Mismatch> ms;
      if (actual) ms = MatchJson(want, *actual);
      else if (!(IsMatcher(want) && want.contains("$exists") && want["$exists"] == false))
        ms.push_back({"", "missing (expected " + Brief(want) + ")"});
      for (const auto& m : ms) problems.push_back("header " + name + ": " + m.message);
    }
  }

  // Every public response must conform to its operation's schema (Part 4 and Part 7 shapes).
  void CheckSchema(const std::string& method, const std::string& path, const Http& res,
                   std::vector<std::string>& problems) {
    if (!o_.schemas || !o_.operationOf || path.rfind("/_sim", 0) == 0) return;
    const std::string op = o_.operationOf(method, path);
    std::string name;
    if (!op.empty() && res.status >= 200 && res.status < 300) name = "responses/" + op;
    else if (res.status == 400) name = "resources/error_validation";
    else if (res.status >= 400) name = "resources/error_with_id";
    if (name.empty() || !o_.schemas->Has(name)) return;
    if (!res.isJson) {
      problems.push_back("schema " + name + ": the response is not JSON");
      return;
    }
    for (const auto& issue : o_.schemas->Check(name, res.body))
      problems.push_back("schema " + name + ": " + (issue.Pointer().empty() ? "(body)" : issue.Pointer()) + " " +
                         issue.message);
  }

  // expect_events / expect_deliveries / expect_notifications: filter, then count / items /
  // contains. Answers the filtered list (what `save` reads from).
  json CheckList(const ScenarioStep& st, const json& body, const std::string& api_key, std::vector<std::string>& problems) {
    const ListCheck& l = st.list;
    json filter = Interpolate(l.filter, vars_);
    // `as:` selects the records of that account.
    std::string account;
    if (!api_key.empty()) {
      auto it = accountOfKey_.find(api_key);
      if (it == accountOfKey_.end() || it->second.empty()) {
        problems.push_back("as: no account known for the key '" + api_key + "' (an alias, a tenant, or a fixture key)");
        return json::array();
      }
      account = it->second;
    }
    json list = json::array();
    for (const auto& item : ListOf(body)) {
      if (!MatchJson(FieldFilter(filter), item).empty()) continue;
      if (!SpecialFilterHolds(filter, item, account, st)) continue;
      list.push_back(item);
    }
    const std::string what = std::string(ToString(st.kind)).substr(7);  // "events", ...
    if (l.count)
      for (const auto& m : MatchJson(Interpolate(*l.count, vars_), json(list.size())))
        problems.push_back("count of " + what + Selection(filter, st) + ": " + m.message);
    if (l.items)
      for (const auto& m : MatchJson(Interpolate(*l.items, vars_), list))
        problems.push_back(what + (m.path.empty() ? "" : m.path) + ": " + m.message);
    if (l.contains)
      for (const auto& m : MatchJson(json{{"$contains", Interpolate(*l.contains, vars_)}}, list))
        problems.push_back(what + ": " + m.message);
    if (st.kind == StepKind::kExpectEvents)
      for (size_t i = 0; i < list.size(); ++i) CheckEventSchema(list[i], what + "/" + std::to_string(i), problems);
    if (st.attemptOffsets)
      CheckAttemptTimes(*st.attemptOffsets, list, Send("GET", "/_sim/events", {}, {}, std::nullopt).body, problems);
    if (st.signatureVerified) CheckSink(st, *st.signatureVerified, problems);
    if (!problems.empty())
      problems.push_back("(" + std::to_string(list.size()) + " of " + std::to_string(ListOf(body).size()) + " " + what +
                         " selected; the response below shows them)");
    return list;
  }

  // Part 6: an event as emitted must fit schemas/events/<type>.json (the envelope and its data).
  void CheckEventSchema(const json& event, const std::string& where, std::vector<std::string>& problems) {
    if (!o_.schemas) return;
    for (auto& p : EventSchemaProblems(*o_.schemas, event)) problems.push_back(where + ": " + p);
  }

  // Part 6: at the end of a run, every event the emsim holds must fit its schema, whether or not
  // a step looked at it. Answers the failing check as a report line, or nothing when all fit.
  std::optional<StepReport> CheckAllEvents() {
    if (!o_.schemas) return std::nullopt;
    StepReport r;
    r.label = "events";
    r.kind = "events";
    r.summary = "every event in GET /_sim/events fits schemas/events/<type>.json";
    r.caseName = "events: every event fits its schema";
    Http ev = Send("GET", "/_sim/events", {}, {}, std::nullopt);
    if (!ev.error.empty() || ev.status != 200) {
      r.problems.push_back("GET /_sim/events: " + (ev.error.empty() ? "answered " + std::to_string(ev.status) : ev.error));
    } else {
      r.problems = EventListProblems(*o_.schemas, ev.body);
      if (r.problems.empty()) return std::nullopt;
      for (const auto& e : ListOf(ev.body)) {  // show the events that do not fit
        if (!EventSchemaProblems(*o_.schemas, e).empty()) r.response.push_back(e);
      }
      r.response = {{"status", 200}, {"body", r.response}};
    }
    r.outcome = StepOutcome::kFailed;
    return r;
  }

  void CheckSink(const ScenarioStep& st, bool want, std::vector<std::string>& problems) {
    std::string path;
    try {
      path = "/_sim/sinks/" + InterpolateText("${" + st.sinkVar + ".id}", vars_);
    } catch (const VariableError& e) {
      problems.push_back(e.what());
      return;
    }
    Http sink = Send("GET", path, {}, {}, std::nullopt);
    if (sink.status != 200 || !sink.body.is_object()) {
      problems.push_back("signature_verified: GET " + path + " answered " + std::to_string(sink.status));
      return;
    }
    CheckSinkSignatures(sink.body, st.sinkVar, want, o_.schemas, problems);
  }

  static json FieldFilter(const json& filter) {
    json f = json::object();
    for (const auto& [k, v] : filter.items())
      if (k[0] != '$') f[k] = v;
    return f;
  }

  // Filters that name things the scenario knows by alias or variable.
  bool SpecialFilterHolds(const json& filter, const json& item, const std::string& account, const ScenarioStep& st) {
    if (!account.empty() && item.value("accountId", "") != account) return false;
    if (!st.sinkVar.empty()) {
      // A delivery went to the sink when it went to the sink's URL.
      auto url = LookupPath(vars_, st.sinkVar + ".url");
      if (!url || item.value("url", json()) != *url) return false;
    }
    if (filter.contains("$event") && item.value("eventId", "") != filter["$event"]) return false;
    if (filter.contains("$endpoint") && item.value("endpointId", "") != filter["$endpoint"]) return false;
    return true;
  }

  std::string Selection(const json& filter, const ScenarioStep& st) {
    std::string s;
    for (const auto& [k, v] : filter.items()) s += (s.empty() ? "" : ", ") + (k[0] == '$' ? k.substr(1) : k) + "=" + Brief(v, 60);
    if (!st.call.as.empty()) s += (s.empty() ? "" : ", ") + std::string("as=") + st.call.as;
    return s.empty() ? "" : " (" + s + ")";
  }

  const Scenario& sc_;
  const ScenarioRunOptions& o_;
  json vars_ = json::object();
  std::map<std::string, std::string> aliases_;   // alias -> API key
  std::map<std::string, std::string> accountOfKey_;  // API key -> account id
};

}  // namespace

ScenarioReport RunScenario(const Scenario& scenario, const ScenarioRunOptions& options) {
  if (!options.client) {
    ScenarioReport report;
    report.file = scenario.file;
    report.name = scenario.header.name;
    report.setupError = "no emsim to run on (the runner was given no client)";
    return report;
  }
  return Runner(scenario, options).Run();
}

}  // namespace emsim::scenario
