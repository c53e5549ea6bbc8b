#include "schema/registry.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace emsim::schema {
namespace fs = std::filesystem;

struct Registry::Compiled {
  json resolved;
  valijson::Schema schema;
  // Where a `pattern` (or a `format` valijson checks with a regex) applies: paths from the
  // document's root, "*" for any item or member. valijson matches with std::regex, which recurses
  // once per character: a 60,000-character email overflowed the stack before authentication. A
  // string at one of these paths longer than kMaxRegexSubject is refused before valijson runs.
  std::vector<std::vector<std::string>> regexPaths;

  // A request schema validates {query, body}. When its root says no more than "an object whose
  // query is Q and body is B (either or both required)" and {} passes Q, a document whose query
  // is empty passes the whole schema exactly when its body passes B: a request is checked
  // against B alone first, and only a failure is checked again as a whole for its messages.
  // valijson copies a context vector and builds strings per property visited, and the wrapper's
  // two levels measured ~a third of a POST's validation. Built on first use; null when the
  // schema has another shape.
  const valijson::Schema* BodyOnly() const {
    std::call_once(body_once, [this] {
      try {
        body_only = MakeBodyOnly(resolved);
      } catch (const std::exception&) {
        body_only.reset();
      }
    });
    return body_only.get();
  }
  mutable std::once_flag body_once;
  mutable std::unique_ptr<valijson::Schema> body_only;

 private:
  static std::unique_ptr<valijson::Schema> MakeBodyOnly(const json& root) {
    static const std::set<std::string> kRootKeys = {"$schema", "title", "description", "type",
                                                    "properties", "required", "additionalProperties"};
    if (!root.is_object() || root.value("type", json()) != "object") return nullptr;
    for (const auto& [k, v] : root.items())
      if (!kRootKeys.count(k)) return nullptr;
    const auto props = root.find("properties");
    if (props == root.end() || !props->is_object() || !props->contains("body")) return nullptr;
    for (const auto& [k, v] : props->items())
      if (k != "query" && k != "body") return nullptr;
    if (const auto req = root.find("required"); req != root.end()) {
      if (!req->is_array()) return nullptr;
      for (const auto& r : *req)
        if (r != "query" && r != "body") return nullptr;
    }
    valijson::SchemaParser parser;
    if (const auto q = props->find("query"); q != props->end()) {
      valijson::Schema query;
      valijson::adapters::NlohmannJsonAdapter qa(*q);
      parser.populateSchema(qa, query);
      const json empty = json::object();
      valijson::adapters::NlohmannJsonAdapter ea(empty);
      valijson::Validator v;
      if (!v.validate(query, ea, nullptr)) return nullptr;
    }
    auto body = std::make_unique<valijson::Schema>();
    valijson::adapters::NlohmannJsonAdapter ba(props->at("body"));
    parser.populateSchema(ba, *body);
    return body;
  }
};

namespace {

// Far above any value a pattern here describes (ids, emails, URLs, dates), far below the length
// at which std::regex's recursion exhausts a worker thread's stack (tens of thousands).
constexpr size_t kMaxRegexSubject = 4096;

bool IsRegexFormat(const json& node) {
  const auto f = node.find("format");
  return f != node.end() && f->is_string() && (*f == "date" || *f == "time" || *f == "date-time");
}

// Our own schema files, so their depth is ours (Inline already bounds $ref nesting).
void CollectRegexPaths(const json& node, std::vector<std::string>& path, std::vector<std::vector<std::string>>& out) {
  if (!node.is_object()) return;
  if (node.contains("pattern") || IsRegexFormat(node)) out.push_back(path);
  if (const auto props = node.find("properties"); props != node.end() && props->is_object()) {
    for (const auto& [k, v] : props->items()) {
      path.push_back(k);
      CollectRegexPaths(v, path, out);
      path.pop_back();
    }
  }
  for (const char* any : {"items", "additionalItems", "additionalProperties", "contains"}) {
    const auto it = node.find(any);
    if (it == node.end()) continue;
    path.push_back("*");
    if (it->is_array()) {
      for (const auto& v : *it) CollectRegexPaths(v, path, out);
    } else {
      CollectRegexPaths(*it, path, out);
    }
    path.pop_back();
  }
  if (const auto pp = node.find("patternProperties"); pp != node.end() && pp->is_object()) {
    path.push_back("*");
    for (const auto& [k, v] : pp->items()) CollectRegexPaths(v, path, out);
    path.pop_back();
  }
  for (const char* same : {"allOf", "anyOf", "oneOf"}) {
    if (const auto it = node.find(same); it != node.end() && it->is_array())
      for (const auto& v : *it) CollectRegexPaths(v, path, out);
  }
  for (const char* same : {"not", "if", "then", "else"})
    if (const auto it = node.find(same); it != node.end()) CollectRegexPaths(*it, path, out);
}

// Strings too long for a regex at `paths`, as issues (with `collect`; otherwise only whether
// there is one, without building their paths: the cost of every valid request). `target` is the
// whole document, or its body when `under_body` (then only paths under "body" apply). The walk
// follows the schema's paths, not the document, so it never goes deeper than the schema does.
bool LongRegexSubjects(const std::vector<std::vector<std::string>>& paths, const json& target, bool under_body,
                       std::vector<Issue>* collect) {
  struct At {
    const json* node;
    size_t seg;
    std::vector<std::string> where;  // only when collecting
  };
  static thread_local std::vector<At> todo;
  todo.clear();
  bool found = false;
  for (const auto& path : paths) {
    size_t first = 0;
    if (under_body) {
      if (path.empty() || (path[0] != "body" && path[0] != "*")) continue;
      first = 1;
    }
    todo.push_back({&target, first, collect && under_body ? std::vector<std::string>{"body"} : std::vector<std::string>{}});
    while (!todo.empty()) {
      At at = std::move(todo.back());
      todo.pop_back();
      if (at.seg == path.size()) {
        if (at.node->is_string() && at.node->get_ref<const std::string&>().size() > kMaxRegexSubject) {
          found = true;
          if (!collect) {
            todo.clear();
            return true;
          }
          Issue issue;
          issue.path = std::move(at.where);
          issue.message = "must be at most " + std::to_string(kMaxRegexSubject) + " bytes long";
          collect->push_back(std::move(issue));
        }
        continue;
      }
      const auto child = [&](const json& v, const std::string& name) {
        std::vector<std::string> where;
        if (collect) {
          where = at.where;
          where.push_back(name);
        }
        todo.push_back({&v, at.seg + 1, std::move(where)});
      };
      const std::string& seg = path[at.seg];
      if (at.node->is_object()) {
        if (seg == "*") {
          for (const auto& [k, v] : at.node->items()) child(v, k);
        } else if (const auto it = at.node->find(seg); it != at.node->end()) {
          child(*it, seg);
        }
      } else if (at.node->is_array() && seg == "*") {
        for (size_t i = 0; i < at.node->size(); ++i) child((*at.node)[i], collect ? std::to_string(i) : std::string());
      }
    }
  }
  return found;
}

}  // namespace

std::string Issue::Pointer() const {
  std::string out;
  for (const auto& p : path) out += "/" + p;
  return out.empty() ? "/" : out;
}

namespace {

// The catalogue of operations, beside the schemas that describe it (catalogue.hpp).
constexpr const char* kCatalogueName = "operations";

json ReadJsonFile(const fs::path& file) {
  // Whole file into memory first: nlohmann parses a string several times faster than a stream.
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(file.string() + ": not valid JSON: " + e.what());
  }
}

// Every schema file parsed once: the resources are $ref'd by many responses and events, and
// re-reading them per $ref measured a third of start-up's schema work.
class Files {
 public:
  const json& Get(const fs::path& file) {
    auto it = parsed_.find(file.generic_string());
    if (it == parsed_.end()) it = parsed_.emplace(file.generic_string(), ReadJsonFile(file)).first;
    return it->second;
  }
  // Only a file that exists (a $ref to a missing one is a dangling $ref, not an unreadable file).
  const json* Find(const fs::path& file) {
    if (!parsed_.count(file.generic_string()) && !fs::is_regular_file(file)) return nullptr;
    return &Get(file);
  }

 private:
  std::map<std::string, json> parsed_;  // by path; std::map: its nodes never move
};

// Inlines every "$ref": file refs relative to `file`, "#/..." refs within `root_doc`.
json Inline(const json& node, const fs::path& file, const json& root_doc, Files& files, int depth) {
  if (depth > 32) throw std::runtime_error(file.string() + ": $ref nesting too deep (a cycle?)");
  if (node.is_array()) {
    json out = json::array();
    for (const auto& v : node) out.push_back(Inline(v, file, root_doc, files, depth));
    return out;
  }
  if (!node.is_object()) return node;
  if (node.contains("$ref") && node["$ref"].is_string()) {
    const std::string ref = node["$ref"];
    const auto hash = ref.find('#');
    const std::string target_file = ref.substr(0, hash);
    const std::string pointer = hash == std::string::npos ? "" : ref.substr(hash + 1);
    fs::path next_file = file;
    const json* next_root = &root_doc;
    if (!target_file.empty()) {
      next_file = (file.parent_path() / target_file).lexically_normal();
      next_root = files.Find(next_file);
      if (!next_root) throw std::runtime_error(file.string() + ": dangling $ref " + ref);
    }
    const json* target = next_root;
    try {
      if (!pointer.empty()) target = &next_root->at(json::json_pointer(pointer));
    } catch (const std::exception& e) {
      throw std::runtime_error(file.string() + ": dangling $ref " + ref);
    }
    json inlined = Inline(*target, next_file, *next_root, files, depth + 1);
    if (inlined.is_object()) {
      inlined.erase("$id");
      inlined.erase("$schema");
      inlined.erase("definitions");
      // Sibling keywords next to $ref (e.g. a description) are kept.
      for (const auto& [k, v] : node.items())
        if (k != "$ref") inlined[k] = Inline(v, file, root_doc, files, depth);
    }
    return inlined;
  }
  json out = json::object();
  for (const auto& [k, v] : node.items()) out[k] = Inline(v, file, root_doc, files, depth);
  return out;
}

std::string Unbracket(const std::string& s) {
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') return s.substr(1, s.size() - 2);
  return s;
}

// The sub-schema that governs `path` from segment `from` on (through properties, items,
// additionalProperties, and the first branch of a oneOf/anyOf/allOf that has the next step, as
// in a response's "null or a billing details record"), or null when it cannot be found. Our own
// schema files, so the branches' depth is ours.
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
        const auto branches = node->find(k);
        if (branches == node->end() || !branches->is_array()) continue;
        for (const auto& branch : *branches)
          if (const json* n = SchemaAt(branch, path, i)) return n;
      }
      return nullptr;
    }
  }
  return node;
}

std::string TypeText(const json& type) {
  if (type.is_string()) {
    const std::string t = type;
    if (t == "integer") return "an integer";
    if (t == "array") return "an array";
    if (t == "object") return "an object";
    return "a " + t;
  }
  std::string out;
  for (size_t i = 0; i < type.size(); ++i) {
    out += (i ? (i + 1 == type.size() ? " or " : ", ") : "") + TypeText(type[i]);
  }
  return out;
}

std::string Describe(const json* node, const std::string& description) {
  if (node && node->is_object() && node->contains("errorMessage") && (*node)["errorMessage"].is_string())
    return (*node)["errorMessage"];
  if (!node || !node->is_object()) return description;
  if (description.find("'type' constraint") != std::string::npos && node->contains("type"))
    return "must be " + TypeText((*node)["type"]);
  // A oneOf/anyOf (no request schema has one; responses and events do): name the branches' types.
  for (const char* k : {"oneOf", "anyOf"}) {
    const auto branches = node->find(k);
    if (branches == node->end() || !branches->is_array()) continue;
    std::string words;
    for (const auto& b : *branches)
      if (b.is_object() && b.contains("type")) words += (words.empty() ? "" : " or ") + TypeText(b["type"]);
    if (!words.empty()) return "must be " + words + " matching its schema";
  }
  if (node->contains("const") && description.find("'const'") != std::string::npos)
    return "must be " + (*node)["const"].dump();
  if (description.find("enum") != std::string::npos && node->contains("enum")) {
    const json& values = (*node)["enum"];
    if (values.size() <= 12) {
      std::string list;
      for (const auto& v : values) list += (list.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
      return "must be one of " + list;
    }
    return "is not an allowed value";
  }
  if (description.find("regex") != std::string::npos && node->contains("pattern"))
    return "must match the pattern " + (*node)["pattern"].get<std::string>();
  if (node->contains("format") && description.find("valid") != std::string::npos)
    return "must be a valid " + (*node)["format"].get<std::string>();
  if (description.find("minimum") != std::string::npos || description.find("less than") != std::string::npos) {
    if (node->contains("minimum")) return "must be at least " + (*node)["minimum"].dump();
  }
  if (description.find("maximum") != std::string::npos || description.find("greater than") != std::string::npos) {
    if (node->contains("maximum")) return "must be at most " + (*node)["maximum"].dump();
  }
  if (node->contains("minItems") && description.find("items") != std::string::npos)
    return "must have at least " + (*node)["minItems"].dump() + " item(s)";
  if (node->contains("maxItems") && description.find("items") != std::string::npos)
    return "must have at most " + (*node)["maxItems"].dump() + " item(s)";
  if (node->contains("minLength") && description.find("length") != std::string::npos)
    return "must be at least " + (*node)["minLength"].dump() + " character(s) long";
  if (node->contains("maxLength") && description.find("length") != std::string::npos)
    return "must be at most " + (*node)["maxLength"].dump() + " character(s) long";
  return description;
}

}  // namespace

Registry::Registry(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error(dir.string() + ": schemas folder not found");
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  Files parsed;
  for (const auto& file : files) {
    // Lexically: fs::relative resolves symlinks with a readlink per path component.
    std::string name = file.lexically_relative(dir).replace_extension("").generic_string();
    if (name == kCatalogueName) continue;  // data that a schema describes, not a schema
    auto compiled = std::make_unique<Compiled>();
    const json& raw = parsed.Get(file.lexically_normal());
    compiled->resolved = Inline(raw, file, raw, parsed, 0);
    compiled->resolved.erase("definitions");
    std::vector<std::string> path;
    CollectRegexPaths(compiled->resolved, path, compiled->regexPaths);
    try {
      valijson::SchemaParser parser;  // draft 7
      valijson::adapters::NlohmannJsonAdapter adapter(compiled->resolved);
      parser.populateSchema(adapter, compiled->schema);
    } catch (const std::exception& e) {
      throw std::runtime_error(file.string() + ": schema does not compile: " + e.what());
    }
    schemas_.emplace(std::move(name), std::move(compiled));
  }
  const fs::path catalogue = dir / (std::string(kCatalogueName) + ".json");
  if (fs::is_regular_file(catalogue)) operations_ = Catalogue(ReadJsonFile(catalogue), *this, catalogue.string());
}

Registry::~Registry() = default;

bool Registry::Has(const std::string& name) const { return schemas_.count(name) != 0; }

bool Registry::ChecksBodyAlone(const std::string& name) const {
  auto it = schemas_.find(name);
  return it != schemas_.end() && it->second->BodyOnly() != nullptr;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : schemas_) out.push_back(k);
  return out;
}

const Registry::Compiled& Registry::At(const std::string& name) const {
  auto it = schemas_.find(name);
  if (it == schemas_.end()) throw std::out_of_range("no schema " + name);
  return *it->second;
}

const json& Registry::Resolved(const std::string& name) const { return At(name).resolved; }

namespace {
// One validator per thread, kept: a valijson Validator caches the std::regex of each `pattern` it
// meets, and a new one per request compiled them again every time. The cache is keyed
// by the pattern's text, so one validator serves every schema.
valijson::Validator& ThreadValidator() {
  static thread_local valijson::Validator validator;
  return validator;
}
}  // namespace

const valijson::Schema* Registry::BodySchema(const Compiled& c) const { return shortcut_ ? c.BodyOnly() : nullptr; }

// One pass of valijson over `target`, collecting every error. The body-only schema is checked
// with its paths rooted at "body" (`under_body`), so its issues are those the whole schema would
// report for the same body: the same leaves, in the same order (the whole schema's root passes an
// empty query and finds the required body, so all it adds are wrapper lines, dropped below).
// A conforming document costs what a pass without results costs: valijson only stops earlier
// without them once something fails, and no request schema has anyOf/oneOf, the keywords that
// allocate results of their own (so the 400 path no longer checks a body twice, once to learn
// that it fails and once more as a whole for the messages).
std::vector<Issue> Registry::Issues(const Compiled& c, const valijson::Schema& schema, const json& target,
                                    bool under_body) const {
  // Kept too: a ValidationResults is a std::deque, which allocates its first block on construction,
  // even for the valid request that records nothing. Every error is popped below; the check
  // covers an exception that left some behind.
  if (!c.regexPaths.empty() && LongRegexSubjects(c.regexPaths, target, under_body, nullptr)) {
    std::vector<Issue> too_long;
    LongRegexSubjects(c.regexPaths, target, under_body, &too_long);
    return too_long;
  }
  static thread_local valijson::ValidationResults results;
  if (results.numErrors() != 0) results = valijson::ValidationResults();
  valijson::adapters::NlohmannJsonAdapter adapter(target);
  try {
    if (ThreadValidator().validate(schema, adapter, &results)) return {};
  } catch (const json::exception&) {
    // valijson's nlohmann adapter reads every integer as int64: comparing an unsigned one beyond
    // INT64_MAX with a const or enum throws out_of_range.406. Request bodies never get here (the
    // parser refuses such numbers first, core/json_limits); a document validated directly (the
    // contract suite's answers, a webhook payload) is refused instead of escaping as an exception.
    Issue issue;
    if (under_body) issue.path.push_back("body");
    issue.message = "contains a number out of range (numbers must lie within -9223372036854775808..9223372036854775807)";
    return {std::move(issue)};
  }
  std::vector<Issue> issues;
  std::vector<Issue> wrappers;  // reported only when no leaf explains the failure
  std::set<std::string> seen;
  valijson::ValidationResults::Error e;
  while (results.popError(e)) {
    const std::string& d = e.description;
    // Wrappers repeat a leaf error one level up; the leaf is the useful one.
    const bool wrapper =
        d.rfind("Failed to validate against schema associated with property", 0) == 0 ||
        d.rfind("Failed to validate item #", 0) == 0 || d.rfind("Failed to validate against child schema", 0) == 0 ||
        d.rfind("Failed to validate against schema associated with", 0) == 0 ||
        d.rfind("Failed to validate against additional properties", 0) == 0;
    if (wrapper && !issues.empty()) continue;  // a leaf already explains it: no work for the wrapper
    Issue issue;
    if (under_body) issue.path.push_back("body");
    for (size_t i = 1; i < e.context.size(); ++i) issue.path.push_back(Unbracket(e.context[i]));
    const auto req = d.find("Missing required property '");
    if (req != std::string::npos) {
      const auto start = req + 27;
      issue.path.push_back(d.substr(start, d.find('\'', start) - start));
      issue.message = "is required";
    } else {
      const json* node = SchemaAt(c.resolved, issue.path);
      issue.message = Describe(node, d);
      issue.open = d.find("could not be validated using 'properties' or 'additionalProperties'") != std::string::npos ||
                   (d.find("enum") != std::string::npos && node && node->is_object() &&
                    node->value("x-values-seen", false) == true);
    }
    if (wrapper) wrappers.push_back(std::move(issue));
    else if (seen.insert(issue.Pointer() + "\n" + issue.message).second) issues.push_back(std::move(issue));
  }
  // A document that fails must never read as conforming (an empty answer): a oneOf whose branches
  // all failed may report wrappers alone.
  if (issues.empty())
    for (auto& w : wrappers)
      if (seen.insert(w.Pointer() + "\n" + w.message).second) issues.push_back(std::move(w));
  return issues;
}

std::vector<Issue> Registry::Check(const std::string& name, const json& doc, bool body_alone) const {
  const Compiled& c = At(name);
  if (body_alone && doc.is_object() && doc.size() == 2 && doc.contains("body")) {
    const auto q = doc.find("query");
    if (q != doc.end() && q->is_object() && q->empty())
      if (const valijson::Schema* body = BodySchema(c)) return Issues(c, *body, doc.at("body"), true);
  }
  return Issues(c, c.schema, doc, false);
}

namespace {

// The child of `node` a path segment names: an index into an array, a key of an object; null
// when there is none (or `node` is null).
const json* Child(const json* node, const std::string& seg) {
  if (!node) return nullptr;
  if (node->is_array()) {
    const size_t k = std::strtoul(seg.c_str(), nullptr, 10);
    return k < node->size() ? &(*node)[k] : nullptr;
  }
  if (!node->is_object()) return nullptr;
  const auto it = node->find(seg);
  return it == node->end() ? nullptr : &*it;
}

// "mailboxIds[1]" style name of `path` from segment `from` on, `node` being the document there
// (null when there is none): the document tells indices from keys.
std::string ParamBelow(const std::vector<std::string>& path, size_t from, const json* node) {
  std::string out;
  for (size_t i = from; i < path.size(); ++i) {
    const std::string& seg = path[i];
    if (node && node->is_array()) out += "[" + seg + "]";
    else out += (out.empty() ? "" : ".") + seg;
    node = Child(node, seg);
  }
  return out;
}

// Part 7's field error for an issue; `under` is the request's part the issue's first segment
// names (its query or body), null when the request has no such part.
model::FieldError ToFieldError(const Issue& issue, const json* under) {
  model::FieldError fe;
  fe.location = issue.path.empty() ? "body" : issue.path[0];
  fe.param = ParamBelow(issue.path, 1, under);
  if (fe.param.empty()) {
    fe.param = fe.location;
    fe.msg = issue.message == "is required" ? "a JSON body is required" : fe.location + " " + issue.message;
  } else {
    fe.msg = fe.param + " " + issue.message;
  }
  return fe;
}

}  // namespace

std::string ParamName(const std::vector<std::string>& path, const json& doc, size_t skip) {
  // The segments before `skip` only lead to the node the name starts from.
  const json* node = &doc;
  for (size_t i = 0; i < skip && i < path.size(); ++i) node = Child(node, path[i]);
  return ParamBelow(path, skip, node);
}

std::vector<model::FieldError> Registry::CheckRequest(const std::string& name, const json& doc, bool body_alone) const {
  std::vector<model::FieldError> out;
  for (const auto& issue : Check(name, doc, body_alone))
    out.push_back(ToFieldError(issue, issue.path.empty() ? nullptr : Child(&doc, issue.path[0])));
  return out;
}

std::optional<std::vector<model::FieldError>> Registry::CheckBody(const std::string& name, const json& body) const {
  const Compiled& c = At(name);
  const valijson::Schema* schema = BodySchema(c);
  if (!schema) return std::nullopt;
  std::vector<model::FieldError> out;
  for (const auto& issue : Issues(c, *schema, body, true)) out.push_back(ToFieldError(issue, &body));
  return out;
}

}  // namespace emsim::schema
