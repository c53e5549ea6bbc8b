#pragma once
#include <string>
#include <vector>

#include "app/types.hpp"
#include "schema/catalogue.hpp"

namespace emsim::app {

// The catalogue's words (schema/catalogue.hpp), so a route built from an entry says the same.
using Access = schema::Access;
using BodyFormat = schema::BodyFormat;
using BodySize = schema::BodySize;

// One entry of the route table: a catalogue entry (api::Routes) or a test's own route. The
// strings point into the catalogue (or a test's literals), which outlive the router.
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
  // The catalogue's bodyLimit: kLarge takes --max-state-bytes instead of --max-body-bytes.
  BodySize bodyLimit = BodySize::kNormal;
};

inline constexpr bool kReadOnly = true;  // for the route table: `..., BodyFormat::kJson, kReadOnly}`


}  // namespace emsim::app
