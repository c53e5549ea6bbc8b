#pragma once
#include <string>
#include <vector>

#include "app/types.hpp"

namespace emsim::app {

enum class Access {
  kWorkspace,  // x-auth-service required; x-workspace-key / x-workspace-id select the workspace
  kAccount,    // x-auth-service required; workspace headers ignored (Part 4.10 webhooks)
  kControl,    // /_sim control plane: no API key
};

// What a route's body is. Everything is JSON except a scenario posted to /_sim/scenarios/run,
// which is YAML the handler parses itself (so its errors can name lines).
enum class BodyFormat { kJson, kYaml };

struct Route {
  const char* method;
  const char* pattern;      // "/v2/webhooks/endpoints/:id"
  const char* operationId;  // resource.verb: also the schema file names and the journal's key
  Access access;
  Handler handler;
  BodyFormat body = BodyFormat::kJson;
  // A POST that changes nothing (Part 4.4's availability and DNS checks): the router runs it, as
  // a GET, in a read transaction under the shared lock, so it waits for no other reader; a Write
  // from its handler is refused (app::Ctx).
  bool readOnly = false;
};

inline constexpr bool kReadOnly = true;  // for the route table: `..., BodyFormat::kJson, kReadOnly}`


}  // namespace emsim::app
