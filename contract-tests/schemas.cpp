#include "schemas.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "config.hpp"

namespace contract {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json ReadJson(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(file.string() + ": not valid JSON: " + e.what());
  }
}

// Inlines "$ref"s: "other.json", "../resources/x.json#/definitions/y", "#/definitions/y".
// Sibling keywords next to a $ref (e.g. errorMessage) are kept, as emsim's registry does.
json Inline(const json& node, const fs::path& file, const json& root, int depth) {
  if (depth > 32) throw std::runtime_error(file.string() + ": $ref nesting too deep (a cycle?)");
  if (node.is_array()) {
    json out = json::array();
    for (const auto& v : node) out.push_back(Inline(v, file, root, depth));
    return out;
  }
  if (!node.is_object()) return node;
  if (node.contains("$ref") && node["$ref"].is_string()) {
    const std::string ref = node["$ref"];
    const auto hash = ref.find('#');
    const std::string target = ref.substr(0, hash);
    const std::string pointer = hash == std::string::npos ? "" : ref.substr(hash + 1);
    fs::path next_file = file;
    json next_root = root;
    if (!target.empty()) {
      next_file = (file.parent_path() / target).lexically_normal();
      next_root = ReadJson(next_file);
    }
    json resolved;
    try {
      resolved = pointer.empty() ? next_root : next_root.at(json::json_pointer(pointer));
    } catch (const std::exception&) {
      throw std::runtime_error(file.string() + ": dangling $ref " + ref);
    }
    json out = Inline(resolved, next_file, next_root, depth + 1);
    if (out.is_object()) {
      out.erase("$id");
      out.erase("$schema");
      out.erase("definitions");
      for (const auto& [k, v] : node.items())
        if (k != "$ref") out[k] = Inline(v, file, root, depth);
    }
    return out;
  }
  json out = json::object();
  for (const auto& [k, v] : node.items()) out[k] = Inline(v, file, root, depth);
  return out;
}

struct Compiled {
  json resolved;
  valijson::Schema schema;
};

std::mutex g_mu;
std::map<std::string, std::unique_ptr<Compiled>> g_cache;

const Compiled& Load(const std::string& name) {
  std::lock_guard lock(g_mu);
  auto it = g_cache.find(name);
  if (it != g_cache.end()) return *it->second;
  const fs::path file = fs::path(Cfg().schemasDir) / (name + ".json");
  if (!fs::is_regular_file(file)) throw std::runtime_error("no schema " + file.string());
  auto c = std::make_unique<Compiled>();
  const json raw = ReadJson(file);
  c->resolved = Inline(raw, file, raw, 0);
  c->resolved.erase("definitions");
  try {
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(c->resolved);
    parser.populateSchema(adapter, c->schema);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": schema does not compile: " + e.what());
  }
  return *g_cache.emplace(name, std::move(c)).first->second;
}

std::string Unbracket(const std::string& s) {
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') return s.substr(1, s.size() - 2);
  return s;
}

// The sub-schema governing `path` (through properties, items, additionalProperties and the
// first branch of oneOf/anyOf that has the next step), or null.
const json* SchemaAt(const json& schema, const std::vector<std::string>& path, size_t from = 0) {
  const json* node = &schema;
  for (size_t i = from; i < path.size(); ++i) {
    const std::string& seg = path[i];
    if (!node->is_object()) return nullptr;
    if (node->contains("properties") && (*node)["properties"].contains(seg)) {
      node = &(*node)["properties"][seg];
    } else if (node->contains("items") && (*node)["items"].is_object()) {
      node = &(*node)["items"];
    } else if (node->contains("additionalProperties") && (*node)["additionalProperties"].is_object()) {
      node = &(*node)["additionalProperties"];
    } else {
      for (const char* k : {"oneOf", "anyOf", "allOf"}) {
        if (!node->contains(k)) continue;
        for (const auto& branch : (*node)[k])
          if (const json* n = SchemaAt(branch, path, i)) return n;
      }
      return nullptr;
    }
  }
  return node;
}

std::string TypeWords(const json& type) {
  if (type.is_string()) {
    const std::string t = type;
    if (t == "integer" || t == "array" || t == "object") return "an " + t;
    if (t == "null") return "null";
    return "a " + t;
  }
  std::string out;
  for (size_t i = 0; i < type.size(); ++i) out += (i ? (i + 1 == type.size() ? " or " : ", ") : "") + TypeWords(type[i]);
  return out;
}

std::string Rule(const json* node, const std::string& d) {
  if (node && node->is_object() && node->contains("errorMessage") && (*node)["errorMessage"].is_string())
    return (*node)["errorMessage"];
  if (!node || !node->is_object()) return d;
  if (d.find("'type' constraint") != std::string::npos && node->contains("type")) return "must be " + TypeWords((*node)["type"]);
  // A oneOf/anyOf (e.g. "null or a billing details record"): name the branches' types.
  for (const char* k : {"oneOf", "anyOf"}) {
    if (!node->contains(k)) continue;
    std::string words;
    for (const auto& b : (*node)[k])
      if (b.is_object() && b.contains("type")) words += (words.empty() ? "" : " or ") + TypeWords(b["type"]);
    if (!words.empty()) return "must be " + words + " matching its schema";
  }
  if (node->contains("const") && (d.find("const") != std::string::npos || d.find("equal") != std::string::npos))
    return "must be " + (*node)["const"].dump();
  if (d.find("enum") != std::string::npos && node->contains("enum")) {
    std::string list;
    for (const auto& v : (*node)["enum"]) list += (list.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
    return "must be one of " + list;
  }
  if (d.find("regex") != std::string::npos && node->contains("pattern"))
    return "must match the pattern " + (*node)["pattern"].get<std::string>();
  if (node->contains("minimum") && (d.find("minimum") != std::string::npos || d.find("less than") != std::string::npos))
    return "must be at least " + (*node)["minimum"].dump();
  if (node->contains("maximum") && (d.find("maximum") != std::string::npos || d.find("greater than") != std::string::npos))
    return "must be at most " + (*node)["maximum"].dump();
  if (node->contains("minProperties") && d.find("fewer than") != std::string::npos && d.find("properties") != std::string::npos)
    return "must have at least " + (*node)["minProperties"].dump() + " member(s)";
  if (node->contains("maxProperties") && d.find("more than") != std::string::npos && d.find("properties") != std::string::npos)
    return "must have at most " + (*node)["maxProperties"].dump() + " member(s)";
  if (node->contains("minItems") && d.find("fewer than") != std::string::npos)
    return "must have at least " + (*node)["minItems"].dump() + " item(s)";
  if (node->contains("maxItems") && d.find("more than") != std::string::npos)
    return "must have at most " + (*node)["maxItems"].dump() + " item(s)";
  if (node->contains("minLength") && d.find("length") != std::string::npos)
    return "must be at least " + (*node)["minLength"].dump() + " character(s) long";
  return d;
}

}  // namespace

bool HasSchema(const std::string& name) { return fs::is_regular_file(fs::path(Cfg().schemasDir) / (name + ".json")); }

json ResolvedSchema(const std::string& name) { return Load(name).resolved; }

std::vector<SchemaViolation> CheckSchema(const std::string& name, const json& doc) {
  const Compiled& c = Load(name);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  if (validator.validate(c.schema, adapter, &results)) return {};
  std::vector<SchemaViolation> out;
  std::set<std::string> seen;
  std::vector<SchemaViolation> wrappers;  // used only when no leaf error explains the failure
  valijson::ValidationResults::Error e;
  while (results.popError(e)) {
    std::vector<std::string> path;
    for (size_t i = 1; i < e.context.size(); ++i) path.push_back(Unbracket(e.context[i]));
    std::string pointer;
    for (const auto& p : path) pointer += "/" + p;
    const std::string& d = e.description;
    const bool wrapper = d.rfind("Failed to validate against schema associated with property", 0) == 0 ||
                         d.rfind("Failed to validate item #", 0) == 0 ||
                         d.rfind("Failed to validate against child schema", 0) == 0;
    SchemaViolation v;
    const auto req = d.find("Missing required property '");
    if (req != std::string::npos) {
      const auto start = req + 27;
      v.pointer = pointer + "/" + d.substr(start, d.find('\'', start) - start);
      v.rule = "is required";
    } else {
      v.pointer = pointer.empty() ? "/" : pointer;
      v.rule = Rule(SchemaAt(c.resolved, path), d);
    }
    if (wrapper) {
      wrappers.push_back(v);
      continue;
    }
    if (seen.insert(v.pointer + "\n" + v.rule).second) out.push_back(std::move(v));
  }
  // A oneOf whose branches all failed reports only wrappers; say something rather than nothing.
  if (out.empty())
    for (auto& w : wrappers)
      if (seen.insert(w.pointer + "\n" + w.rule).second) out.push_back(std::move(w));
  return out;
}

}  // namespace contract
