#include "scenario/parse.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/json_limits.hpp"
#include "fixture/contained_file.hpp"
#include "fixture/fixtures.hpp"
#include "scenario/match.hpp"

namespace emsim::scenario {

const char* ToString(StepKind kind) {
  switch (kind) {
    case StepKind::kRequest: return "request";
    case StepKind::kAdvance: return "advance";
    case StepKind::kAt: return "at";
    case StepKind::kSink: return "sink";
    case StepKind::kSinkUpdate: return "update_sink";
    case StepKind::kFault: return "fault";
    case StepKind::kClearFaults: return "clear_faults";
    case StepKind::kTransition: return "transition";
    case StepKind::kWallet: return "wallet";
    case StepKind::kTrigger: return "trigger";
    case StepKind::kTenant: return "tenant";
    case StepKind::kExpectEvents: return "expect_events";
    case StepKind::kExpectDeliveries: return "expect_deliveries";
    case StepKind::kExpectNotifications: return "expect_notifications";
    case StepKind::kExpectState: return "expect_state";
    case StepKind::kSet: return "set";
    case StepKind::kRepeat: return "repeat";
  }
  return "?";
}

namespace {

const std::vector<std::string> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE"};

// The key that says what a step does, with the keys that may stand beside it.
struct KindSpec {
  const char* key;
  StepKind kind;
  std::vector<std::string> siblings;
};

const std::vector<KindSpec>& KindSpecs() {
  static const std::vector<KindSpec> k = {
      {"advance", StepKind::kAdvance, {"name", "expect", "save"}},
      {"at", StepKind::kAt, {"name", "expect", "save"}},
      {"sink", StepKind::kSink, {"name", "config", "expect", "save"}},
      {"update_sink", StepKind::kSinkUpdate, {"name", "config", "expect", "save"}},
      {"fault", StepKind::kFault, {"name", "expect", "save"}},
      {"clear_faults", StepKind::kClearFaults, {"name", "expect"}},
      {"transition", StepKind::kTransition, {"name", "expect", "save"}},
      {"wallet", StepKind::kWallet, {"name", "expect", "save"}},
      {"trigger", StepKind::kTrigger, {"name", "expect", "save"}},
      {"tenant", StepKind::kTenant, {"name", "config", "expect", "save"}},
      {"expect_events", StepKind::kExpectEvents, {"name", "save"}},
      {"expect_deliveries", StepKind::kExpectDeliveries, {"name", "save"}},
      {"expect_notifications", StepKind::kExpectNotifications, {"name", "save"}},
      {"expect_state", StepKind::kExpectState, {"name", "save"}},
      {"set", StepKind::kSet, {"name"}},
      {"repeat", StepKind::kRepeat, {"name"}},
  };
  return k;
}

const std::vector<std::string> kRequestSiblings = {"name",     "as",          "workspace", "headers", "query", "body",
                                                   "raw_body", "content_type", "expect",   "save"};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// Limits before work (STYLE.md habit 11): a scenario can come over HTTP (POST /_sim/scenarios/run).
constexpr size_t kMaxScenarioBytes = 4 * 1024 * 1024;
// Values a scenario sends become request bodies, which emsim refuses past this depth anyway.
constexpr size_t kMaxValueDepth = model::kRequestJsonLimits.maxDepth;
// yaml-cpp shares an aliased node; converting it to JSON copies it once per alias. The copies of
// the whole document together may not pass this many values (a 536-byte "billion laughs" would
// otherwise grow to gigabytes), beyond one value per byte of the file.
constexpr size_t kMaxAliasExpansion = 100'000;

bool IsAsciiLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// [A-Za-z_][A-Za-z0-9_]*, by hand: std::regex recurses per character of a long scalar.
bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(IsAsciiLetter(s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(IsAsciiLetter(c) || IsDigit(c) || c == '_')) return false;
  return true;
}

// YAML 1.2 core integers: [-+]?[0-9]+
bool IsIntegerText(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (!IsDigit(c)) return false;
  return true;
}

// YAML 1.2 core floats: [-+]?(digits.digits* | .digits)([eE][-+]?digits)? or [-+]?digits[eE][-+]?digits
bool IsFloatText(std::string_view s) {
  size_t i = 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  const size_t whole = digits();
  bool point = false;
  size_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    point = true;
    ++i;
    fraction = digits();
  }
  if (whole == 0 && fraction == 0) return false;
  bool exponent = false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
    exponent = true;
  }
  return i == s.size() && (point || exponent);
}

class Parser {
 public:
  Parser(std::string file, std::string base_dir) : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  Scenario Parse(const std::string& text) {
    if (text.size() > kMaxScenarioBytes)
      throw ScenarioParseError(file_ + ": larger than " + std::to_string(kMaxScenarioBytes) + " bytes");
    budget_ = text.size() + kMaxAliasExpansion;
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      throw ScenarioParseError(file_ + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
    }
    if (!root.IsMap()) Fail(root, "a scenario is a map with at least `name` and `steps`");
    Scenario sc;
    sc.file = file_;
    OnlyKeys(root, "the scenario header",
             {"name", "description", "fixtures", "clock", "seed", "reset", "as", "vars", "accounts", "steps"});
    ScenarioHeader& h = sc.header;
    h.name = Str(root, "name", "the scenario header", true);
    h.description = Str(root, "description", "the scenario header", false);
    if (YAML::Node f = root["fixtures"]; f.IsDefined() && !f.IsNull()) {
      const std::string v = ScalarText(f, "fixtures");
      if (v == "default") {
        h.fixtures = "default";
      } else {
        // Only a regular file inside the scenario's own folder (the scenario may have come over HTTP).
        try {
          h.fixtures = fixture::ResolveContainedFile(base_dir_, v, fixture::kMaxFixtureBytes);
        } catch (const fixture::FileRefError& e) {
          Fail(f, std::string("fixtures: ") + model::SafeText(e.what(), 500));
        }
      }
    }
    if (YAML::Node c = root["clock"]; c.IsDefined() && !c.IsNull()) {
      if (!c.IsMap()) Fail(c, "clock: expected a map like {start: \"2026-01-01T09:00:00.000Z\", mode: manual}");
      OnlyKeys(c, "clock", {"start", "mode"});
      if (YAML::Node s = c["start"]; s.IsDefined()) {
        auto t = model::ParseIso(ScalarText(s, "clock.start"));
        if (!t) Fail(s, "clock.start: expected an ISO 8601 UTC time like 2026-01-01T09:00:00.000Z");
        h.clockStart = *t;
      }
      if (YAML::Node m = c["mode"]; m.IsDefined()) {
        h.clockMode = ScalarText(m, "clock.mode");
        if (h.clockMode != "manual" && h.clockMode != "real") Fail(m, "clock.mode: expected manual or real");
      }
    }
    if (YAML::Node s = root["seed"]; s.IsDefined()) {
      try {
        const long long v = s.as<long long>();
        if (v < 0) throw YAML::Exception(s.Mark(), "negative");
        h.seed = static_cast<std::uint64_t>(v);
      } catch (const YAML::Exception&) {
        Fail(s, "seed: expected a non-negative whole number");
      }
    }
    if (YAML::Node r = root["reset"]; r.IsDefined()) {
      h.reset = Bool(r, "reset");
      if (!h.reset && (!h.fixtures.empty() || h.clockStart || h.seed))
        Fail(r, "reset: false keeps the running emsim's state, so fixtures, clock.start and seed cannot apply");
    }
    if (YAML::Node v = root["vars"]; v.IsDefined()) {
      if (!v.IsMap()) Fail(v, "vars: expected a map of name: value");
      for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string k = it->first.Scalar();
        if (!IsIdentifier(k)) Fail(it->first, "vars: '" + k + "' is not a variable name (letters, digits, _)");
        h.vars[k] = ToJson(it->second, false);
        defined_.insert(k);
      }
    }
    if (YAML::Node a = root["accounts"]; a.IsDefined()) {
      if (!a.IsMap()) Fail(a, "accounts: expected a map of alias: API key");
      for (auto it = a.begin(); it != a.end(); ++it) {
        const std::string k = it->first.Scalar();
        if (!IsIdentifier(k)) Fail(it->first, "accounts: '" + k + "' is not an alias (letters, digits, _)");
        h.accounts[k] = ScalarText(it->second, "accounts." + k);
      }
    }
    if (YAML::Node a = root["as"]; a.IsDefined()) h.as = ScalarText(a, "as");
    default_as_ = h.as;
    YAML::Node steps = root["steps"];
    if (!steps.IsDefined()) Fail(root, "the scenario header: `steps` is missing (a list of steps)");
    if (!steps.IsSequence() || steps.size() == 0) Fail(steps, "steps: expected a non-empty list of steps");
    sc.steps = Steps(steps, "");
    return sc;
  }

 private:
  [[noreturn]] void Fail(const YAML::Node& at, const std::string& what) const {
    std::ostringstream os;
    os << file_;
    if (at.IsDefined() && at.Mark().line >= 0) os << ":" << at.Mark().line + 1;
    os << ": " << what;
    throw ScenarioParseError(os.str());
  }

  void OnlyKeys(const YAML::Node& map, const std::string& where, const std::vector<std::string>& allowed) const {
    std::map<std::string, int> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string k = it->first.Scalar();
      // YAML parsers keep the first of two equal keys silently: a second `expect:` would be ignored.
      if (auto [at, fresh] = seen.emplace(k, it->first.Mark().line + 1); !fresh)
        Fail(it->first, where + ": duplicate key '" + k + "' (first on line " + std::to_string(at->second) + ")");
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        Fail(it->first, where + ": unknown key '" + k + "' (expected one of " + Join(allowed) + ")");
    }
  }

  std::string ScalarText(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) Fail(n, what + ": expected a single value (text), not a list or map");
    return n.Scalar();
  }

  std::string Str(const YAML::Node& parent, const char* key, const std::string& where, bool required) const {
    YAML::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (required) Fail(parent, where + ": `" + key + "` is required");
      return "";
    }
    return ScalarText(n, key);
  }

  bool Bool(const YAML::Node& n, const std::string& what) const {
    const std::string v = n.IsScalar() ? n.Scalar() : "";
    if (v == "true") return true;
    if (v == "false") return false;
    Fail(n, what + ": expected true or false");
  }

  // YAML -> JSON with YAML 1.2 core typing of plain scalars; quoted scalars stay strings.
  // Checks ${variables} against what earlier steps define, and matchers when `matchers`.
  json ToJson(const YAML::Node& n, bool matchers) { return Convert(n, matchers, "", 0); }

  // Recursive on the YAML's nesting, bounded by kMaxValueDepth (and yaml-cpp's own 500 while parsing).
  json Convert(const YAML::Node& n, bool matchers, const std::string& path, size_t depth) {
    if (depth > kMaxValueDepth)
      Fail(n, "this value nests deeper than " + std::to_string(kMaxValueDepth) + " levels");
    if (budget_ == 0)
      Fail(n, "the scenario's values expand to too many (aliases repeat more than " +
                  std::to_string(kMaxAliasExpansion) + " values)");
    --budget_;
    switch (n.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return nullptr;
      case YAML::NodeType::Sequence: {
        json a = json::array();
        for (const auto& item : n) a.push_back(Convert(item, matchers, path + "/" + std::to_string(a.size()), depth + 1));
        return a;
      }
      case YAML::NodeType::Map: {
        json o = json::object();
        bool has_dollar = false;
        for (auto it = n.begin(); it != n.end(); ++it) {
          const std::string k = it->first.Scalar();
          has_dollar = has_dollar || (!k.empty() && k[0] == '$');
          o[k] = Convert(it->second, matchers, path + "/" + k, depth + 1);
        }
        // Checked map by map, inner first, so the error names the matcher's own line.
        if (matchers && has_dollar)
          if (auto problem = CheckMatcherTree(o, path)) Fail(n, *problem);
        return o;
      }
      case YAML::NodeType::Scalar:
        break;
    }
    const std::string& s = n.Scalar();
    CheckVars(n, s);
    if (n.Tag() == "!") return s;  // quoted: always text
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    if (s == "null" || s == "Null" || s == "NULL" || s == "~") return nullptr;
    if (IsIntegerText(s)) {
      // Past int64: kept as text, as before (a long digit string is an id, not a number).
      const std::string_view digits = s[0] == '+' ? std::string_view(s).substr(1) : std::string_view(s);
      if (auto v = model::ParseInteger(digits)) return *v;
      return s;
    }
    if (IsFloatText(s)) {
      errno = 0;
      const double v = std::strtod(s.c_str(), nullptr);
      // 1e400: no JSON number can hold it (and emsim refuses past int64 anyway).
      if (!std::isfinite(v) || errno == ERANGE) Fail(n, "the number " + model::SafeText(s, 40) + " is out of range");
      return v;
    }
    return s;
  }

  // Every ${name...} must name a variable defined by the header or an earlier step.
  void CheckVars(const YAML::Node& at, const std::string& s) const {
    for (size_t i = 0; (i = s.find("${", i)) != std::string::npos;) {
      if (i > 0 && s[i - 1] == '$') {  // "$${" is a literal "${"
        i += 2;
        continue;
      }
      const size_t end = s.find('}', i);
      if (end == std::string::npos) Fail(at, "unterminated ${ in " + s + " (write $${ for a literal ${)");
      const std::string ref = s.substr(i + 2, end - i - 2);
      const std::string root = ref.substr(0, ref.find_first_of(".["));
      if (!IsIdentifier(root)) Fail(at, "${" + ref + "}: expected a variable name like ${endpointId} or ${sink.url}");
      if (!defined_.count(root)) {
        std::vector<std::string> known(defined_.begin(), defined_.end());
        Fail(at, "${" + ref + "}: no variable '" + root + "' is defined before this step (defined so far: " +
                     (known.empty() ? std::string("none") : Join(known)) +
                     "); `save`, `set`, `sink`, `tenant`, `repeat` and the header's `vars` define variables");
      }
      i = end + 1;
    }
  }

  std::string Text(const YAML::Node& n, const std::string& what) {
    const std::string s = ScalarText(n, what);
    CheckVars(n, s);
    return s;
  }

  json Map(const YAML::Node& n, const std::string& what, bool matchers = false) {
    if (!n.IsMap()) Fail(n, what + ": expected a map");
    return ToJson(n, matchers);
  }

  std::string VarName(const YAML::Node& n, const std::string& what) const {
    const std::string v = ScalarText(n, what);
    if (!IsIdentifier(v)) Fail(n, what + ": '" + v + "' is not a variable name (letters, digits, _)");
    return v;
  }

  std::vector<ScenarioStep> Steps(const YAML::Node& seq, const std::string& prefix) {
    std::vector<ScenarioStep> out;
    for (size_t i = 0; i < seq.size(); ++i) out.push_back(Step(seq[i], prefix + std::to_string(i + 1)));
    return out;
  }

  ScenarioStep Step(const YAML::Node& n, const std::string& label) {
    const std::string where = "step " + label;
    if (!n.IsMap()) Fail(n, where + ": expected a map such as {GET: /v1/workspace/list} or {advance: 5m}");
    ScenarioStep st;
    st.line = n.Mark().line + 1;
    // Which key says what the step does.
    std::vector<std::string> found;
    const KindSpec* spec = nullptr;
    std::string method;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (std::find(kMethods.begin(), kMethods.end(), k) != kMethods.end()) {
        found.push_back(k);
        method = k;
      }
      for (const auto& ks : KindSpecs())
        if (k == ks.key) {
          found.push_back(k);
          spec = &ks;
        }
    }
    if (found.size() != 1) {
      std::vector<std::string> kinds = kMethods;
      for (const auto& ks : KindSpecs()) kinds.push_back(ks.key);
      if (found.empty()) {
        // Most likely a misspelt step key: point at the first key no step kind knows.
        for (auto it = n.begin(); it != n.end(); ++it) {
          const std::string k = it->first.Scalar();
          if (std::find(kRequestSiblings.begin(), kRequestSiblings.end(), k) == kRequestSiblings.end() &&
              k != "config")
            Fail(it->first, where + ": unknown key '" + k + "'; a step needs exactly one of " + Join(kinds));
        }
        Fail(n, where + ": says nothing to do; a step needs exactly one of " + Join(kinds));
      }
      Fail(n, where + ": has " + Join(found) + "; a step does exactly one of them (split it into several steps)");
    }
    if (!method.empty()) {
      st.kind = StepKind::kRequest;
      std::vector<std::string> allowed = kRequestSiblings;
      allowed.insert(allowed.begin(), method);
      OnlyKeys(n, where + " (" + method + ")", allowed);
    } else {
      st.kind = spec->kind;
      std::vector<std::string> allowed = spec->siblings;
      allowed.push_back(spec->key);
      OnlyKeys(n, where + " (" + spec->key + ")", allowed);
    }
    if (YAML::Node nm = n["name"]; nm.IsDefined()) st.name = ScalarText(nm, "name");
    ScenarioCall& c = st.call;

    switch (st.kind) {
      case StepKind::kRequest: {
        c.method = method;
        std::string path = Text(n[method], method);
        // A link emsim handed out (paymentLink, invoiceUrl, a sink's url) may be used as is.
        if (path.empty() || (path[0] != '/' && path.rfind("${", 0) != 0 && path.rfind("http://", 0) != 0 &&
                             path.rfind("https://", 0) != 0))
          Fail(n[method], where + ": the path must start with '/' (or be a URL or a ${variable} holding one), got '" +
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
        if (YAML::Node a = n["as"]; a.IsDefined()) {
          c.as = Text(a, "as");
          if (c.as == "none") c.as.clear();
        } else if (path.rfind("/_sim", 0) != 0) {
          c.as = default_as_;
        }
        if (YAML::Node w = n["workspace"]; w.IsDefined()) c.workspace = Text(w, "workspace");
        if (YAML::Node h = n["headers"]; h.IsDefined()) c.headers = StringMap(h, where + ": headers");
        if (YAML::Node q = n["query"]; q.IsDefined()) {
          json extra = StringMap(q, where + ": query");
          for (auto& [k, v] : extra.items()) c.query[k] = v;
        }
        if (YAML::Node b = n["body"]; b.IsDefined()) c.body = ToJson(b, false);
        if (YAML::Node r = n["raw_body"]; r.IsDefined()) {
          if (c.body) Fail(r, where + ": give either body (JSON) or raw_body (text), not both");
          c.rawBody = Text(r, "raw_body");
        }
        if (YAML::Node ct = n["content_type"]; ct.IsDefined()) c.contentType = Text(ct, "content_type");
        break;
      }
      case StepKind::kAdvance: {
        const YAML::Node v = n["advance"];
        const std::string d = ScalarText(v, "advance");
        auto ms = model::ParseDuration(d);  // the one grammar (README "Durations")
        if (!ms) Fail(v, where + ": advance: " + model::DurationProblem(d));
        c.method = "POST";
        c.path = "/_sim/clock/advance";
        c.body = json{{"seconds", static_cast<double>(*ms) / model::kSecond}};
        break;
      }
      case StepKind::kAt: {
        const YAML::Node v = n["at"];
        const std::string t = Text(v, "at");
        if (t.find("${") == std::string::npos && !model::ParseIso(t))
          Fail(v, where + ": at: expected an ISO 8601 UTC time like 2026-01-02T09:00:00.000Z, got '" + t + "'");
        c.method = "PUT";
        c.path = "/_sim/clock";
        c.body = json{{"now", t}};
        break;
      }
      case StepKind::kSink:
      case StepKind::kTenant: {
        const char* key = st.kind == StepKind::kSink ? "sink" : "tenant";
        st.bind = VarName(n[key], key);
        c.method = "POST";
        c.path = st.kind == StepKind::kSink ? "/_sim/sinks" : "/_sim/tenants";
        c.body = json::object();
        if (YAML::Node cfg = n["config"]; cfg.IsDefined() && !cfg.IsNull()) c.body = Map(cfg, where + ": config");
        break;
      }
      case StepKind::kSinkUpdate: {
        const std::string var = VarName(n["update_sink"], "update_sink");
        CheckVars(n["update_sink"], "${" + var + "}");
        c.method = "PATCH";
        c.path = "/_sim/sinks/${" + var + ".id}";
        YAML::Node cfg = n["config"];
        if (!cfg.IsDefined()) Fail(n, where + ": update_sink needs `config:` with the fields to change");
        c.body = Map(cfg, where + ": config");
        break;
      }
      case StepKind::kFault: {
        c.method = "POST";
        c.path = "/_sim/faults";
        c.body = Map(n["fault"], where + ": fault");
        break;
      }
      case StepKind::kClearFaults: {
        if (!Bool(n["clear_faults"], "clear_faults")) Fail(n["clear_faults"], where + ": write clear_faults: true");
        c.method = "DELETE";
        c.path = "/_sim/faults";
        break;
      }
      case StepKind::kTransition: {
        const YAML::Node v = n["transition"];
        json body = Map(v, where + ": transition");
        if (!body.contains("domain") || !body["domain"].is_string())
          Fail(v, where + ": transition needs `domain:` (a domain id) and `status:`");
        if (!body.contains("status")) Fail(v, where + ": transition needs `status:` (e.g. ACTIVE)");
        c.method = "POST";
        c.path = "/_sim/domains/" + body["domain"].get<std::string>() + "/transition";
        body.erase("domain");
        c.body = body;
        break;
      }
      case StepKind::kWallet: {
        const YAML::Node v = n["wallet"];
        if (!v.IsMap()) Fail(v, where + ": wallet: expected {as: alice, balance: 10}");
        OnlyKeys(v, where + ": wallet", {"as", "balance"});
        if (!v["as"].IsDefined() || !v["balance"].IsDefined())
          Fail(v, where + ": wallet needs `as:` (whose wallet) and `balance:` (whole dollars)");
        c.method = "PUT";
        c.path = "/_sim/wallet";
        c.as = Text(v["as"], "as");
        c.body = json{{"balance", ToJson(v["balance"], false)}};
        break;
      }
      case StepKind::kTrigger: {
        const YAML::Node v = n["trigger"];
        if (!v.IsMap()) Fail(v, where + ": trigger: expected {type: domain.updated, as: alice, objectId: ..., data: {...}}");
        OnlyKeys(v, where + ": trigger", {"type", "as", "objectId", "data"});
        if (!v["type"].IsDefined() || !v["as"].IsDefined())
          Fail(v, where + ": trigger needs `type:` (an event type) and `as:` (whose account)");
        c.method = "POST";
        c.path = "/_sim/events";
        c.as = Text(v["as"], "as");
        json body = {{"type", Text(v["type"], "type")}};
        if (v["objectId"].IsDefined()) body["objectId"] = Text(v["objectId"], "objectId");
        if (v["data"].IsDefined()) body["data"] = Map(v["data"], where + ": trigger.data");
        c.body = body;  // the runner adds apiKey (the key behind `as`)
        break;
      }
      case StepKind::kExpectState: {
        c.method = "GET";
        c.path = "/_sim/state";
        st.expectBody = Map(n["expect_state"], where + ": expect_state", true);
        break;
      }
      case StepKind::kExpectEvents:
      case StepKind::kExpectDeliveries:
      case StepKind::kExpectNotifications:
        ParseListStep(n, st, where);
        break;
      case StepKind::kSet: {
        const YAML::Node v = n["set"];
        if (!v.IsMap()) Fail(v, where + ": set: expected a map of variable: value");
        for (auto it = v.begin(); it != v.end(); ++it) {
          const std::string k = it->first.Scalar();
          if (!IsIdentifier(k)) Fail(it->first, where + ": set: '" + k + "' is not a variable name");
          st.setVars[k] = ToJson(it->second, false);
        }
        for (auto& [k, v2] : st.setVars.items()) defined_.insert(k);
        return st;
      }
      case StepKind::kRepeat: {
        const YAML::Node v = n["repeat"];
        if (!v.IsMap()) Fail(v, where + ": repeat: expected {times: N, steps: [...]}");
        OnlyKeys(v, where + ": repeat", {"times", "var", "steps"});
        try {
          st.times = v["times"].as<int>();
        } catch (const YAML::Exception&) {
          Fail(v["times"].IsDefined() ? v["times"] : v, where + ": repeat needs `times:` (a whole number 1..10000)");
        }
        if (st.times < 1 || st.times > 10000) Fail(v["times"], where + ": repeat times must be 1..10000");
        st.loopVar = v["var"].IsDefined() ? VarName(v["var"], "var") : "i";
        defined_.insert(st.loopVar);
        YAML::Node inner = v["steps"];
        if (!inner.IsDefined() || !inner.IsSequence() || inner.size() == 0)
          Fail(inner.IsDefined() ? inner : v, where + ": repeat needs `steps:` (a non-empty list)");
        st.steps = Steps(inner, label + ".");
        return st;
      }
    }

    st.display = Display(st, n);
    if (YAML::Node e = n["expect"]; e.IsDefined()) ParseExpect(e, st, where);
    if (!st.bind.empty()) defined_.insert(st.bind);
    if (YAML::Node s = n["save"]; s.IsDefined()) {
      if (!s.IsMap()) Fail(s, where + ": save: expected a map of variable: path (/data/id or data.id)");
      for (auto it = s.begin(); it != s.end(); ++it) {
        const std::string var = it->first.Scalar();
        if (!IsIdentifier(var)) Fail(it->first, where + ": save: '" + var + "' is not a variable name");
        st.save.emplace_back(var, ScalarText(it->second, "save." + var));
      }
      for (const auto& [var, path] : st.save) defined_.insert(var);
    }
    return st;
  }

  static std::string Plain(const json& v) { return v.is_string() ? v.get<std::string>() : Brief(v, 60); }

  // The report's one-line description of a step (before variables are filled in).
  static std::string Display(const ScenarioStep& st, const YAML::Node& n) {
    const ScenarioCall& c = st.call;
    const std::string kind = ToString(st.kind);
    auto brief = [](const std::optional<json>& b) { return b && !b->empty() ? " " + Brief(*b, 80) : std::string(); };
    switch (st.kind) {
      case StepKind::kRequest: return c.method + " " + c.path;
      case StepKind::kAdvance: return "advance " + n["advance"].Scalar();
      case StepKind::kAt: return "at " + n["at"].Scalar();
      case StepKind::kSink: return "sink " + st.bind + brief(c.body);
      case StepKind::kTenant: return "tenant " + st.bind + brief(c.body);
      case StepKind::kSinkUpdate: return "update_sink " + n["update_sink"].Scalar() + brief(c.body);
      case StepKind::kFault: return "fault" + brief(c.body);
      case StepKind::kClearFaults: return "clear_faults";
      case StepKind::kTransition:
        return "transition " + n["transition"]["domain"].Scalar() + " -> " + Plain(c.body->value("status", json()));
      case StepKind::kWallet: return "wallet of " + c.as + " = " + (*c.body)["balance"].dump();
      case StepKind::kTrigger: return "trigger " + c.body->value("type", "") + (c.body->contains("objectId") ? " on " + (*c.body)["objectId"].get<std::string>() : "");
      case StepKind::kExpectState: {
        std::string keys;
        for (const auto& [k, v] : st.expectBody->items()) keys += (keys.empty() ? " " : ", ") + k;
        return "expect_state" + keys;
      }
      case StepKind::kExpectEvents:
      case StepKind::kExpectDeliveries:
      case StepKind::kExpectNotifications: {
        std::string d = kind;
        for (const auto& [k, v] : st.list.filter.items()) d += " " + (k[0] == '$' ? k.substr(1) : k) + "=" + Plain(v);
        if (!st.sinkVar.empty()) d += " sink=" + st.sinkVar;
        return d;
      }
      case StepKind::kSet:
      case StepKind::kRepeat: return kind;
    }
    return kind;
  }

  json StringMap(const YAML::Node& n, const std::string& what) {
    if (!n.IsMap()) Fail(n, what + ": expected a map of name: value");
    json out = json::object();
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->second.IsScalar()) Fail(it->second, what + ": " + it->first.Scalar() + " must be a single value");
      out[it->first.Scalar()] = Text(it->second, it->first.Scalar());
    }
    return out;
  }

  void ParseExpect(const YAML::Node& e, ScenarioStep& st, const std::string& where) {
    if (e.IsScalar()) {  // expect: 404
      st.expectStatus = ToJson(e, true);
      if (!st.expectStatus.is_number_integer()) Fail(e, where + ": expect: a bare value is the status (e.g. 404)");
      return;
    }
    if (!e.IsMap()) Fail(e, where + ": expect: expected {status: 200, body: {...}, headers: {...}}");
    OnlyKeys(e, where + ": expect", {"status", "body", "headers"});
    if (YAML::Node s = e["status"]; s.IsDefined()) {
      st.expectStatus = ToJson(s, true);
      if (!st.expectStatus.is_number_integer() && !IsMatcher(st.expectStatus))
        Fail(s, where + ": expect.status: expected a status code or a matcher like {$gte: 400}");
    }
    if (YAML::Node b = e["body"]; b.IsDefined()) st.expectBody = ToJson(b, true);
    if (YAML::Node h = e["headers"]; h.IsDefined()) {
      if (!h.IsMap()) Fail(h, where + ": expect.headers: expected a map of header: value");
      json hs = ToJson(h, true);
      for (auto& [k, v] : hs.items()) {
        std::string lower = k;
        for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        st.expectHeaders[lower] = v;
      }
    }
  }

  // expect_events / expect_deliveries / expect_notifications: select from a /_sim list, then check.
  void ParseListStep(const YAML::Node& n, ScenarioStep& st, const std::string& where) {
    const char* key = ToString(st.kind);
    const YAML::Node v = n[key];
    if (!v.IsMap()) Fail(v, where + ": " + key + ": expected a map (see scenarios/README.md)");
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
    OnlyKeys(v, where + ": " + key, allowed);
    ListCheck& l = st.list;
    if (YAML::Node w = v["where"]; w.IsDefined()) l.filter = Map(w, where + ": where", true);
    if (YAML::Node t = v["type"]; t.IsDefined()) l.filter["type"] = Text(t, "type");
    if (YAML::Node a = v["as"]; a.IsDefined()) c.as = Text(a, "as");
    if (YAML::Node e = v["event"]; e.IsDefined()) l.filter["$event"] = Text(e, "event");
    if (YAML::Node e = v["endpoint"]; e.IsDefined()) l.filter["$endpoint"] = Text(e, "endpoint");
    if (YAML::Node s = v["sink"]; s.IsDefined()) {
      st.sinkVar = VarName(s, "sink");
      CheckVars(s, "${" + st.sinkVar + "}");
    }
    if (YAML::Node cnt = v["count"]; cnt.IsDefined()) {
      l.count = ToJson(cnt, true);
      if (!l.count->is_number_integer() && !IsMatcher(*l.count) && !l.count->is_string())
        Fail(cnt, where + ": count: expected a whole number or a matcher like {$gte: 1}");
    }
    if (YAML::Node it = v["items"]; it.IsDefined()) {
      if (!it.IsSequence()) Fail(it, where + ": items: expected a list (matched by position)");
      l.items = ToJson(it, true);
    }
    if (YAML::Node ct = v["contains"]; ct.IsDefined()) {
      if (!ct.IsSequence()) Fail(ct, where + ": contains: expected a list (matched in any order)");
      l.contains = ToJson(ct, true);
    }
    if (YAML::Node a = v["attempts_after_event"]; a.IsDefined()) {
      if (!a.IsSequence()) Fail(a, where + ": attempts_after_event: expected a list of durations like [0s, 1m, 6m]");
      json offsets = json::array();
      for (const auto& d : a) {
        const std::string text = ScalarText(d, "attempts_after_event");
        auto ms = model::ParseDuration(text);
        if (!ms) Fail(d, where + ": attempts_after_event: " + model::DurationProblem(text));
        offsets.push_back(*ms);
      }
      st.attemptOffsets = offsets;
    }
    if (YAML::Node s = v["signature_verified"]; s.IsDefined()) {
      st.signatureVerified = Bool(s, "signature_verified");
      if (st.sinkVar.empty()) Fail(s, where + ": signature_verified needs `sink:` (the sink that recorded the requests)");
    }
    if (!l.count && !l.items && !l.contains && !st.attemptOffsets && !st.signatureVerified)
      Fail(v, where + ": " + key + " checks nothing; give count, items, contains" +
                  (st.kind == StepKind::kExpectDeliveries ? ", attempts_after_event or signature_verified" : ""));
  }

  std::string file_, base_dir_;
  size_t budget_ = 0;  // values Convert may still produce (kMaxAliasExpansion)
  std::string default_as_;
  std::set<std::string> defined_;
};

}  // namespace

Scenario ParseScenarioText(const std::string& yaml_text, const std::string& name, const std::string& base_dir) {
  return Parser(name, base_dir).Parse(yaml_text);
}

Scenario ParseScenarioFile(const std::string& path) {
  std::string text;
  try {
    text = fixture::ReadRegularFile(path, kMaxScenarioBytes);
  } catch (const fixture::FileRefError& e) {
    throw ScenarioParseError(e.what());
  }
  const auto dir = std::filesystem::path(path).parent_path();
  return ParseScenarioText(text, path, dir.empty() ? "." : dir.string());
}

}  // namespace emsim::scenario
