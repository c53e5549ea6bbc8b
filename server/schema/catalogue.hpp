#pragma once
// The one catalogue of operations, schemas/operations.json (its fields: operations.schema.json
// beside it). Three readers: the server's route table (api/routes.cpp pairs each entry with its
// handler), the contract suite (which operations exist, their envelope and what calling them
// costs) and the scenario language (the operation id of a method + path). It lives in the schema
// layer because the contract suite, which links nothing of the server above it, reads it too.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace emsim::schema {

class Registry;

enum class Access {
  kWorkspace,  // x-auth-service required; x-workspace-key / x-workspace-id select the workspace
  kAccount,    // x-auth-service required; workspace headers ignored (Part 4.10 webhooks)
  kControl,    // /_sim control plane: no API key
};

// What an operation's body is. Everything is JSON except a scenario posted to /_sim/scenarios/run,
// which is YAML the handler parses itself (so its errors can name lines).
enum class BodyFormat { kJson, kYaml };

// How large a body an operation takes: normal is --max-body-bytes; large is --max-state-bytes, for
// the operations whose body is a whole world (a state dump, a scenario with its fixtures).
enum class BodySize { kNormal, kLarge };

// Part 4 intro: most answers are {status, message, data} with status mirroring HTTP; some
// endpoints state another body.
enum class Envelope {
  kStatusMessageData,  // {status, message, data}
  kMessageData,        // {message, data}, no status (subscriptions.cancel)
  kNone,               // a body of its own (buy-domain, upgrade, DNS-shield upgrade, search, /_sim)
};

// What a successful call does to the account.
enum class Effect { kRead, kMutates, kSpends };

struct Operation {
  std::string id;       // resource.verb
  std::string method;   // GET, POST, PUT, PATCH, DELETE
  std::string path;     // "/v2/webhooks/endpoints/:id"
  std::string part;     // "Part 4.4", or "control plane"
  std::string source;   // "public reference: <page URL>" for an operation the spec names without a path; else ""
  Access access = Access::kWorkspace;
  BodyFormat body = BodyFormat::kJson;
  BodySize bodyLimit = BodySize::kNormal;  // "bodyLimit", optional in the catalogue
  std::string request;   // registry name: "requests/domains.list"
  std::string response;  // registry name: "responses/domains.list"; "" for a /_sim operation
  Envelope envelope = Envelope::kStatusMessageData;
  Effect effect = Effect::kRead;
  std::vector<std::string> segments;  // the path split at '/'

  bool Public() const { return access != Access::kControl; }
};

// The segments of a path; empty ones (a doubled or trailing slash) are dropped.
std::vector<std::string> SplitPath(std::string_view path);
// Whether `segments` of a request path fit a pattern's segments (":name" fits any one segment);
// with `params`, each parameter's value is stored under its name.
bool MatchSegments(const std::vector<std::string>& pattern, const std::vector<std::string>& segments,
                   std::map<std::string, std::string>* params = nullptr);

class Catalogue {
 public:
  Catalogue() = default;  // no operations
  // Checks `doc` against the registry's "operations.schema", then what a schema cannot say: ids
  // unique, no two entries for one method and path, the schema files named after the id and
  // present in `schemas`, a response schema for every public operation. Throws
  // std::runtime_error naming `where`, the entry and the problem.
  Catalogue(const json& doc, const Registry& schemas, const std::string& where);

  const std::vector<Operation>& All() const { return operations_; }
  const Operation* Find(std::string_view id) const;
  // The operation a request of `method` to `path` calls, or null.
  const Operation* Match(std::string_view method, std::string_view path) const;

 private:
  std::vector<Operation> operations_;
};

}  // namespace emsim::schema
