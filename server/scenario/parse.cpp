#include "scenario/parse.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/json_limits.hpp"
#include "fixture/contained_file.hpp"
#include "fixture/fixtures.hpp"
#include "scenario/match.hpp"
#include "scenario/reader.hpp"
#include "scenario/step_kinds.hpp"

namespace emsim::scenario {

namespace {

// Limits before work (STYLE.md habit 11): a scenario can come over HTTP (POST /_sim/scenarios/run).
constexpr size_t kMaxScenarioBytes = 4 * 1024 * 1024;
// Values a scenario sends become request bodies, which emsim refuses past this depth anyway.
constexpr size_t kMaxValueDepth = model::kRequestJsonLimits.maxDepth;
// The YAML tree shares an aliased node; converting it to JSON copies it once per alias. The copies
// of the whole document together may not pass this many values (a 536-byte "billion laughs" would
// otherwise grow to gigabytes), beyond one value per byte of the file.
constexpr size_t kMaxAliasExpansion = 100'000;

bool IsAsciiLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

// [A-Za-z_][A-Za-z0-9_]*, by hand: std::regex recurses per character of a long scalar.
bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(IsAsciiLetter(s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(IsAsciiLetter(c) || IsDigit(c) || c == '_')) return false;
  return true;
}

std::string JoinNames(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// ---- the file and its header ---------------------------------------------------------------------

Scenario Reader::Parse(const std::string& text) {
  if (text.size() > kMaxScenarioBytes)
    throw ScenarioParseError(file_ + ": larger than " + std::to_string(kMaxScenarioBytes) + " bytes");
  budget_ = text.size() + kMaxAliasExpansion;
  std::optional<yaml::Document> doc;
  try {
    doc.emplace(yaml::Document::Parse(text));
  } catch (const yaml::ParseError& e) {
    throw ScenarioParseError(file_ + ":" + std::to_string(e.line + 1) + ": not valid YAML: " + e.what());
  }
  const yaml::Node root = doc->Root();
  if (!root.IsMap()) Fail(root, "a scenario is a map with at least `name` and `steps`");
  Scenario sc;
  sc.file = file_;
  sc.header = Header(root);
  yaml::Node steps = root["steps"];
  if (!steps.IsDefined()) Fail(root, "the scenario header: `steps` is missing (a list of steps)");
  if (!steps.IsSequence() || steps.size() == 0) Fail(steps, "steps: expected a non-empty list of steps");
  sc.steps = Steps(steps, "");
  return sc;
}

ScenarioHeader Reader::Header(const yaml::Node& root) {
  OnlyKeys(root, "the scenario header",
           {"name", "description", "fixtures", "clock", "seed", "reset", "as", "vars", "accounts", "steps"});
  ScenarioHeader h;
  const auto text = [&](const char* key, bool required) {
    yaml::Node n = root[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (required) Fail(root, std::string("the scenario header: `") + key + "` is required");
      return std::string();
    }
    return ScalarText(n, key);
  };
  h.name = text("name", true);
  h.description = text("description", false);
  if (yaml::Node f = root["fixtures"]; f.IsDefined() && !f.IsNull()) {
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
  if (yaml::Node c = root["clock"]; c.IsDefined() && !c.IsNull()) {
    if (!c.IsMap()) Fail(c, "clock: expected a map like {start: \"2026-01-01T09:00:00.000Z\", mode: manual}");
    OnlyKeys(c, "clock", {"start", "mode"});
    if (yaml::Node s = c["start"]; s.IsDefined()) {
      auto t = model::ParseIso(ScalarText(s, "clock.start"));
      if (!t) Fail(s, "clock.start: expected an ISO 8601 UTC time like 2026-01-01T09:00:00.000Z");
      h.clockStart = *t;
    }
    if (yaml::Node m = c["mode"]; m.IsDefined()) {
      h.clockMode = ScalarText(m, "clock.mode");
      if (h.clockMode != "manual" && h.clockMode != "real") Fail(m, "clock.mode: expected manual or real");
    }
  }
  if (yaml::Node s = root["seed"]; s.IsDefined()) {
    const auto v = s.AsInt();
    if (!v || *v < 0) Fail(s, "seed: expected a non-negative whole number");
    h.seed = static_cast<std::uint64_t>(*v);
  }
  if (yaml::Node r = root["reset"]; r.IsDefined()) {
    h.reset = Bool(r, "reset");
    if (!h.reset && (!h.fixtures.empty() || h.clockStart || h.seed))
      Fail(r, "reset: false keeps the running emsim's state, so fixtures, clock.start and seed cannot apply");
  }
  if (yaml::Node v = root["vars"]; v.IsDefined()) {
    if (!v.IsMap()) Fail(v, "vars: expected a map of name: value");
    for (size_t e = 0; e < v.size(); ++e) {
      const std::string k = v.Key(e).Scalar();
      if (!IsIdentifier(k)) Fail(v.Key(e), "vars: '" + k + "' is not a variable name (letters, digits, _)");
      h.vars[k] = ToJson(v.Value(e), false);
      defined_.insert(k);
    }
  }
  if (yaml::Node a = root["accounts"]; a.IsDefined()) {
    if (!a.IsMap()) Fail(a, "accounts: expected a map of alias: API key");
    for (size_t e = 0; e < a.size(); ++e) {
      const std::string k = a.Key(e).Scalar();
      if (!IsIdentifier(k)) Fail(a.Key(e), "accounts: '" + k + "' is not an alias (letters, digits, _)");
      h.accounts[k] = ScalarText(a.Value(e), "accounts." + k);
    }
  }
  if (yaml::Node a = root["as"]; a.IsDefined()) h.as = ScalarText(a, "as");
  default_as_ = h.as;
  return h;
}

// ---- reading tools ---------------------------------------------------------------------------------

void Reader::Fail(const yaml::Node& at, const std::string& what) const {
  std::ostringstream os;
  os << file_;
  if (at.IsDefined() && at.Line() >= 0) os << ":" << at.Line() + 1;
  os << ": " << what;
  throw ScenarioParseError(os.str());
}

void Reader::OnlyKeys(const yaml::Node& map, const std::string& where, const std::vector<std::string>& allowed) const {
  std::map<std::string, int> seen;
  for (size_t e = 0; e < map.size(); ++e) {
    const yaml::Node key = map.Key(e);
    const std::string k = key.Scalar();
    // YAML parsers keep the first of two equal keys silently: a second `expect:` would be ignored.
    if (auto [at, fresh] = seen.emplace(k, key.Line() + 1); !fresh)
      Fail(key, where + ": duplicate key '" + k + "' (first on line " + std::to_string(at->second) + ")");
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      Fail(key, where + ": unknown key '" + k + "' (expected one of " + JoinNames(allowed) + ")");
  }
}

std::string Reader::ScalarText(const yaml::Node& n, const std::string& what) const {
  if (!n.IsScalar()) Fail(n, what + ": expected a single value (text), not a list or map");
  return n.Scalar();
}

bool Reader::Bool(const yaml::Node& n, const std::string& what) const {
  const std::string v = n.IsScalar() ? n.Scalar() : "";
  if (v == "true") return true;
  if (v == "false") return false;
  Fail(n, what + ": expected true or false");
}

json Reader::ToJson(const yaml::Node& n, bool matchers) { return Convert(n, matchers, "", 0); }

// Recursive on the YAML's nesting, bounded by kMaxValueDepth (checked before going deeper).
json Reader::Convert(const yaml::Node& n, bool matchers, const std::string& path, size_t depth) {
  if (depth > kMaxValueDepth)
    Fail(n, "this value nests deeper than " + std::to_string(kMaxValueDepth) + " levels");
  if (budget_ == 0)
    Fail(n, "the scenario's values expand to too many (aliases repeat more than " +
                std::to_string(kMaxAliasExpansion) + " values)");
  --budget_;
  if (!n.IsDefined() || n.IsNull()) return nullptr;
  if (n.IsSequence()) {
    json a = json::array();
    for (size_t i = 0; i < n.size(); ++i) a.push_back(Convert(n[i], matchers, path + "/" + std::to_string(i), depth + 1));
    return a;
  }
  if (n.IsMap()) {
    json o = json::object();
    bool has_dollar = false;
    for (size_t e = 0; e < n.size(); ++e) {
      const std::string k = n.Key(e).Scalar();
      has_dollar = has_dollar || (!k.empty() && k[0] == '$');
      o[k] = Convert(n.Value(e), matchers, path + "/" + k, depth + 1);
    }
    // Checked map by map, inner first, so the error names the matcher's own line.
    if (matchers && has_dollar)
      if (auto problem = CheckMatcherTree(o, path)) Fail(n, *problem);
    return o;
  }
  const std::string& s = n.Scalar();
  CheckVars(n, s);
  try {
    return yaml::TypedScalar(n);  // the core schema, as a state file written as YAML is read
  } catch (const yaml::ParseError& e) {
    Fail(n, e.what());
  }
}

void Reader::CheckVars(const yaml::Node& at, const std::string& s) const {
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
                   (known.empty() ? std::string("none") : JoinNames(known)) +
                   "); `save`, `set`, `sink`, `tenant`, `repeat` and the header's `vars` define variables");
    }
    i = end + 1;
  }
}

std::string Reader::Text(const yaml::Node& n, const std::string& what) {
  const std::string s = ScalarText(n, what);
  CheckVars(n, s);
  return s;
}

json Reader::Map(const yaml::Node& n, const std::string& what, bool matchers) {
  if (!n.IsMap()) Fail(n, what + ": expected a map");
  return ToJson(n, matchers);
}

json Reader::StringMap(const yaml::Node& n, const std::string& what) {
  if (!n.IsMap()) Fail(n, what + ": expected a map of name: value");
  json out = json::object();
  for (size_t e = 0; e < n.size(); ++e) {
    const std::string k = n.Key(e).Scalar();
    if (!n.Value(e).IsScalar()) Fail(n.Value(e), what + ": " + k + " must be a single value");
    out[k] = Text(n.Value(e), k);
  }
  return out;
}

std::string Reader::VarName(const yaml::Node& n, const std::string& what) const {
  const std::string v = ScalarText(n, what);
  if (!IsIdentifier(v)) Fail(n, what + ": '" + v + "' is not a variable name (letters, digits, _)");
  return v;
}

// ---- steps -------------------------------------------------------------------------------------------

std::vector<ScenarioStep> Reader::Steps(const yaml::Node& seq, const std::string& prefix) {
  std::vector<ScenarioStep> out;
  for (size_t i = 0; i < seq.size(); ++i) out.push_back(Step(seq[i], prefix + std::to_string(i + 1)));
  return out;
}

ScenarioStep Reader::Step(const yaml::Node& n, const std::string& label) {
  const std::string where = "step " + label;
  if (!n.IsMap()) Fail(n, where + ": expected a map such as {GET: /v1/workspace/list} or {advance: 5m}");
  ScenarioStep st;
  st.line = n.Line() + 1;
  // Which key says what the step does: an HTTP method, or a kind's key (step_kinds.cpp).
  const auto& methods = RequestMethods();
  std::vector<std::string> found;
  const StepKindSpec* spec = nullptr;
  std::string method;
  for (size_t e = 0; e < n.size(); ++e) {
    const std::string k = n.Key(e).Scalar();
    if (std::find(methods.begin(), methods.end(), k) != methods.end()) {
      found.push_back(k);
      method = k;
      spec = &SpecOf(StepKind::kRequest);
    }
    for (const auto& ks : StepKinds())
      if (ks.kind != StepKind::kRequest && k == ks.key) {
        found.push_back(k);
        spec = &ks;
      }
  }
  const StepKindSpec& request = SpecOf(StepKind::kRequest);
  if (found.size() != 1) {
    std::vector<std::string> kinds = methods;
    for (const auto& ks : StepKinds())
      if (ks.kind != StepKind::kRequest) kinds.push_back(ks.key);
    if (found.empty()) {
      // Most likely a misspelt step key: point at the first key no step kind knows.
      for (size_t e = 0; e < n.size(); ++e) {
        const std::string k = n.Key(e).Scalar();
        if (std::find(request.siblings.begin(), request.siblings.end(), k) == request.siblings.end() && k != "config")
          Fail(n.Key(e), where + ": unknown key '" + k + "'; a step needs exactly one of " + JoinNames(kinds));
      }
      Fail(n, where + ": says nothing to do; a step needs exactly one of " + JoinNames(kinds));
    }
    Fail(n, where + ": has " + JoinNames(found) + "; a step does exactly one of them (split it into several steps)");
  }
  st.kind = spec->kind;
  std::vector<std::string> allowed = spec->siblings;
  const std::string key = method.empty() ? spec->key : method;
  if (method.empty()) allowed.push_back(key);
  else allowed.insert(allowed.begin(), key);
  OnlyKeys(n, where + " (" + key + ")", allowed);
  if (yaml::Node nm = n["name"]; nm.IsDefined()) st.name = ScalarText(nm, "name");
  st.call.method = method;
  spec->parse(*this, n, st, label, where);
  if (!spec->sendsCall) return st;

  st.display = spec->display(st, n);
  if (yaml::Node e = n["expect"]; e.IsDefined()) ParseExpect(e, st, where);
  if (!st.bind.empty()) defined_.insert(st.bind);
  if (yaml::Node s = n["save"]; s.IsDefined()) {
    if (!s.IsMap()) Fail(s, where + ": save: expected a map of variable: path (/data/id or data.id)");
    for (size_t e = 0; e < s.size(); ++e) {
      const std::string var = s.Key(e).Scalar();
      if (!IsIdentifier(var)) Fail(s.Key(e), where + ": save: '" + var + "' is not a variable name");
      st.save.emplace_back(var, ScalarText(s.Value(e), "save." + var));
    }
    for (const auto& [var, path] : st.save) defined_.insert(var);
  }
  return st;
}

void Reader::ParseExpect(const yaml::Node& e, ScenarioStep& st, const std::string& where) {
  if (e.IsScalar()) {  // expect: 404
    st.expectStatus = ToJson(e, true);
    if (!st.expectStatus.is_number_integer()) Fail(e, where + ": expect: a bare value is the status (e.g. 404)");
    return;
  }
  if (!e.IsMap()) Fail(e, where + ": expect: expected {status: 200, body: {...}, headers: {...}}");
  OnlyKeys(e, where + ": expect", {"status", "body", "headers"});
  if (yaml::Node s = e["status"]; s.IsDefined()) {
    st.expectStatus = ToJson(s, true);
    if (!st.expectStatus.is_number_integer() && !IsMatcher(st.expectStatus))
      Fail(s, where + ": expect.status: expected a status code or a matcher like {$gte: 400}");
  }
  if (yaml::Node b = e["body"]; b.IsDefined()) st.expectBody = ToJson(b, true);
  if (yaml::Node h = e["headers"]; h.IsDefined()) {
    if (!h.IsMap()) Fail(h, where + ": expect.headers: expected a map of header: value");
    json hs = ToJson(h, true);
    for (auto& [k, v] : hs.items()) {
      std::string lower = k;
      for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      st.expectHeaders[lower] = v;
    }
  }
}

// ---- entry points ------------------------------------------------------------------------------------

Scenario ParseScenarioText(const std::string& yaml_text, const std::string& name, const std::string& base_dir) {
  return Reader(name, base_dir).Parse(yaml_text);
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
