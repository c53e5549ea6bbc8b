#pragma once
// Every JSON Schema in schemas/ compiled once at start-up (STYLE.md habit 6), and the folder's
// catalogue of operations (operations.json, checked against operations.schema.json). Names are
// paths below the schemas folder without ".json": "requests/domains.list", "responses/domains.list",
// "events/domain.updated". A "$ref" to another file ("../resources/domain.json") is resolved
// relative to the referring file and inlined before compiling, so every compiled schema stands
// alone and messages can look up the sub-schema of any failing field.
// The one registry: the server validates requests with it, and the contract suite (which links
// this layer and nothing above it) checks answers and webhook envelopes with it.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "schema/catalogue.hpp"

namespace valijson {
class Schema;
}

namespace emsim::schema {

struct Issue {
  std::vector<std::string> path;  // segments from the document root: property names or indices
  std::string message;            // readable: "must be a string", "is required", ...
  std::string Pointer() const;    // "/body/mailboxIds/1"
  // Something the spec leaves open: a value outside an enum the schema marks "x-values-seen"
  // (the spec lists the values seen, not all there are) or a property beyond those a closed
  // object lists (a real deployment may add fields). The contract suite reports these as notes
  // unless --strict; emsim's own request validation treats every issue alike.
  bool open = false;
};

class Registry {
 public:
  // Loads and compiles every *.json below `dir`, then reads `dir`/operations.json when there is
  // one; throws std::runtime_error naming the file when one does not parse, has a dangling $ref,
  // does not compile, or (the catalogue) breaks its rules (Catalogue's constructor).
  explicit Registry(const std::filesystem::path& dir);
  ~Registry();

  // The catalogue of operations; empty when the folder has no operations.json.
  const Catalogue& Operations() const { return operations_; }

  bool Has(const std::string& name) const;
  std::vector<std::string> Names() const;
  const json& Resolved(const std::string& name) const;  // the inlined schema document

  // Validates `doc`; empty when it conforms. Leaf problems only (valijson's "failed to validate
  // property x" wrappers are dropped), each with a message from the schema: its "errorMessage"
  // when present, else one derived from the keyword that failed.
  // `body_alone` false checks the whole document even where the body could be checked alone.
  std::vector<Issue> Check(const std::string& name, const json& doc, bool body_alone = true) const;
  // Whether a request document with an empty query is checked against the body's schema alone
  // (registry.cpp, Compiled::BodyOnly), and a switch for tests that compare both ways.
  bool ChecksBodyAlone(const std::string& name) const;
  void SetBodyShortcut(bool on) { shortcut_ = on; }

  // Request validation (Part 7 400 shape): `doc` is {"query": {...}, "body": ...}; the first path
  // segment becomes `location`, the rest the dotted `param` ("walletBalance.currentBalance",
  // arrays as "mailboxIds[1]").
  std::vector<model::FieldError> CheckRequest(const std::string& name, const json& doc, bool body_alone = true) const;
  // The same for a request whose query is empty, from its body alone, for a caller holding the
  // body outside a document: the field errors CheckRequest would give (empty: it conforms), or
  // nullopt when the schema has no body-only check (then build the document for CheckRequest).
  std::optional<std::vector<model::FieldError>> CheckBody(const std::string& name, const json& body) const;

 private:
  struct Compiled;
  const Compiled& At(const std::string& name) const;  // throws std::out_of_range for an unknown name
  // The body-only schema of one compiled schema (null when it has none, or the shortcut is off).
  const valijson::Schema* BodySchema(const Compiled& c) const;
  // Every issue of `target` against `schema` (one of c's), rooted at "body" when `under_body`.
  std::vector<Issue> Issues(const Compiled& c, const valijson::Schema& schema, const json& target, bool under_body) const;
  std::map<std::string, std::unique_ptr<Compiled>> schemas_;
  Catalogue operations_;
  bool shortcut_ = true;
};

// "mailboxIds[1]" style parameter name for a path, using the document to tell indices from keys.
std::string ParamName(const std::vector<std::string>& path, const json& doc, size_t skip);

}  // namespace emsim::schema
