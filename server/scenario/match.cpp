#include "scenario/match.hpp"

#include "core/text.hpp"

#include <cmath>
#include <cstdlib>
#include <exception>

#include <pthread.h>
#include <regex>
#include <set>

namespace emsim::scenario {

namespace {

// A scenario's $regex is the author's, the text it is matched against an answer's: both bounded.
// std::regex recurses about once per character it consumes (a few hundred bytes of stack each;
// 60,000 characters overflowed a worker's 8 MiB stack): 16 KiB stays well inside it and still
// takes an export's CSV of a few dozen mailboxes.
constexpr size_t kMaxRegexPattern = 512;
constexpr size_t kMaxRegexSubject = 16 * 1024;

// ...and the match runs on a thread of its own with a stack far larger than that needs (it is
// only reserved, pages are touched as used): a sanitizer build's frames are a few times larger,
// and a runner's thread may have less than 8 MiB. Answers f(); an exception from f is rethrown.
template <class F>
bool OnLargeStack(F&& f) {
  struct Call {
    F* f;
    bool result = false;
    std::exception_ptr error;
  } call{&f, false, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{256} << 20);
  pthread_t thread;
  void* (*run)(void*) = [](void* p) -> void* {
    auto* c = static_cast<Call*>(p);
    try {
      c->result = (*c->f)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  const bool started = pthread_create(&thread, &attr, run, &call) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return f();  // no thread to be had: the caller's stack, within the caps above
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
  return call.result;
}

const std::set<std::string>& Keywords() {
  static const std::set<std::string> k = {"$match", "$regex", "$type",  "$gte",    "$gt",    "$lte", "$lt",
                                          "$contains", "$len", "$exists", "$one_of", "$exact", "$not"};
  return k;
}

struct Format {
  const char* name;
  const char* pattern;
  const char* what;  // for messages: "expected <what>"
};

const std::vector<Format>& Formats() {
  static const std::vector<Format> f = {
      {"uuid", "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", "a UUID"},
      {"uuid4", "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", "a UUID v4"},
      {"uuid7", "^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", "a UUID v7"},
      // Part 6: evt_ followed by a UUIDv7.
      {"event_id", "^evt_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
       "an event id (evt_ + UUIDv7)"},
      // The spec's timestamp form: ISO 8601 UTC with milliseconds.
      {"iso8601", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
       "an ISO 8601 UTC timestamp with milliseconds"},
      {"url", "^https?://[^\\s/?#]+[^\\s]*$", "an http(s) URL"},
      {"https_url", "^https://[^\\s/?#]+[^\\s]*$", "an https URL"},
      {"email", "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", "an email address"},
      {"numeric_text", "^-?[0-9]+(\\.[0-9]+)?$", "numeric text"},
      {"whsec", "^whsec_[A-Za-z0-9_+/=-]+$", "a webhook secret (whsec_...)"},
      {"non_empty", "^[\\s\\S]+$", "a non-empty string"},
  };
  return f;
}

const Format* FindFormat(const std::string& name) {
  for (const auto& f : Formats())
    if (name == f.name) return &f;
  return nullptr;
}

const std::set<std::string>& TypeNames() {
  static const std::set<std::string> t = {"string", "number", "integer", "boolean", "object", "array", "null"};
  return t;
}

std::string Child(const std::string& path, const std::string& key) { return path + "/" + model::JsonPointerSegment(key); }
std::string Child(const std::string& path, size_t i) { return path + "/" + std::to_string(i); }

bool HasType(const json& v, const std::string& type) {
  if (type == "string") return v.is_string();
  if (type == "number") return v.is_number();
  if (type == "integer")
    return v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
  if (type == "boolean") return v.is_boolean();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  return v.is_null();
}

// A number, or numeric text ("12.99"): the spec carries counts and prices as text in places.
// -?[0-9]+(\.[0-9]+)? checked by hand: std::regex recurses per character of a long string.
std::optional<double> AsNumber(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() > 64) return std::nullopt;  // no price or count is this long
  size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (digits() == 0) return std::nullopt;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return std::strtod(s.c_str(), nullptr);
}

void Match(const json& expected, const json* actual, const std::string& path, std::vector<Mismatch>& out);

size_t CountMismatches(const json& expected, const json& actual) {
  std::vector<Mismatch> m;
  Match(expected, &actual, "", m);
  return m.size();
}

void MatchContains(const json& arg, const json& actual, const std::string& path, std::vector<Mismatch>& out) {
  if (arg.is_string() && actual.is_string()) {
    if (actual.get_ref<const std::string&>().find(arg.get_ref<const std::string&>()) == std::string::npos)
      out.push_back({path, "expected text containing " + Brief(arg) + ", got " + Brief(actual)});
    return;
  }
  if (!actual.is_array()) {
    out.push_back({path, "expected a list containing " + Brief(arg) + ", got " + Brief(actual)});
    return;
  }
  const json items = arg.is_array() ? arg : json::array({arg});
  std::vector<bool> used(actual.size(), false);
  for (const auto& want : items) {
    size_t best = actual.size(), best_count = SIZE_MAX;
    bool found = false;
    for (size_t i = 0; i < actual.size() && !found; ++i) {
      if (used[i]) continue;
      const size_t n = CountMismatches(want, actual[i]);
      if (n == 0) {
        used[i] = true;
        found = true;
      } else if (n < best_count) {
        best = i;
        best_count = n;
      }
    }
    if (found) continue;
    std::string msg = "expected an item matching " + Brief(want) + " among " + std::to_string(actual.size()) +
                      " item(s), none matches";
    if (best < actual.size()) {
      std::vector<Mismatch> closest;
      Match(want, &actual[best], Child(path, best), closest);
      msg += "; closest is item " + std::to_string(best) + " (" + closest.front().path + ": " + closest.front().message + ")";
    }
    out.push_back({path, msg});
  }
}

void MatchKeyword(const std::string& kw, const json& arg, const json* actual, const std::string& path,
                  std::vector<Mismatch>& out) {
  if (kw == "$exists") {
    const bool want = arg.is_boolean() ? arg.get<bool>() : true;
    if (want && !actual) out.push_back({path, "missing (expected it to exist)"});
    if (!want && actual) out.push_back({path, "expected to be absent, got " + Brief(*actual)});
    return;
  }
  if (!actual) {
    out.push_back({path, "missing (expected " + Brief(json{{kw, arg}}) + ")"});
    return;
  }
  const json& a = *actual;
  // Matchers use std::regex, which recurses per character: text longer than this is not matched
  // (a mismatch that says so) rather than risking the runner's stack.
  if ((kw == "$match" || kw == "$regex") && a.is_string() && a.get_ref<const std::string&>().size() > kMaxRegexSubject) {
    out.push_back({path, "text of " + std::to_string(a.get_ref<const std::string&>().size()) + " bytes is too long for " +
                             kw + " (at most " + std::to_string(kMaxRegexSubject) + ")"});
    return;
  }
  if (kw == "$match") {
    const Format* f = FindFormat(arg.get<std::string>());
    if (!f) {
      out.push_back({path, "unknown $match format " + Brief(arg)});
      return;
    }
    if (!a.is_string() ||
        !OnLargeStack([&] { return std::regex_match(a.get_ref<const std::string&>(), std::regex(f->pattern)); }))
      out.push_back({path, std::string("expected ") + f->what + ", got " + Brief(a)});
  } else if (kw == "$regex") {
    std::regex re;
    try {
      if (arg.get_ref<const std::string&>().size() > kMaxRegexPattern) throw std::regex_error(std::regex_constants::error_complexity);
      re = std::regex(arg.get<std::string>());
    } catch (const std::regex_error& e) {
      out.push_back({path, "bad $regex " + Brief(arg) + ": " + e.what()});
      return;
    }
    const std::string text = a.is_string() ? a.get<std::string>() : a.dump();
    if (!a.is_string() || !OnLargeStack([&] { return std::regex_search(text, re); }))
      out.push_back({path, "expected text matching /" + arg.get<std::string>() + "/, got " + Brief(a)});
  } else if (kw == "$type") {
    if (!HasType(a, arg.get<std::string>()))
      out.push_back({path, "expected a value of type " + arg.get<std::string>() + ", got " + Brief(a)});
  } else if (kw == "$gte" || kw == "$gt" || kw == "$lte" || kw == "$lt") {
    const auto bound = AsNumber(arg);
    const auto value = AsNumber(a);
    const std::string op = kw == "$gte" ? ">=" : kw == "$gt" ? ">" : kw == "$lte" ? "<=" : "<";
    if (!bound) {
      out.push_back({path, kw + " needs a number, got " + Brief(arg)});
    } else if (!value) {
      out.push_back({path, "expected a number " + op + " " + Brief(arg) + ", got " + Brief(a)});
    } else {
      const bool ok = kw == "$gte" ? *value >= *bound : kw == "$gt" ? *value > *bound
                      : kw == "$lte" ? *value <= *bound : *value < *bound;
      if (!ok) out.push_back({path, "expected a number " + op + " " + Brief(arg) + ", got " + Brief(a)});
    }
  } else if (kw == "$contains") {
    MatchContains(arg, a, path, out);
  } else if (kw == "$len") {
    if (!a.is_array() && !a.is_string() && !a.is_object()) {
      out.push_back({path, "expected something with a length (" + Brief(arg) + "), got " + Brief(a)});
      return;
    }
    const json size = a.is_string() ? a.get_ref<const std::string&>().size() : a.size();
    std::vector<Mismatch> inner;
    Match(arg, &size, path, inner);
    if (!inner.empty())
      out.push_back({path, "expected length " + (IsMatcher(arg) ? Brief(arg) : arg.dump()) + ", got " + size.dump() +
                               " (" + Brief(a, 200) + ")"});
  } else if (kw == "$one_of") {
    for (const auto& option : arg)
      if (CountMismatches(option, a) == 0) return;
    out.push_back({path, "expected one of " + Brief(arg) + ", got " + Brief(a)});
  } else if (kw == "$exact") {
    if (arg != a) out.push_back({path, "expected exactly " + Brief(arg, 300) + ", got " + Brief(a, 300)});
  } else if (kw == "$not") {
    if (CountMismatches(arg, a) == 0) out.push_back({path, "expected anything but " + Brief(arg) + ", got " + Brief(a)});
  } else {
    out.push_back({path, "unknown matcher " + kw});
  }
}

// Recursive on both trees: `expected` comes from the scenario's YAML (64 levels at most,
// scenario_parse.cpp), `actual` from an answer read with the answer limits (128 levels,
// core/json_limits.hpp), so the depth is bounded.
void Match(const json& expected, const json* actual, const std::string& path, std::vector<Mismatch>& out) {
  if (IsMatcher(expected)) {
    for (const auto& [kw, arg] : expected.items()) MatchKeyword(kw, arg, actual, path, out);
    return;
  }
  if (!actual) {
    out.push_back({path, "missing (expected " + Brief(expected) + ")"});
    return;
  }
  const json& a = *actual;
  if (expected.is_object()) {
    if (!a.is_object()) {
      out.push_back({path, "expected an object " + Brief(expected) + ", got " + Brief(a)});
      return;
    }
    for (const auto& [key, want] : expected.items()) {
      auto it = a.find(key);
      Match(want, it == a.end() ? nullptr : &*it, Child(path, key), out);
    }
    return;
  }
  if (expected.is_array()) {
    if (!a.is_array()) {
      out.push_back({path, "expected a list of " + std::to_string(expected.size()) + " item(s), got " + Brief(a)});
      return;
    }
    if (expected.size() != a.size())
      out.push_back({path, "expected " + std::to_string(expected.size()) + " item(s), got " + std::to_string(a.size()) +
                               " (use {$contains: [...]} to match some items in any order)"});
    for (size_t i = 0; i < expected.size() && i < a.size(); ++i) Match(expected[i], &a[i], Child(path, i), out);
    return;
  }
  if (expected != a) out.push_back({path, "expected " + Brief(expected) + ", got " + Brief(a)});
}

std::optional<std::string> Check(const json& e, const std::string& path) {
  if (!e.is_object() && !e.is_array()) return std::nullopt;
  if (e.is_array()) {
    for (size_t i = 0; i < e.size(); ++i)
      if (auto p = Check(e[i], Child(path, i))) return p;
    return std::nullopt;
  }
  size_t dollar = 0;
  for (const auto& [k, v] : e.items())
    if (!k.empty() && k[0] == '$') ++dollar;
  if (dollar == 0) {
    for (const auto& [k, v] : e.items())
      if (auto p = Check(v, Child(path, k))) return p;
    return std::nullopt;
  }
  const std::string at = "at " + (path.empty() ? std::string("/") : path) + ": ";
  if (dollar != e.size())
    return at + "a matcher's keys all start with '$'; this object mixes them with field names";
  for (const auto& [kw, arg] : e.items()) {
    if (!Keywords().count(kw)) {
      std::string known;
      for (const auto& k : Keywords()) known += (known.empty() ? "" : ", ") + k;
      return at + "unknown matcher " + kw + " (expected one of " + known + ")";
    }
    if (kw == "$match") {
      if (!arg.is_string() || !FindFormat(arg.get<std::string>())) {
        std::string names;
        for (const auto& f : Formats()) names += (names.empty() ? "" : ", ") + std::string(f.name);
        return at + "$match needs one of " + names + ", got " + Brief(arg);
      }
    } else if (kw == "$regex") {
      if (!arg.is_string()) return at + "$regex needs a string";
      if (arg.get_ref<const std::string&>().size() > kMaxRegexPattern)
        return at + "$regex is longer than " + std::to_string(kMaxRegexPattern) + " characters";
      try {
        std::regex re(arg.get<std::string>());
      } catch (const std::regex_error& err) {
        return at + "$regex " + Brief(arg) + " does not compile: " + err.what();
      }
    } else if (kw == "$type") {
      if (!arg.is_string() || !TypeNames().count(arg.get<std::string>()))
        return at + "$type needs one of string, number, integer, boolean, object, array, null; got " + Brief(arg);
    } else if (kw == "$gte" || kw == "$gt" || kw == "$lte" || kw == "$lt") {
      // A string may still be a ${variable} that becomes a number at run time.
      if (!arg.is_number() && !arg.is_string()) return at + kw + " needs a number, got " + Brief(arg);
    } else if (kw == "$exists") {
      if (!arg.is_boolean()) return at + "$exists needs true or false";
    } else if (kw == "$one_of") {
      if (!arg.is_array() || arg.empty()) return at + "$one_of needs a non-empty list";
    } else if (kw == "$len") {
      if (!arg.is_number_unsigned() && !arg.is_number_integer() && !IsMatcher(arg) && !arg.is_string())
        return at + "$len needs a whole number or a matcher like {$gte: 1}";
    }
    if (kw != "$exact")
      if (auto p = Check(arg, path)) return p;
  }
  return std::nullopt;
}

}  // namespace

bool IsMatcher(const json& value) {
  if (!value.is_object() || value.empty()) return false;
  for (const auto& [k, v] : value.items())
    if (k.empty() || k[0] != '$') return false;
  return true;
}

std::vector<Mismatch> MatchJson(const json& expected, const json& actual) {
  std::vector<Mismatch> out;
  Match(expected, &actual, "", out);
  return out;
}

std::optional<std::string> CheckMatcherTree(const json& expected, const std::string& at) { return Check(expected, at); }

const std::vector<std::string>& MatchFormats() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& f : Formats()) n.push_back(f.name);
    return n;
  }();
  return names;
}

std::string Brief(const json& value, size_t max_chars) {
  std::string s = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

std::string FormatMismatches(const std::vector<Mismatch>& mismatches, const std::string& indent) {
  std::string out;
  for (const auto& m : mismatches) out += indent + (m.path.empty() ? std::string("(body)") : m.path) + ": " + m.message + "\n";
  return out;
}

}  // namespace emsim::scenario
