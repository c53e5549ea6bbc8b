#pragma once
// GET /_sim/openapi.json: an OpenAPI 3.1 document of every operation, generated at each call from
// the catalogue (schemas/operations.json) and the request and response schemas the server itself
// validates with (schema::Registry), never written by hand. Checked by
// server/tests/api/openapi_test.cpp and, with Spectral and Prism's validating proxy, by
// scripts/test.d/32-openapi.sh.
#include <string>

#include "app/types.hpp"
#include "schema/registry.hpp"

namespace emsim::api {

// The document: one path item per catalogue path ({param} for :param), one operation per entry
// (operationId = the catalogue id; tag = its "part", "control plane" for /_sim), its query, path
// and header parameters and its JSON body from requests/<id>, its success answer from
// responses/<id> (a /_sim answer is the handler's own: any JSON), Part 7's error shapes, and the
// security schemes (x-auth-service; the optional --admin-token bearer of /_sim). Schemas are the
// registry's inlined ones (no file $ref left) adapted from draft-07 to 2020-12, under
// components/schemas; emsim's "errorMessage" keyword becomes "x-emsim-errorMessage".
// `base_url` is the servers entry ("http://127.0.0.1:8080").
json OpenApiDocument(const schema::Registry& schemas, const std::string& base_url);

// Draft-07 -> 2020-12 for one schema: definitions -> $defs (and their "#/definitions/" refs),
// dependencies -> dependentRequired / dependentSchemas, an items array -> prefixItems (and
// additionalItems -> items), $schema / $id dropped, errorMessage -> x-emsim-errorMessage.
json OpenApiSchema(const json& draft07);

app::Reply SimOpenApi(app::Ctx& ctx);  // GET /_sim/openapi.json
}  // namespace emsim::api
