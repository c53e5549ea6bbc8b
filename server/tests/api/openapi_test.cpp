// GET /_sim/openapi.json: the generated OpenAPI 3.1 document covers the whole catalogue, is
// self-contained (every $ref local and resolving), and its schemas judge requests as emsim does.
// Spectral's lint and Prism's validating proxy check it further (scripts/test.d/32-openapi.sh).
#include <algorithm>
#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "api/control/openapi.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

// Every string under a "$ref" key, anywhere in `node`.
void CollectOpenApiRefs(const json& node, std::vector<std::string>& out) {
  if (node.is_object()) {
    for (const auto& [k, v] : node.items()) {
      if (k == "$ref" && v.is_string()) out.push_back(v.get<std::string>());
      CollectOpenApiRefs(v, out);
    }
  } else if (node.is_array()) {
    for (const auto& v : node) CollectOpenApiRefs(v, out);
  }
}

// Whether `body` conforms to `schema` (a schema of the document), with valijson as emsim uses it.
bool OpenApiAccepts(const json& schema, const json& body) {
  valijson::Schema compiled;
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter schema_adapter(schema);
  parser.populateSchema(schema_adapter, compiled);
  valijson::Validator validator;
  valijson::adapters::NlohmannJsonAdapter target(body);
  return validator.validate(compiled, target, nullptr);
}

json FetchOpenApi(TestServer& server) {
  auto r = server.Get("/_sim/openapi.json", "");
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body;
}

TEST(OpenApi, ServedAtSimOpenapiJsonAs310) {
  TestServer server;
  auto r = server.Get("/_sim/openapi.json", "");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("Content-Type").rfind("application/json", 0), 0u) << r.Header("Content-Type");
  EXPECT_EQ(r.body["openapi"], "3.1.0");
  EXPECT_EQ(r.body["info"]["title"], "emsim");
  EXPECT_EQ(r.body["info"]["version"], EMSIM_VERSION);
  ASSERT_EQ(r.body["servers"].size(), 1u);
  EXPECT_EQ(r.body["servers"][0]["url"], server.svc().baseUrl);
  // The same document as the generator's, and a query is refused like any /_sim query it does not take.
  EXPECT_EQ(r.body, api::OpenApiDocument(server.svc().schemas, server.svc().baseUrl));
  EXPECT_EQ(server.Get("/_sim/openapi.json?x=1", "").status, 400);
}

TEST(OpenApi, EveryCatalogueOperationUnderItsPathAndMethod) {
  TestServer server;
  const json doc = FetchOpenApi(server);
  const auto& ops = server.svc().schemas.Operations().All();
  ASSERT_GT(ops.size(), 50u);
  size_t count = 0;
  for (const auto& [path, item] : doc["paths"].items())
    for (const auto& [method, op] : item.items()) {
      (void)method;
      (void)op;
      ++count;
    }
  EXPECT_EQ(count, ops.size()) << "one document operation per catalogue entry, no more";
  for (const auto& op : ops) {
    std::string path;
    std::vector<std::string> params;
    for (const auto& seg : op.segments) {
      if (seg[0] == ':') {
        path += "/{" + seg.substr(1) + "}";
        params.push_back(seg.substr(1));
      } else {
        path += "/" + seg;
      }
    }
    std::string method = op.method;
    std::transform(method.begin(), method.end(), method.begin(), [](unsigned char c) { return std::tolower(c); });
    ASSERT_TRUE(doc["paths"].contains(path)) << op.id << ": no path " << path;
    ASSERT_TRUE(doc["paths"][path].contains(method)) << op.id << ": no " << method << " under " << path;
    const json& o = doc["paths"][path][method];
    EXPECT_EQ(o["operationId"], op.id);
    EXPECT_EQ(o["tags"], json::array({op.Public() ? op.part : std::string("control plane")})) << op.id;
    // Path parameters declared, required.
    for (const auto& name : params) {
      bool found = false;
      for (const auto& p : o.value("parameters", json::array()))
        found = found || (p["in"] == "path" && p["name"] == name && p["required"] == true);
      EXPECT_TRUE(found) << op.id << ": path parameter " << name << " not declared";
    }
    // Query parameters: one per property of the request schema's "query".
    const json& request = server.svc().schemas.Resolved(op.request);
    if (request.contains("properties") && request["properties"].contains("query") &&
        request["properties"]["query"].contains("properties"))
      for (const auto& [name, s] : request["properties"]["query"]["properties"].items()) {
        (void)s;
        bool found = false;
        for (const auto& p : o.value("parameters", json::array())) found = found || (p["in"] == "query" && p["name"] == name);
        EXPECT_TRUE(found) << op.id << ": query parameter " << name << " not declared";
      }
    // A JSON body exactly when the request schema has one.
    const bool has_body = request.contains("properties") && request["properties"].contains("body");
    EXPECT_EQ(o.contains("requestBody"), has_body || op.body == schema::BodyFormat::kYaml) << op.id;
    // The success answer, and Part 7's errors.
    ASSERT_TRUE(o.contains("responses")) << op.id;
    const json& res = o["responses"];
    if (op.Public()) {
      ASSERT_TRUE(res.contains("200")) << op.id;
      EXPECT_EQ(res["200"]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/" + op.id + ".response");
      EXPECT_EQ(o["security"], json::parse(R"([{"apiKey": []}])")) << op.id;
    } else {
      EXPECT_TRUE(res.contains("200") || res.contains("201") || res.contains("202")) << op.id;
      // The resend schedules deliveries and answers 202 (api/control/events.cpp).
      if (op.id == "sim.events.resend") {
        EXPECT_TRUE(res.contains("202")) << op.id;
      }
    }
    EXPECT_EQ(res["400"]["$ref"], "#/components/responses/ValidationError") << op.id;
    EXPECT_EQ(res["401"]["$ref"], "#/components/responses/Error") << op.id;
    EXPECT_EQ(res["500"]["$ref"], "#/components/responses/Error") << op.id;
  }
  EXPECT_EQ(doc["components"]["securitySchemes"]["apiKey"]["name"], "x-auth-service");
  EXPECT_EQ(doc["components"]["securitySchemes"]["apiKey"]["in"], "header");
  EXPECT_EQ(doc["components"]["securitySchemes"]["adminToken"]["scheme"], "bearer");
}

TEST(OpenApi, EveryRefIsLocalAndResolves) {
  TestServer server;
  const json doc = FetchOpenApi(server);
  std::vector<std::string> refs;
  CollectOpenApiRefs(doc, refs);
  ASSERT_GT(refs.size(), 100u);
  for (const auto& ref : refs) {
    ASSERT_EQ(ref.rfind("#/", 0), 0u) << "an external $ref: " << ref;
    EXPECT_TRUE(doc.contains(json::json_pointer(ref.substr(1)))) << "a dangling $ref: " << ref;
  }
  // Draft-07 leftovers and emsim's own keyword do not appear in any schema.
  const std::string text = doc["components"].dump();
  EXPECT_EQ(text.find("\"errorMessage\""), std::string::npos);
  EXPECT_EQ(text.find("\"definitions\""), std::string::npos);
  EXPECT_EQ(text.find("\"$schema\""), std::string::npos);
  EXPECT_NE(text.find("\"x-emsim-errorMessage\""), std::string::npos);
  // Every component is used.
  std::set<std::string> used(refs.begin(), refs.end());
  for (const auto& kind : {"schemas", "responses"})
    for (const auto& [name, s] : doc["components"][kind].items()) {
      (void)s;
      EXPECT_TRUE(used.count(std::string("#/components/") + kind + "/" + name)) << "unused component " << kind << "/" << name;
    }
}

TEST(OpenApi, SchemaAdaptationRenamesDraft07Keywords) {
  const json in = json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "errorMessage": "must be an object",
    "definitions": {"a": {"type": "string"}},
    "dependencies": {"x": ["y"], "z": {"required": ["w"]}},
    "properties": {
      "definitions": {"$ref": "#/definitions/a"},
      "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
      "list": {"type": "array", "items": {"type": "string", "errorMessage": "text"}},
      "fixed": {"const": {"errorMessage": "data, not a keyword"}}
    }
  })");
  const json out = api::OpenApiSchema(in);
  EXPECT_FALSE(out.contains("$schema"));
  EXPECT_FALSE(out.contains("errorMessage"));
  EXPECT_EQ(out["x-emsim-errorMessage"], "must be an object");
  EXPECT_EQ(out["$defs"]["a"], json({{"type", "string"}}));
  EXPECT_EQ(out["dependentRequired"]["x"], json::array({"y"}));
  EXPECT_EQ(out["dependentSchemas"]["z"]["required"], json::array({"w"}));
  EXPECT_EQ(out["properties"]["definitions"]["$ref"], "#/$defs/a");  // a property's name is not a keyword
  EXPECT_EQ(out["properties"]["pair"]["prefixItems"].size(), 2u);
  EXPECT_EQ(out["properties"]["pair"]["items"], false);
  EXPECT_EQ(out["properties"]["list"]["items"]["x-emsim-errorMessage"], "text");
  EXPECT_EQ(out["properties"]["fixed"]["const"], json({{"errorMessage", "data, not a keyword"}}));
}

// The document's body schema of POST /v2/placement-tests/purchase judges bodies as emsim does:
// what it accepts emsim accepts, and a body missing a required field is refused by both.
TEST(OpenApi, RequestBodySchemaJudgesLikeEmsim) {
  TestServer server;
  const json doc = FetchOpenApi(server);
  const json& op = doc["paths"]["/v2/placement-tests/purchase"]["post"];
  ASSERT_EQ(op["requestBody"]["required"], true);
  const std::string ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"];
  const json schema = doc.at(json::json_pointer(ref.substr(1)));
  EXPECT_EQ(schema["required"], json::array({"placementType", "testName", "mailboxIds"}));

  const json good = {{"placementType", "ONE_TIME"}, {"testName", "t"}, {"mailboxIds", {"mbx_nw_01_01"}}};
  EXPECT_TRUE(OpenApiAccepts(schema, good));
  EXPECT_EQ(server.Post("/v2/placement-tests/purchase", good).status, 200);
  for (const std::string field : {"placementType", "testName", "mailboxIds"}) {
    json bad = good;
    bad.erase(field);
    EXPECT_FALSE(OpenApiAccepts(schema, bad)) << field;
    auto r = server.Post("/v2/placement-tests/purchase", bad);
    EXPECT_EQ(r.status, 400) << field << ": " << r.raw;
    EXPECT_EQ(r.body["errors"][0]["param"], field) << r.raw;
  }
  json wrong = good;
  wrong["placementType"] = "WEEKLY";
  EXPECT_FALSE(OpenApiAccepts(schema, wrong));
  EXPECT_EQ(server.Post("/v2/placement-tests/purchase", wrong).status, 400);
  // The answer emsim gave fits the document's 200 schema.
  auto answer = server.Post("/v2/placement-tests/purchase", good);
  const std::string res_ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"];
  EXPECT_TRUE(OpenApiAccepts(doc.at(json::json_pointer(res_ref.substr(1))), answer.body)) << answer.raw;
  // And its 400 fits the ValidationError component.
  json bad = good;
  bad.erase("testName");
  EXPECT_TRUE(OpenApiAccepts(doc["components"]["schemas"]["ValidationError"], server.Post("/v2/placement-tests/purchase", bad).body));
}

}  // namespace
}  // namespace emsim::testing
