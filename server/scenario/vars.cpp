#include "scenario/vars.hpp"

namespace emsim::scenario {

namespace {

std::string AsText(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "a.b.0" or "a[0].b" -> segments.
std::vector<std::string> DottedSegments(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '.' || c == '[' || c == ']') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::optional<json> Walk(const json& doc, const std::vector<std::string>& segments) {
  const json* at = &doc;
  for (const auto& seg : segments) {
    if (at->is_object()) {
      auto it = at->find(seg);
      if (it == at->end()) return std::nullopt;
      at = &*it;
    } else if (at->is_array()) {
      if (seg.empty() || seg.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      const size_t i = std::stoul(seg);
      if (i >= at->size()) return std::nullopt;
      at = &(*at)[i];
    } else {
      return std::nullopt;
    }
  }
  return std::make_optional<json>(*at);
}

json Resolve(const std::string& ref, const json& vars) {
  auto v = LookupPath(vars, ref);
  if (!v) {
    const std::string root = ref.substr(0, ref.find_first_of(".["));
    if (!vars.contains(root)) throw VariableError("${" + ref + "}: variable '" + root + "' has no value yet");
    throw VariableError("${" + ref + "}: '" + root + "' holds " + vars[root].dump().substr(0, 200) +
                        ", which has nothing at " + ref.substr(root.size()));
  }
  return *v;
}

}  // namespace

std::optional<json> LookupPath(const json& doc, const std::string& path) {
  if (path.empty()) return std::make_optional<json>(doc);
  if (path[0] == '/') {
    try {
      const json::json_pointer ptr(path);
      if (!doc.contains(ptr)) return std::nullopt;
      return std::make_optional<json>(doc.at(ptr));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return Walk(doc, DottedSegments(path));
}

std::string InterpolateText(const std::string& text, const json& vars) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") == 0) {
      const size_t end = text.find('}', i);
      if (end == std::string::npos) throw VariableError("unterminated ${ in '" + text + "'");
      out += AsText(Resolve(text.substr(i + 2, end - i - 2), vars));
      i = end + 1;
      continue;
    }
    out += text[i++];
  }
  return out;
}

json Interpolate(const json& value, const json& vars) {
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    // Exactly one reference: keep the value's type.
    if (s.size() > 3 && s.compare(0, 2, "${") == 0 && s.back() == '}' && s.find('}') == s.size() - 1)
      return Resolve(s.substr(2, s.size() - 3), vars);
    if (s.find("${") == std::string::npos) return value;
    return InterpolateText(s, vars);
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(Interpolate(v, vars));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items()) out[k] = Interpolate(v, vars);
    return out;
  }
  return value;
}

}  // namespace emsim::scenario
