#include "schema/catalogue.hpp"

#include <initializer_list>
#include <set>
#include <stdexcept>
#include <utility>

#include "schema/registry.hpp"

namespace emsim::schema {

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    out.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

bool MatchSegments(const std::vector<std::string>& pattern, const std::vector<std::string>& segments,
                   std::map<std::string, std::string>* params) {
  if (pattern.size() != segments.size()) return false;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (!pattern[i].empty() && pattern[i][0] == ':') {
      if (params) (*params)[pattern[i].substr(1)] = segments[i];
    } else if (pattern[i] != segments[i]) {
      return false;
    }
  }
  return true;
}

namespace {

// The catalogue's words for the enums (operations.schema.json lists the same, so a value that
// passed the schema is always found).
template <class E>
E Word(const std::string& text, std::initializer_list<std::pair<const char*, E>> words) {
  for (const auto& [w, e] : words)
    if (text == w) return e;
  throw std::logic_error("operations.schema.json admits '" + text + "', which the loader does not know");
}

// "requests/domains.list.json" -> "requests/domains.list", the registry's name for it.
std::string SchemaName(const std::string& file) {
  constexpr std::string_view kExt = ".json";
  return file.size() > kExt.size() ? file.substr(0, file.size() - kExt.size()) : file;
}

// "operations[3] (domains.buy)": where a problem is, in words a reader of the file finds.
std::string Entry(const json& doc, size_t index) {
  std::string out = "operations[" + std::to_string(index) + "]";
  const json& op = doc["operations"][index];
  if (op.is_object() && op.contains("id") && op["id"].is_string()) out += " (" + op["id"].get<std::string>() + ")";
  return out;
}

Operation Parse(const json& e) {
  const auto text = [&e](const char* key) { return e.at(key).get<std::string>(); };
  Operation op;
  op.id = text("id");
  op.method = text("method");
  op.path = text("path");
  op.part = text("part");
  if (e.contains("source")) op.source = text("source");
  op.access = Word<Access>(text("access"), {{"workspace", Access::kWorkspace}, {"account", Access::kAccount},
                                            {"control", Access::kControl}});
  op.body = Word<BodyFormat>(text("body"), {{"json", BodyFormat::kJson}, {"yaml", BodyFormat::kYaml}});
  if (e.contains("bodyLimit"))
    op.bodyLimit = Word<BodySize>(text("bodyLimit"), {{"normal", BodySize::kNormal}, {"large", BodySize::kLarge}});
  op.request = SchemaName(text("request"));
  if (e.at("response").is_string()) op.response = SchemaName(text("response"));
  op.envelope = Word<Envelope>(text("envelope"), {{"status_message_data", Envelope::kStatusMessageData},
                                                  {"message_data", Envelope::kMessageData},
                                                  {"none", Envelope::kNone}});
  op.effect = Word<Effect>(text("effect"), {{"read", Effect::kRead}, {"mutates", Effect::kMutates},
                                            {"spends", Effect::kSpends}});
  op.segments = SplitPath(op.path);
  return op;
}

// What the schema cannot say about one entry; "" when all is well.
std::string Problem(const Operation& op, const Registry& schemas) {
  // The operation id names the schema files (STYLE.md): the router, the scenario runner and the
  // contract suite find them by the id, so the catalogue must say the same.
  if (op.request != "requests/" + op.id) return "request must be requests/" + op.id + ".json";
  if (!schemas.Has(op.request)) return "its request schema " + op.request + ".json does not exist";
  if (op.Public() && op.response.empty()) return "a public operation must name its response schema";
  if (!op.response.empty() && op.response != "responses/" + op.id) return "response must be responses/" + op.id + ".json";
  if (!op.response.empty() && !schemas.Has(op.response)) return "its response schema " + op.response + ".json does not exist";
  return "";
}

}  // namespace

Catalogue::Catalogue(const json& doc, const Registry& schemas, const std::string& where) {
  constexpr const char* kSchema = "operations.schema";
  if (!schemas.Has(kSchema)) throw std::runtime_error(where + ": its schema " + kSchema + ".json is missing");
  const auto issues = schemas.Check(kSchema, doc, false);
  if (!issues.empty()) {
    const Issue& first = issues.front();
    std::string at = first.Pointer();
    if (first.path.size() >= 2 && first.path[0] == "operations" && doc["operations"].is_array()) {
      const std::string& index = first.path[1];
      if (index.find_first_not_of("0123456789") == std::string::npos && index.size() < 6)
        at = Entry(doc, std::stoul(index)) + ":" + (first.path.size() > 2 ? " " + ParamName(first.path, doc, 2) : "");
    }
    throw std::runtime_error(where + ": " + at + " " + first.message +
                             (issues.size() > 1 ? " (and " + std::to_string(issues.size() - 1) + " more)" : ""));
  }
  std::set<std::string> ids;
  std::set<std::pair<std::string, std::string>> routes;  // method, path with every parameter as ":"
  const json& entries = doc["operations"];
  for (size_t i = 0; i < entries.size(); ++i) {
    Operation op = Parse(entries[i]);
    std::string problem = Problem(op, schemas);
    if (problem.empty() && !ids.insert(op.id).second) problem = "the id is used by an earlier entry";
    std::string shape;
    for (const auto& seg : op.segments) shape += "/" + (seg[0] == ':' ? std::string(":") : seg);
    if (problem.empty() && !routes.emplace(op.method, shape).second)
      problem = "an earlier entry already serves " + op.method + " " + op.path;
    if (!problem.empty()) throw std::runtime_error(where + ": " + Entry(doc, i) + ": " + problem);
    operations_.push_back(std::move(op));
  }
}

const Operation* Catalogue::Find(std::string_view id) const {
  for (const auto& op : operations_)
    if (op.id == id) return &op;
  return nullptr;
}

const Operation* Catalogue::Match(std::string_view method, std::string_view path) const {
  const auto segments = SplitPath(path);
  for (const auto& op : operations_)
    if (op.method == method && MatchSegments(op.segments, segments)) return &op;
  return nullptr;
}

}  // namespace emsim::schema
