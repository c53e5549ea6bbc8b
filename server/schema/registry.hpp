#pragma once
// Every JSON Schema in schemas/ compiled once at start-up (STYLE.md habit 6). Names are paths
// below the schemas folder without ".json": "requests/domains.list", "responses/domains.list",
// "events/domain.updated". A "$ref" to another file ("../resources/domain.json") is resolved
// relative to the referring file and inlined before compiling, so every compiled schema stands
// alone and messages can look up the sub-schema of any failing field.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "model/json.hpp"

namespace valijson {
class Schema;
}

namespace emsim::schema {

struct Issue {
  std::vector<std::string> path;  // segments from the document root: property names or indices
  std::string message;            // readable: "must be a string", "is required", ...
  std::string Pointer() const;    // "/body/mailboxIds/1"
};

class Registry {
 public:
  // Loads and compiles every *.json below `dir`; throws std::runtime_error naming the file when
  // one does not parse, has a dangling $ref or does not compile.
  explicit Registry(const std::filesystem::path& dir);
  ~Registry();

  bool Has(const std::string& name) const;
  std::vector<std::string> Names() const;
  const json& Resolved(const std::string& name) const;  // the inlined schema document

  // Validates `doc`; empty when it conforms. Leaf problems only (valijson's "failed to validate
  // property x" wrappers are dropped), each with a message from the schema: its "errorMessage"
  // when present, else one derived from the keyword that failed.
  // `body_alone` false skips the body-only check (a caller that made it already, BodyConformsAlone).
  std::vector<Issue> Check(const std::string& name, const json& doc, bool body_alone = true) const;
  // Whether a request document with an empty query is checked against the body's schema alone
  // first (registry.cpp, Compiled::BodyOnly), and a switch for tests that compare both ways.
  bool ChecksBodyAlone(const std::string& name) const;
  void SetBodyShortcut(bool on) { shortcut_ = on; }
  // That check on its own, for a caller holding the body outside a document: true when `body`,
  // sent with an empty query, conforms to the body's schema; false when it does not, or the schema
  // has no such check (then check the whole document).
  bool BodyConformsAlone(const std::string& name, const json& body) const;

  // Request validation (Part 7 400 shape): `doc` is {"query": {...}, "body": ...}; the first path
  // segment becomes `location`, the rest the dotted `param` ("walletBalance.currentBalance",
  // arrays as "mailboxIds[1]").
  std::vector<model::FieldError> CheckRequest(const std::string& name, const json& doc, bool body_alone = true) const;

 private:
  struct Compiled;
  // The body-only check of one compiled schema (false when it has none, or the shortcut is off).
  bool BodyConforms(const Compiled& c, const json& body) const;
  std::map<std::string, std::unique_ptr<Compiled>> schemas_;
  bool shortcut_ = true;
};

// "mailboxIds[1]" style parameter name for a path, using the document to tell indices from keys.
std::string ParamName(const std::vector<std::string>& path, const json& doc, size_t skip);

}  // namespace emsim::schema
