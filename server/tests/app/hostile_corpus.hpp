#pragma once
// The generator of the hostile-request corpus (hostile_requests_test.cpp): from the route table and
// each operation's request schema, a deterministic list of malformed requests for a seed.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "api/routes.hpp"
#include "app/route.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing::hostile {

struct Case {
  std::string name;         // "<operationId> <category>: <detail>", unique
  std::string op;           // operation id of the route the case aims at
  std::string method;
  std::string path;         // with its query string, percent-encoded as sent
  std::string body;         // "" = none
  std::string contentType;  // "" = no Content-Type header
  std::string apiKey;       // "" = no x-auth-service header
  httplib::Headers headers;
};

inline std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The route's pattern with every ":param" replaced.
inline std::string Concrete(const std::string& pattern, const std::string& id) {
  std::string out;
  for (const auto& seg : app::SplitPath(pattern)) out += "/" + (seg[0] == ':' ? id : seg);
  return out;
}

// j[key] when j is an object that has it (a schema may be `true`, or a property without keywords).
inline json Field(const json& j, const char* key, json fallback) {
  return j.is_object() && j.contains(key) ? j[key] : fallback;
}

inline std::string JsonTypeOf(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

// Whether `v` has one of the JSON Schema types `type` allows ("integer" is also a "number").
inline bool TypeAllows(const json& type, const json& v) {
  const std::string t = JsonTypeOf(v);
  auto one = [&](const std::string& allowed) { return allowed == t || (allowed == "number" && t == "integer"); };
  if (type.is_string()) return one(type.get<std::string>());
  if (type.is_array()) {
    for (const auto& a : type)
      if (a.is_string() && one(a.get<std::string>())) return true;
  }
  return !type.is_string() && !type.is_array();
}

inline std::string Repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

inline std::string DeepArray(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }
inline std::string DeepObject(size_t depth) { return Repeat("{\"a\":", depth) + "1" + std::string(depth, '}'); }

// Values of each JSON type, to put where the schema wants another.
inline const std::vector<std::pair<std::string, json>>& TypedProbes() {
  static const std::vector<std::pair<std::string, json>> kProbes = {
      {"integer", 123}, {"number", 1.5}, {"string", "text"}, {"boolean", true},
      {"null", nullptr}, {"array", json::array({1, "x"})}, {"object", json{{"k", "v"}}}};
  return kProbes;
}

// Query values a pattern or an enum of a query parameter should refuse (checked against the
// pattern below before use, so a probe that happens to match is not sent).
inline const std::vector<std::pair<std::string, std::string>>& QueryProbes() {
  static const std::vector<std::pair<std::string, std::string>> kProbes = {
      {"letters", "abc"},
      {"negative", "-1"},
      {"huge-integer", "99999999999999999999999999"},
      {"exponent", "1e3"},
      {"hex", "0x10"},
      {"spaces", "%201%20"},
      {"nul-byte", "1%00"},
      {"bad-utf8", "%FF%FE"},
      {"long", Repeat("9", 5000)},
  };
  return kProbes;
}

// A seeded generator of the cases, route by route.
class Generator {
 public:
  Generator(schema::Registry& schemas, std::uint64_t seed)
      : schemas_(schemas), routes_(api::Routes(schemas.Operations())), rng_(seed) {}

  const std::vector<app::Route>& Routes() const { return routes_; }

  std::vector<Case> All() {
    std::set<std::string> patterns;
    for (const auto& r : routes_) patterns.insert(r.pattern);
    for (const auto& r : routes_) ForRoute(r);
    for (const auto& p : patterns) ForPath(p);
    return Take();
  }

  // Called once the baseline dump is known: corrupted whole-state documents for PUT /_sim/state.
  void StateDocuments(const json& baseline) {
    for (const auto& [key, value] : baseline.items()) {
      if (!value.is_array() && !value.is_object()) continue;
      for (const auto& [what, bad] : std::vector<std::pair<std::string, json>>{{"number", 42}, {"string", "x"}}) {
        json doc = baseline;
        doc[key] = bad;
        Add(Control("sim.state.put", "PUT", "/_sim/state", "state-document", key + " replaced by a " + what, doc.dump()));
      }
      // A record of the section that is not a record, at the end, after the valid ones.
      if (value.is_array() && !value.empty()) {
        json doc = baseline;
        doc[key].push_back(42);
        Add(Control("sim.state.put", "PUT", "/_sim/state", "state-document", key + " ends with a number", doc.dump()));
      }
      if (value.is_array() && !value.empty() && value.back().is_object()) {
        // A reference to nothing or a field of the wrong type in the last record of the section.
        for (const auto& [field, fv] : value.back().items()) {
          if (!fv.is_string() && !fv.is_number()) continue;
          json doc = baseline;
          doc[key].back()[field] = json::array({json::object()});
          Add(Control("sim.state.put", "PUT", "/_sim/state", "state-document",
                      key + "[last]." + field + " is an array", doc.dump()));
        }
      }
    }
    Add(Control("sim.state.put", "PUT", "/_sim/state", "state-document", "an array", "[]"));
    Add(Control("sim.state.put", "PUT", "/_sim/state", "state-document", "a string", "\"state\""));
  }

  std::vector<Case> Take() {
    std::vector<Case> out;
    out.swap(cases_);
    return out;
  }

 private:
  Case Control(const std::string& op, const std::string& method, const std::string& path, const std::string& category,
               const std::string& detail, std::string body, std::string content_type = "application/json") {
    Case c;
    c.op = op;
    c.method = method;
    c.path = path;
    c.name = op + " " + category + ": " + detail;
    c.body = std::move(body);
    c.contentType = c.body.empty() ? "" : std::move(content_type);
    return c;
  }

  void Add(Case c) {
    // Names are unique so the known-failures list can name a case exactly.
    if (!names_.insert(c.name).second) {
      int n = 2;
      while (!names_.insert(c.name + " #" + std::to_string(n)).second) ++n;
      c.name += " #" + std::to_string(n);
    }
    cases_.push_back(std::move(c));
  }

  // Every method no route of `pattern` serves: 405.
  void ForPath(const std::string& pattern) {
    std::set<std::string> served;
    std::string op;
    for (const auto& r : routes_)
      if (pattern == r.pattern) {
        served.insert(r.method);
        if (op.empty()) op = r.operationId;
      }
    for (const std::string m : {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
      if (served.count(m)) continue;
      Case c = Control(op, m, Concrete(pattern, "id_0"), "wrong-method", m, m == "GET" || m == "OPTIONS" ? "" : "{}");
      c.apiKey = kAliceKey;
      Add(std::move(c));
    }
  }

  void ForRoute(const app::Route& r) {
    const std::string op = r.operationId;
    const bool is_get = std::string(r.method) == "GET";
    const bool is_public = r.access != app::Access::kControl;
    const bool has_param = std::string(r.pattern).find(':') != std::string::npos;
    const json& schema = schemas_.Resolved("requests/" + op);
    const json props = Field(schema, "properties", json::object());
    const json body_schema = Field(props, "body", json::object());
    const json query_schema = Field(props, "query", json::object());
    const bool needs_body = schema.contains("required") && schema["required"].is_array() &&
                            std::find(schema["required"].begin(), schema["required"].end(), "body") != schema["required"].end();
    const std::string path = Concrete(r.pattern, "id_does_not_exist");
    auto base = [&](const std::string& category, const std::string& detail, std::string body,
                    std::string content_type = "application/json") {
      // Control routes ignore the key, except those that act for an account (/_sim/wallet).
      Case c = Control(op, r.method, path, category, detail, std::move(body), std::move(content_type));
      c.apiKey = kAliceKey;
      return c;
    };
    // An id no record has (every case below uses one too): a 404, or a 400 for the body first.
    if (has_param) {
      Add(base("unknown-id", "no such id", is_get ? "" : "{}"));
      Case bad = base("bad-utf8", "in the path's id", is_get ? "" : "{}");
      bad.path = Concrete(r.pattern, "id%FF%FE");
      Add(std::move(bad));
    }
    {
      Case longer = base("unknown-path", "extra segment", "");
      longer.path += "/zz-no-such-thing";
      Add(std::move(longer));
    }

    // ---- authentication (Part 5) ---------------------------------------------------------------
    if (is_public) {
      const std::string body = is_get ? "" : "{}";
      Case none = base("auth", "no x-auth-service", body);
      none.apiKey.clear();
      Add(std::move(none));
      for (const auto& [what, key] : std::vector<std::pair<std::string, std::string>>{
               {"unknown key", "emsim_test_nobody_00000000"},
               {"empty-looking key", " "},
               {"key of 6000 characters", Repeat("k", 6000)},
               {"key with bad UTF-8", "emsim_\xff\xfe_key"},
               {"key with a quote and backslash", "a\"b\\c"},
               {"another account's key with a suffix", std::string(kAliceKey) + "x"}}) {
        Case c = base("auth", what, body);
        c.apiKey = key;
        Add(std::move(c));
      }
      Case provider = base("header", "x-service-provider YAHOO", body);
      provider.headers.emplace("x-service-provider", "YAHOO");
      Add(std::move(provider));
      Case provider_utf8 = base("header", "x-service-provider with bad UTF-8", body);
      provider_utf8.headers.emplace("x-service-provider", "GOOGLE\xc3\x28");
      Add(std::move(provider_utf8));
      if (r.access == app::Access::kWorkspace) {
        for (const auto& [what, value] : std::vector<std::pair<std::string, std::string>>{
                 {"unknown x-workspace-key", "ws_does_not_exist"},
                 {"x-workspace-key with bad UTF-8", "ws_\xff\xfe"},
                 {"x-workspace-key of 6000 characters", Repeat("w", 6000)},
                 {"bob's workspace with alice's key", "ws_lumen"}}) {
          Case c = base("header", what, body);
          c.headers.emplace("x-workspace-key", value);
          Add(std::move(c));
        }
        Case id = base("header", "unknown x-workspace-id", body);
        id.headers.emplace("x-workspace-id", "ws_nope");
        Add(std::move(id));
      }
      // Part 7: the size limit of the public API (--max-body-bytes, 1 MiB by default).
      if (!is_get) Add(base("huge", "body of 2 MiB", "{\"pad\":\"" + std::string(2u << 20, 'x') + "\"}"));
    }

    // ---- query (schema's query properties) ------------------------------------------------------
    const json qprops = Field(query_schema, "properties", json::object());
    for (const auto& [name, p] : qprops.items()) {
      const bool constrained = p.contains("pattern") || p.contains("enum");
      for (const auto& [what, raw] : QueryProbes()) {
        if (!constrained && what != "bad-utf8") continue;
        if (constrained && Allowed(p, Decode(raw))) continue;
        Add(WithQuery(base("query", name + " " + what, is_get ? "" : "{}"), name + "=" + raw));
      }
      if (constrained) Add(WithQuery(base("query", name + " given twice", is_get ? "" : "{}"), name + "=1&" + name + "=2"));
    }
    if (query_schema.contains("additionalProperties") && query_schema["additionalProperties"] != true)
      Add(WithQuery(base("query", "unknown parameter", is_get ? "" : "{}"), "zzUnknown=1"));

    if (is_get) return;  // httplib reads no body of a GET: the rest is about bodies

    // ---- content type ---------------------------------------------------------------------------
    const std::string some_body = r.body == app::BodyFormat::kYaml ? "name: x\n" : "{}";
    for (const std::string ct : {"text/plain", "application/xml", "application/jsonx", "multipart/form-data; boundary=x",
                                 "application/x-www-form-urlencoded", "json", "application/json\xff"}) {
      if (r.body == app::BodyFormat::kYaml && ct == "application/json") continue;
      Add(base("content-type", ct, some_body, ct));
    }
    Add(base("content-type", "none", some_body, ""));

    if (r.body == app::BodyFormat::kYaml) {
      YamlCases(base);
      return;
    }

    // ---- malformed JSON ---------------------------------------------------------------------------
    for (const auto& [what, text] : std::vector<std::pair<std::string, std::string>>{
             {"open brace", "{"},
             {"close brace", "}"},
             {"missing value", "{\"a\":}"},
             {"missing colon", "{\"a\" 1}"},
             {"unclosed array", "[1,2"},
             {"extra brace", "{\"a\":1}}"},
             {"single quotes", "{'a':1}"},
             {"bare word", "nul"},
             {"NaN", "{\"a\":NaN}"},
             {"Infinity", "{\"a\":Infinity}"},
             {"leading zero", "{\"a\":01}"},
             {"unterminated string", "{\"a\":\"abc"},
             {"short unicode escape", "{\"a\":\"\\u12\"}"},
             {"unknown escape", "{\"a\":\"\\x41\"}"},
             {"lone surrogate escape pair", "{\"a\":\"\\ud800\\u0041\"}"},
             {"trailing comma", "{\"a\":1,}"},
             {"two documents", "{} {}"},
             {"NUL before the document", std::string("\0{}", 3)},
             {"control character in a string", "{\"a\":\"x\x01y\"}"},
             {"comment", "{/*c*/}"}}) {
      Add(base("malformed-json", what, text));
    }
    // Random truncations: a proper prefix of an object's text is never a complete document.
    const std::string full = RandomObject(body_schema);
    for (int i = 0; i < 8; ++i) {
      std::uniform_int_distribution<size_t> cut(1, full.size() - 1);
      const size_t at = cut(rng_);
      Add(base("malformed-json", "truncated at " + std::to_string(at) + " of " + std::to_string(full.size()),
               full.substr(0, at)));
    }

    // ---- invalid UTF-8 (Part 7: a 400; messages must not echo it raw) ----------------------------
    for (const auto& [what, bytes] : std::vector<std::pair<std::string, std::string>>{
             {"lone continuation byte", "\x80"},
             {"0xFF", "\xff\xfe"},
             {"truncated sequence", "\xc3\x28"},
             {"overlong slash", "\xc0\xaf"},
             {"UTF-16 surrogate", "\xed\xa0\x80"},
             {"five-byte sequence", "\xf8\x88\x80\x80\x80"}}) {
      Add(base("bad-utf8", "in a value: " + what, "{\"x\":\"a" + bytes + "b\"}"));
      Add(base("bad-utf8", "in a key: " + what, "{\"a" + bytes + "\":1}"));
    }
    Add(base("bad-utf8", "outside strings", "{\"a\":1}\xff"));

    // ---- the body's own type, nesting and size -------------------------------------------------------
    const json body_type = Field(body_schema, "type", json());
    for (const auto& [what, value] : TypedProbes()) {
      if (body_type.is_null() || TypeAllows(body_type, value)) continue;
      Add(base("body-type", "body is " + what, value.dump()));
    }
    if (needs_body) Add(base("missing", "no body at all", ""));
    // Depth: the parser refuses nesting beyond its limit before anything walks it (STYLE.md habit 11).
    for (size_t depth : {1000u, 30000u}) {
      Add(base("deep", "body array " + std::to_string(depth) + " levels", DeepArray(depth)));
      Add(base("deep", "body object " + std::to_string(depth) + " levels", DeepObject(depth)));
      Add(base("deep", "extra field " + std::to_string(depth) + " levels", "{\"zzDeep\":" + DeepArray(depth) + "}"));
    }
    // Numbers no double or integer holds: refused, never turned into infinity or wrapped.
    for (const std::string n : {"1e400", "-1e400"}) Add(base("number", "extra field " + n, "{\"zzNumber\":" + n + "}"));
    if (!is_public) Add(base("huge", "malformed body of 2 MiB", "{\"pad\":" + std::string(2u << 20, '[')));

    // ---- the body's properties ------------------------------------------------------------------------
    const json bprops = Field(body_schema, "properties", json::object());
    const json required = Field(body_schema, "required", json::array());
    if (!required.empty()) {
      Add(base("missing", "every required field", "{}"));
      Add(base("missing", "required fields, an unrelated one given", "{\"zzUnrelated\":1}"));
      for (const auto& field : required) {
        // All the other required fields present with null: still refused, by the missing one at least.
        json doc = json::object();
        for (const auto& other : required)
          if (other != field) doc[other.get<std::string>()] = bprops.contains(other.get<std::string>()) ? Sample(bprops[other.get<std::string>()]) : json("x");
        Add(base("missing", "required " + field.get<std::string>() + " only", doc.dump()));
      }
    }
    if (body_schema.contains("additionalProperties") && body_schema["additionalProperties"] != true) {
      json doc = json::object();
      for (const auto& [name, p] : bprops.items()) doc[name] = Sample(p);
      doc["zzExtraField"] = 1;
      Add(base("extra", "a field the schema does not know", doc.dump()));
    }
    for (const auto& [name, p] : bprops.items()) {
      const json type = Field(p, "type", json());
      if (!type.is_null()) {
        for (const auto& [what, value] : TypedProbes()) {
          if (TypeAllows(type, value)) continue;
          Add(base("wrong-type", name + " is " + what, json{{name, value}}.dump()));
        }
        // A huge array where one value belongs.
        if (!TypeAllows(type, json::array())) Add(base("huge", name + " is an array of 100000 numbers",
                                                         "{\"" + name + "\":[" + Repeat("1,", 99999) + "1]}"));
      }
      if (TypeAllows(type, json(1.5)) && !type.is_null()) {
        for (const std::string n : {"1e400", "-1e400"}) Add(base("number", name + " " + n, "{\"" + name + "\":" + n + "}"));
      }
      if (TypeAllows(type, json("s")) && (p.contains("pattern") || p.contains("enum") || p.contains("format"))) {
        // Long text a pattern refuses: no backtracking regex may run on it unbounded.
        Add(base("huge", name + " of 60000 characters", json{{name, Repeat("a", 60000) + "@"}}.dump()));
        Add(base("bad-value", name + " with a NUL", json{{name, std::string("a\0b", 3)}}.dump()));
      }
      if (p.contains("enum")) Add(base("bad-value", name + " not in its enum", json{{name, "ZZ_NOT_A_VALUE"}}.dump()));
    }
  }

  // Malformed or hostile scenario files (POST /_sim/scenarios/run; scenarios/README.md).
  template <typename Base>
  void YamlCases(Base& base) {
    for (const auto& [what, text] : std::vector<std::pair<std::string, std::string>>{
             {"unclosed flow sequence", "name: [unclosed\n"},
             {"a list, not a mapping", "- a\n- b\n"},
             {"a bare number", "42\n"},
             {"steps is a number", "name: x\nsteps: 42\n"},
             {"unknown top-level key", "name: x\nzzUnknown: 1\nsteps: []\n"},
             {"tab indentation", "name: x\nsteps:\n\t- GET: /_sim/health\n"},
             {"unknown step", "name: x\nsteps:\n  - frobnicate: 1\n"},
             {"bad duration", "name: x\nsteps:\n  - advance: 5 fortnights\n"},
             {"undefined variable", "name: x\nsteps:\n  - GET: /v1/domain/list/${nope}\n"},
             {"bad UTF-8 in a scalar", "name: \xff\xfe\nsteps: []\n"},
             {"absolute fixtures path", "name: x\nfixtures: /proc/self/environ\nsteps: []\n"},
             {"fixtures path out of the folder", "name: x\nfixtures: ../../../../etc/passwd\nsteps: []\n"},
             {"fixtures from a device", "name: x\nfixtures: /dev/zero\nsteps: []\n"},
             // Long scalars the parser's patterns read (no unit; an undefined variable): refused.
             {"a long duration scalar", "name: x\nsteps:\n  - advance: " + Repeat("1", 60000) + "x\n"},
             {"a long path scalar", "name: x\nsteps:\n  - GET: /" + Repeat("a", 60000) + "${undefinedVariable}\n"},
             {"deep flow nesting", "name: " + DeepArray(30000) + "\nsteps: []\n"},
             {"alias bomb", AliasBomb()}}) {
      Add(base("yaml", what, text, "application/yaml"));
    }
  }

  // The "billion laughs" shape: nine levels of nine aliases each, a few hundred bytes of text.
  static std::string AliasBomb() {
    std::string y = "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
    for (int i = 1; i <= 9; ++i) {
      const std::string prev = "*a" + std::to_string(i - 1);
      y += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + Repeat(prev + ",", 8) + prev + "]\n";
    }
    return y + "name: bomb\nsteps: []\n";
  }

  static Case WithQuery(Case c, const std::string& query) {
    c.path += "?" + query;
    c.name += " (?" + (query.size() > 40 ? query.substr(0, 40) + "..." : query) + ")";
    return c;
  }

  static std::string Decode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        out += s[i];
      }
    }
    return out;
  }

  // Whether a query value passes its parameter's pattern or enum (short probes only).
  static bool Allowed(const json& p, const std::string& value) {
    if (p.contains("enum")) {
      for (const auto& e : p["enum"])
        if (e.is_string() && e.get<std::string>() == value) return true;
      if (!p.contains("pattern")) return false;
    }
    if (p.contains("pattern") && value.size() < 200)
      return std::regex_search(value, std::regex(p["pattern"].get<std::string>(), std::regex::ECMAScript));
    return value.size() >= 200 ? false : true;
  }

  // A plausible value for a property (used where a case varies another one).
  json Sample(const json& p) {
    if (p.contains("enum") && p["enum"].is_array() && !p["enum"].empty()) return p["enum"][0];
    const json type = Field(p, "type", json("string"));
    const std::string t = type.is_array() && !type.empty() ? type[0].get<std::string>() : type.is_string() ? type.get<std::string>() : "string";
    if (t == "integer") return 1;
    if (t == "number") return 1.5;
    if (t == "boolean") return true;
    if (t == "array") return json::array();
    if (t == "object") return json::object();
    if (t == "null") return nullptr;
    return "x";
  }

  // An object with the schema's properties filled with random text, numbers and nesting, for
  // truncation: its length varies with the seed.
  std::string RandomObject(const json& body_schema) {
    json doc = json::object();
    std::uniform_int_distribution<int> len(0, 40), pick(0, 3);
    auto text = [&] {
      static const char* const kPieces[] = {"a", "Z", "0", " ", "\\", "\"", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "@", "/"};
      std::uniform_int_distribution<size_t> piece(0, std::size(kPieces) - 1);
      std::string s;
      for (int i = len(rng_); i > 0; --i) s += kPieces[piece(rng_)];
      return s;
    };
    const json props = Field(body_schema, "properties", json::object());
    for (const auto& [name, p] : props.items()) doc[name] = Sample(p);
    for (int i = pick(rng_) + 1; i > 0; --i) {
      switch (pick(rng_)) {
        case 0: doc[text() + "k"] = text(); break;
        case 1: doc[text() + "n"] = std::uniform_int_distribution<std::int64_t>(-1000000, 1000000)(rng_); break;
        case 2: doc[text() + "a"] = json::array({text(), 1, nullptr}); break;
        default: doc[text() + "o"] = json{{"inner", text()}}; break;
      }
    }
    return doc.dump();
  }

  schema::Registry& schemas_;
  std::vector<app::Route> routes_;  // the catalogue's, as the server builds them
  std::mt19937_64 rng_;
  std::vector<Case> cases_;
  std::set<std::string> names_;
};

}  // namespace emsim::testing::hostile
