#include "api/control/openapi.hpp"

#include <cctype>
#include <set>
#include <string_view>

namespace emsim::api {

namespace {

// The keywords whose value is one schema, a list of schemas, or a map of names to schemas: the
// only places OpenApiSchema descends into (anything else, enum or const or default, is data).
const std::set<std::string_view> kOasOneSchema = {
    "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
    "unevaluatedProperties", "unevaluatedItems", "items"};
const std::set<std::string_view> kOasSchemaList = {"allOf", "anyOf", "oneOf", "prefixItems"};
const std::set<std::string_view> kOasSchemaMap = {"properties", "patternProperties", "definitions", "$defs",
                                                  "dependentSchemas"};

// `base` is where the schema sits in the document ("#/components/schemas/X"): a "#/..." ref of a
// component schema is rewritten below it, since in OpenAPI it resolves against the document root.
json OasAdapt(const json& node, const std::string& base) {
  if (!node.is_object()) return node;  // true / false schemas
  json out = json::object();
  for (const auto& [k, v] : node.items()) {
    if (k == "$schema" || k == "$id") continue;
    if (k == "errorMessage") {
      out["x-emsim-errorMessage"] = v;
    } else if (k == "$ref" && v.is_string()) {
      std::string ref = v.get<std::string>();
      if (ref.rfind("#/definitions/", 0) == 0) ref = "#/$defs/" + ref.substr(14);
      if (ref.rfind("#/", 0) == 0 || ref == "#") ref = base + ref.substr(1);
      out["$ref"] = ref;
    } else if (k == "dependencies" && v.is_object()) {
      for (const auto& [name, dep] : v.items()) {
        if (dep.is_array()) out["dependentRequired"][name] = dep;
        else out["dependentSchemas"][name] = OasAdapt(dep, base);
      }
    } else if (k == "items" && v.is_array()) {
      json list = json::array();
      for (const auto& s : v) list.push_back(OasAdapt(s, base));
      out["prefixItems"] = std::move(list);
    } else if (k == "additionalItems") {
      // Only meaningful beside an items array (draft-07), which became prefixItems.
      if (node.contains("items") && node["items"].is_array()) out["items"] = OasAdapt(v, base);
    } else if (kOasSchemaMap.count(k) && v.is_object()) {
      json map = json::object();
      for (const auto& [name, s] : v.items()) map[name] = OasAdapt(s, base);
      out[k == "definitions" ? "$defs" : k] = std::move(map);
    } else if (kOasSchemaList.count(k) && v.is_array()) {
      json list = json::array();
      for (const auto& s : v) list.push_back(OasAdapt(s, base));
      out[k] = std::move(list);
    } else if (kOasOneSchema.count(k)) {
      out[k] = OasAdapt(v, base);
    } else {
      out[k] = v;
    }
  }
  return out;
}

std::string OasRef(const std::string& component) { return "#/components/schemas/" + component; }

// "/_sim/checkout/:id/complete" -> "/_sim/checkout/{id}/complete"
std::string OasPath(const schema::Operation& op) {
  std::string out;
  for (const auto& seg : op.segments) out += "/" + (seg.size() > 1 && seg[0] == ':' ? "{" + seg.substr(1) + "}" : seg);
  return out.empty() ? "/" : out;
}

const char* OasEnvelopeName(schema::Envelope e) {
  switch (e) {
    case schema::Envelope::kStatusMessageData: return "status_message_data";
    case schema::Envelope::kMessageData: return "message_data";
    case schema::Envelope::kNone: return "none";
  }
  return "none";
}

const char* OasEffectName(schema::Effect e) {
  switch (e) {
    case schema::Effect::kRead: return "read";
    case schema::Effect::kMutates: return "mutates";
    case schema::Effect::kSpends: return "spends";
  }
  return "read";
}

const char* OasAccessName(schema::Access a) {
  switch (a) {
    case schema::Access::kWorkspace: return "workspace";
    case schema::Access::kAccount: return "account";
    case schema::Access::kControl: return "control";
  }
  return "control";
}

// The /_sim answers are each handler's own JSON (no response schema in the catalogue); these
// create something and answer 201 (api/control/*.cpp), every other one 200. Prism's check of the
// contract suite's traffic (scripts/test.d/32-openapi.sh) finds a 201 missing here.
const std::set<std::string_view> kOasCreated = {"sim.sinks.create", "sim.faults.create", "sim.events.trigger",
                                                "sim.trigger", "sim.tenants.create"};
// These schedule work and answer 202 with what was scheduled.
const std::set<std::string_view> kOasAccepted = {"sim.events.resend"};
// A sink's receiving address: open even with --admin-token (its catalogue note), and it answers
// whatever status and body the sink is configured with.
constexpr std::string_view kOasSinkReceive = "sim.sinks.receive";
// The dashboard's files: open too (the page holds no data), HTML, CSS or JavaScript, 304 when the
// browser's copy is current (api/control/ui.hpp).
const std::set<std::string_view> kOasUi = {"sim.ui.page", "sim.ui.file"};
// Payment links: a browser (Accept preferring text/html) gets the checkout page, and completing
// from its form answers 303 back to the page (api/control/checkout_page.hpp).
const std::set<std::string_view> kOasCheckoutPages = {"sim.checkout.get", "sim.placement_checkouts.get"};
const std::set<std::string_view> kOasCheckoutForms = {"sim.checkout.complete", "sim.placement_checkouts.complete"};

// The error statuses emsim answers (app/error_mapper.cpp): 400 is the validation shape, the rest
// the {status, message, errorId} one.
constexpr int kOasErrorStatuses[] = {401, 404, 405, 413, 415, 429, 500};

json OasOperation(const schema::Operation& op, const schema::Registry& schemas, json& components) {
  json o = json::object();
  o["operationId"] = op.id;
  o["tags"] = json::array({op.Public() ? op.part : std::string("control plane")});
  const json& request = schemas.Resolved(op.request);
  const json& req_props = request.contains("properties") ? request["properties"] : json::object();
  if (request.contains("title") && request["title"].is_string()) o["summary"] = request["title"];
  // An operation the spec names without a path says where its shape comes from instead.
  const std::string origin = !op.source.empty() ? op.part + ", not the spec: " + op.source
                             : op.Public()      ? op.part + " of the spec"
                                                : std::string("emsim's control plane");
  if (!op.source.empty()) o["x-emsim-source"] = op.source;
  o["description"] = origin +
                     "; access " + OasAccessName(op.access) + ", effect " + OasEffectName(op.effect) +
                     ", envelope " + OasEnvelopeName(op.envelope) + ".";
  o["x-emsim-access"] = OasAccessName(op.access);
  o["x-emsim-effect"] = OasEffectName(op.effect);
  o["x-emsim-envelope"] = OasEnvelopeName(op.envelope);

  // ---- parameters: path, query, the workspace headers ---------------------------------------------
  json params = json::array();
  for (const auto& seg : op.segments)
    if (seg.size() > 1 && seg[0] == ':')
      params.push_back({{"name", seg.substr(1)}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}});
  if (req_props.contains("query") && req_props["query"].is_object()) {
    const json& q = req_props["query"];
    std::set<std::string> required;
    if (q.contains("required") && q["required"].is_array())
      for (const auto& r : q["required"]) required.insert(r.get<std::string>());
    if (q.contains("properties") && q["properties"].is_object())
      for (const auto& [name, s] : q["properties"].items()) {
        json p = {{"name", name}, {"in", "query"}, {"required", required.count(name) > 0},
                  {"schema", OasAdapt(s, "#")}};
        if (s.is_object() && s.contains("description")) p["description"] = s["description"];
        params.push_back(std::move(p));
      }
  }
  if (op.access == schema::Access::kWorkspace) {
    params.push_back({{"name", "x-workspace-key"}, {"in", "header"}, {"required", false},
                      {"description", "selects the workspace (else the account's default one)"},
                      {"schema", {{"type", "string"}}}});
    params.push_back({{"name", "x-workspace-id"}, {"in", "header"}, {"required", false},
                      {"description", "selects the workspace by id"}, {"schema", {{"type", "string"}}}});
  }
  if (!params.empty()) o["parameters"] = std::move(params);

  // ---- the body ---------------------------------------------------------------------------------
  if (op.body == schema::BodyFormat::kYaml) {
    o["requestBody"] = {{"required", true},
                        {"description", "YAML, parsed by the handler itself (its errors name lines)"},
                        {"content", {{"application/yaml", {{"schema", {{"type", "string"}}}}}}}};
  } else if (req_props.contains("body")) {
    const std::string name = op.id + ".request";
    components["schemas"][name] = OasAdapt(req_props["body"], OasRef(name));
    bool required = false;
    if (request.contains("required") && request["required"].is_array())
      for (const auto& r : request["required"]) required = required || r == "body";
    o["requestBody"] = {{"required", required},
                        {"content", {{"application/json", {{"schema", {{"$ref", OasRef(name)}}}}}}}};
  }

  // ---- the answers ------------------------------------------------------------------------------
  json responses = json::object();
  if (!op.response.empty()) {
    const std::string name = op.id + ".response";
    const json& answer = schemas.Resolved(op.response);
    components["schemas"][name] = OasAdapt(answer, OasRef(name));
    const std::string what = answer.contains("title") && answer["title"].is_string() ? answer["title"].get<std::string>()
                                                                                       : "success";
    responses["200"] = {{"description", what},
                        {"content", {{"application/json", {{"schema", {{"$ref", OasRef(name)}}}}}}}};
  } else if (kOasUi.count(op.id)) {
    responses["200"] = {{"description", "the dashboard's file, embedded in the binary"},
                        {"content", {{op.id == "sim.ui.page" ? "text/html" : "*/*", {{"schema", {{"type", "string"}}}}}}}};
    responses["304"] = {{"description", "the browser's copy (If-None-Match: its ETag) is current"}};
  } else {
    const std::string code = kOasCreated.count(op.id) ? "201" : kOasAccepted.count(op.id) ? "202" : "200";
    responses[code] = {{"description", "the handler's own JSON answer (README's control-plane table)"},
                       {"content", {{"application/json", {{"schema", json::object()}}}}}};
    if (kOasCheckoutPages.count(op.id))
      responses[code]["content"]["text/html"] = {{"schema", {{"type", "string"}}}};
    if (kOasCheckoutForms.count(op.id))
      responses["303"] = {{"description", "asked by the checkout page's form (Accept prefers text/html): back to the page"}};
  }
  responses["400"] = {{"$ref", "#/components/responses/ValidationError"}};
  for (int status : kOasErrorStatuses) responses[std::to_string(status)] = {{"$ref", "#/components/responses/Error"}};
  if (op.id == kOasSinkReceive) {
    responses["default"] = {{"description", "whatever status and body the sink is configured to answer"},
                            {"content", {{"*/*", {{"schema", json::object()}}}}}};
  } else {
    responses["default"] = {{"$ref", "#/components/responses/Error"}};
  }
  o["responses"] = std::move(responses);

  // ---- who may call it --------------------------------------------------------------------------
  if (op.Public()) o["security"] = json::array({{{"apiKey", json::array()}}});
  else if (op.id == kOasSinkReceive || kOasUi.count(op.id)) o["security"] = json::array();
  else o["security"] = json::array({json::object(), {{"adminToken", json::array()}}});
  return o;
}

}  // namespace

json OpenApiSchema(const json& draft07) { return OasAdapt(draft07, "#"); }

json OpenApiDocument(const schema::Registry& schemas, const std::string& base_url) {
  json components = {{"schemas", json::object()}};
  components["schemas"]["Error"] = OasAdapt(schemas.Resolved("resources/error_with_id"), OasRef("Error"));
  components["schemas"]["ValidationError"] =
      OasAdapt(schemas.Resolved("resources/error_validation"), OasRef("ValidationError"));
  components["responses"] = {
      {"Error",
       {{"description", "Part 7: {status, message, errorId}: 401, 404, 405, 413, 415, 429, 500 (and an injected fault)"},
        {"content", {{"application/json", {{"schema", {{"$ref", OasRef("Error")}}}}}}}}},
      {"ValidationError",
       {{"description", "Part 7: a request that breaks its schema: {status: 400, message, errors}"},
        {"content", {{"application/json", {{"schema", {{"$ref", OasRef("ValidationError")}}}}}}}}}};
  components["securitySchemes"] = {
      {"apiKey",
       {{"type", "apiKey"}, {"in", "header"}, {"name", "x-auth-service"},
        {"description", "Part 5: the account's API key, on every Part 4 operation"}}},
      {"adminToken",
       {{"type", "http"}, {"scheme", "bearer"},
        {"description", "the /_sim control plane: required only when emsim runs with --admin-token (then "
                        "`Authorization: Bearer <token>`); without one the control plane is open"}}}};

  json paths = json::object();
  std::set<std::string> parts;
  for (const auto& op : schemas.Operations().All()) {
    std::string method = op.method;
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    paths[OasPath(op)][method] = OasOperation(op, schemas, components);
    if (op.Public()) parts.insert(op.part);
  }
  json tags = json::array();
  for (const auto& p : parts)
    tags.push_back({{"name", p},
                    {"description", p.find("public reference") != std::string::npos
                                        ? "operations the spec names without a path, shaped after the public reference"
                                        : "the spec's " + p}});
  tags.push_back({{"name", "control plane"}, {"description", "/_sim: emsim's own control plane (clock, state, faults, sinks, ...)"}});

  return {{"openapi", "3.1.0"},
          {"info",
           {{"title", "emsim"},
            {"version", EMSIM_VERSION},
            {"description", "The HTTP API emsim simulates (Part 4) and its /_sim control plane, generated from "
                            "schemas/operations.json and the request and response schemas emsim validates with."},
            {"contact", {{"name", "emsim"}, {"url", base_url}}}}},
          {"servers", json::array({{{"url", base_url}, {"description", "this emsim instance"}}})},
          {"tags", std::move(tags)},
          {"paths", std::move(paths)},
          {"components", std::move(components)}};
}

app::Reply SimOpenApi(app::Ctx& ctx) { return app::Json(OpenApiDocument(ctx.svc.schemas, ctx.svc.baseUrl)); }

}  // namespace emsim::api
