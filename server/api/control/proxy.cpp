#include "api/control/proxy.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "api/control/in_process_client.hpp"
#include "app/error_mapper.hpp"
#include "core/json_limits.hpp"
#include "core/text.hpp"
#include "runtime/log.hpp"

namespace emsim::api {

namespace {

// Part 5's headers and what a body needs: everything the real deployment acts on. Not
// `authorization`: that is the proxy's own admin token, never the deployment's business.
constexpr const char* kProxyForwardedHeaders[] = {"x-auth-service", "x-workspace-key", "x-workspace-id",
                                                  "x-service-provider", "content-type", "accept"};
// Headers of the real answer the client may act on, besides its content type.
constexpr const char* kProxyReturnedHeaders[] = {"retry-after", "location", "www-authenticate"};

// Bounds on what the proxy remembers: examples per rule are set by options; ids learnt from the
// real answers are capped so a long session against a large account stays bounded.
constexpr size_t kProxyMaxLearntIds = 1'000'000;

std::string ProxyHeader(const scenario::HeaderList& headers, const std::string& lower_name) {
  for (const auto& [k, v] : headers)
    if (model::ToLower(k) == lower_name) return v;
  return "";
}

const char* ProxyEffectName(schema::Effect e) {
  switch (e) {
    case schema::Effect::kRead: return "read";
    case schema::Effect::kMutates: return "mutates";
    case schema::Effect::kSpends: return "spends";
  }
  return "read";
}

bool ProxyIs2xx(int status) { return status >= 200 && status < 300; }

// An answer's body as JSON, parsed under the limits of an answer the scenario runner reads.
std::optional<json> ProxyParseAnswer(const std::string& body) {
  auto parsed = model::ParseJsonLimited(body, model::kAnswerJsonLimits, "answer");
  if (!parsed) return std::nullopt;
  return std::move(*parsed);
}

}  // namespace

std::map<std::string, std::string> ParseApiKeyMap(const std::string& text) {
  std::map<std::string, std::string> out;
  size_t from = 0;
  while (from <= text.size()) {
    size_t comma = text.find(',', from);
    if (comma == std::string::npos) comma = text.size();
    const std::string entry = text.substr(from, comma - from);
    from = comma + 1;
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      throw std::invalid_argument("--api-key-map entries are REAL=SHADOW, got '" + entry + "'");
    out[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return out;
}

ShadowProxy::ShadowProxy(ProxyOptions options, app::Services& shadow, http::RequestHandler& shadow_pipeline,
                         std::unique_ptr<scenario::Client> target)
    : options_(std::move(options)), shadow_(shadow), shadow_pipeline_(shadow_pipeline), target_(std::move(target)) {}

size_t ShadowProxy::BodyLimit(const std::string& method, const std::string& path) const {
  return shadow_pipeline_.BodyLimit(method, path);
}

http::Response ShadowProxy::Refuse(const http::Refusal& refusal, const std::string& method, const std::string& path,
                                   bool record) {
  return shadow_pipeline_.Refuse(refusal, method, path, record);
}

http::Response ShadowProxy::ErrorAnswer(int status, const std::string& message) {
  // The 401/500 shape of Part 7 (DESIGN.md: other statuses use it too), from the one error mapper.
  http::Response r = app::ToResponse(model::Error{model::ErrorCode::kInternal, message, {}}, shadow_.errorIds.Next());
  r.status = status;
  r.body["status"] = status;
  return r;
}

http::Response ShadowProxy::Handle(http::RawRequest raw) {
  try {
    if (raw.path == "/_sim/proxy/report") return ServeReport(raw);
    // The rest of /_sim is the shadow's own control plane: its state, journal and clock.
    if (raw.path.rfind("/_sim", 0) == 0) return shadow_pipeline_.Handle(std::move(raw));
    const schema::Operation* op = shadow_.schemas.Operations().Match(raw.method, raw.path);
    return Forward(op, std::move(raw));
  } catch (const std::exception& e) {
    runtime::Log("error", "proxy: request failed", {{"error", e.what()}});
    return ErrorAnswer(500, std::string("emsim proxy: internal error: ") + e.what());
  } catch (...) {
    return ErrorAnswer(500, "emsim proxy: internal error");
  }
}

http::Response ShadowProxy::Forward(const schema::Operation* op, http::RawRequest raw) {
  const std::string op_id = op ? op->id : "unknown";
  // The catalogue's effect says what an operation does; of a path it does not list (Part 4.11
  // names operations without paths) only the safe methods are taken to read.
  const bool writes = op ? op->effect != schema::Effect::kRead : raw.method != "GET" && raw.method != "HEAD";
  std::vector<Difference> found;
  if (op) found = RequestProblems(*op, raw);

  if (writes && !options_.allowMutations) {
    const std::string what = op ? op_id + " " + ProxyEffectName(op->effect)
                                : raw.method + " " + raw.path + " is no operation of the catalogue, may change data,";
    const std::string message =
        "emsim proxy: " + what + " and was not sent to the target: start the proxy with --allow-mutations to forward it";
    found.push_back({kRuleMutationRefused, "request", message, "not sent", ""});
    Record(op_id, raw.method, raw.path, found, false, true);
    return ErrorAnswer(403, message);
  }

  scenario::ClientRequest req;
  req.method = raw.method;
  req.path = raw.path;
  for (const auto& [k, v] : raw.params) req.query.emplace_back(k, v);
  for (const char* name : kProxyForwardedHeaders)
    for (const auto& [k, v] : raw.headers)
      if (k == name) req.headers.emplace_back(k, v);
  if (!raw.body.empty()) req.body = raw.body;

  // One client for every request: cpp-httplib's client sends one request at a time, so
  // concurrent clients of the proxy reach the target one after the other.
  const scenario::ClientResponse real = target_->Send(req);
  if (real.status == 0) {
    const std::string message = "emsim proxy: the target " + options_.target + " did not answer: " + real.error;
    found.push_back({kRuleTargetUnreachable, "target", message, real.error, ""});
    Record(op_id, raw.method, raw.path, found, false, false);
    return ErrorAnswer(502, message);
  }

  // The replay on the shadow, as the shadow's fixture account (Part 5: the key selects the account).
  scenario::ClientRequest replay = req;
  for (auto& [k, v] : replay.headers)
    if (k == "x-auth-service")
      if (auto it = options_.apiKeyMap.find(v); it != options_.apiKeyMap.end()) v = it->second;
  InProcessClient shadow_client(shadow_pipeline_);
  const scenario::ClientResponse shadow = shadow_client.Send(replay);

  const std::optional<json> real_body = ProxyParseAnswer(real.body);
  const std::optional<json> shadow_body = ProxyParseAnswer(shadow.body);
  // The real answer on its own: envelope, schema, enum values (Parts 2, 4, 7).
  if (op)
    for (auto& f : schema::CheckAnswer(shadow_.schemas, *op, real.status, real_body.value_or(json()), real_body.has_value()))
      found.push_back({f.rule, f.field, f.message, f.real, f.shadow});

  // The real answer against the shadow's prediction.
  std::vector<Difference> compared;
  if (real.status != shadow.status) {
    const std::string r = std::to_string(real.status), s = std::to_string(shadow.status);
    if (writes && ProxyIs2xx(real.status) != ProxyIs2xx(shadow.status))
      compared.push_back({kRuleStateChange, "effect",
                          ProxyIs2xx(real.status) ? "the real deployment made the change, emsim refused it"
                                                  : "emsim made the change, the real deployment refused it",
                          r + (ProxyIs2xx(real.status) ? " (changed)" : " (refused)"),
                          s + (ProxyIs2xx(shadow.status) ? " (changed)" : " (refused)")});
    else
      compared.push_back({kRuleStatusCode, "HTTP status", "the real deployment answered " + r + ", emsim " + s, r, s});
  } else if (real_body && shadow_body) {
    for (auto& f : schema::CompareShapes(*real_body, *shadow_body))
      compared.push_back({f.rule, f.field, f.message, f.real, f.shadow});
  }
  // A request about a record only the real deployment has: its answer says nothing about emsim.
  if (!compared.empty()) {
    if (const std::string id = UnpredictableIdIn(raw); !id.empty()) {
      std::string rules;
      for (const auto& c : compared) rules += (rules.empty() ? "" : ", ") + c.rule;
      compared = {{kRuleUnknownToShadow, "id " + id,
                   "the request names a record emsim's shadow has not got (seen in a real answer only), so "
                   "what it predicted is not a difference: " + rules,
                   "", ""}};
    }
  }
  found.insert(found.end(), compared.begin(), compared.end());

  // What it has seen: ids the real answers hold and the shadow's do not.
  if (ProxyIs2xx(real.status) && real_body) {
    std::set<std::string> real_ids, shadow_ids;
    CollectIds(*real_body, real_ids);
    if (shadow_body) CollectIds(*shadow_body, shadow_ids);
    std::lock_guard lock(mu_);
    for (const auto& id : real_ids)
      if (!shadow_ids.count(id) && unpredictable_.size() < kProxyMaxLearntIds) unpredictable_.insert(id);
  }
  Record(op_id, raw.method, raw.path, found, true, false);

  // The client gets the real answer unchanged: status, body, and the headers it acts on.
  http::Response out;
  out.status = real.status;
  out.raw = real.body;
  out.contentType = ProxyHeader(real.headers, "content-type");
  if (out.contentType.empty()) out.contentType = "application/octet-stream";
  for (const char* name : kProxyReturnedHeaders)
    if (std::string v = ProxyHeader(real.headers, name); !v.empty()) out.headers.emplace_back(name, v);
  return out;
}

std::vector<ShadowProxy::Difference> ShadowProxy::RequestProblems(const schema::Operation& op,
                                                                  const http::RawRequest& raw) const {
  std::vector<Difference> out;
  // The document the router checks (router.cpp, CheckRequest): repeated query keys as arrays.
  json doc = json::object();
  doc["query"] = json::object();
  for (const auto& [k, v] : raw.params) {
    json& q = doc["query"];
    if (!q.contains(k)) q[k] = v;
    else if (q[k].is_array()) q[k].push_back(v);
    else q[k] = json::array({q[k], v});
  }
  if (!raw.body.empty() && op.body == schema::BodyFormat::kJson) {
    auto parsed = model::ParseJsonLimited(raw.body, model::kRequestJsonLimits, "body");
    if (!parsed) {
      out.push_back({kRuleRequestSchema, "body", parsed.error().message, "", ""});
      return out;
    }
    doc["body"] = std::move(*parsed);
  }
  const std::string name = "requests/" + op.id;
  if (!shadow_.schemas.Has(name)) return out;
  for (const auto& fe : shadow_.schemas.CheckRequest(name, doc, false))
    out.push_back({kRuleRequestSchema, fe.location + "." + fe.param, fe.msg, "", ""});
  return out;
}

void ShadowProxy::CollectIds(const json& body, std::set<std::string>& out) {
  // Iterative: the body was parsed under limits, but no walk here recurses on client data.
  std::vector<const json*> todo{&body};
  while (!todo.empty()) {
    const json* node = todo.back();
    todo.pop_back();
    if (node->is_array()) {
      for (const auto& v : *node) todo.push_back(&v);
    } else if (node->is_object()) {
      for (const auto& [k, v] : node->items()) {
        const bool id_key = k == "id" || (k.size() > 2 && k.compare(k.size() - 2, 2, "Id") == 0);
        if (id_key && v.is_string() && !v.get_ref<const std::string&>().empty()) out.insert(v.get<std::string>());
        else if (v.is_structured()) todo.push_back(&v);
      }
    }
  }
}

std::string ShadowProxy::UnpredictableIdIn(const http::RawRequest& raw) const {
  std::lock_guard lock(mu_);
  if (unpredictable_.empty()) return "";
  for (const auto& segment : schema::SplitPath(raw.path))
    if (unpredictable_.count(segment)) return segment;
  for (const auto& [k, v] : raw.params)
    if (unpredictable_.count(v)) return v;
  if (raw.body.empty()) return "";
  auto parsed = model::ParseJsonLimited(raw.body, model::kRequestJsonLimits, "body");
  if (!parsed) return "";
  std::vector<const json*> todo{&*parsed};
  while (!todo.empty()) {
    const json* node = todo.back();
    todo.pop_back();
    if (node->is_string() && unpredictable_.count(node->get_ref<const std::string&>())) return node->get<std::string>();
    if (node->is_structured())
      for (const auto& v : *node) todo.push_back(&v);
  }
  return "";
}

void ShadowProxy::Record(const std::string& op, const std::string& method, const std::string& path,
                         const std::vector<Difference>& found, bool forwarded, bool refused) {
  {
    std::lock_guard lock(mu_);
    ++requests_;
    if (forwarded) ++forwarded_;
    if (refused) ++refused_;
    OperationTally& tally = operations_[op];
    ++tally.requests;
    for (const auto& d : found) {
      ++differences_;
      ++tally.differences;
      RuleTally& rule = tally.rules[d.rule];
      ++rule.count;
      if (rule.examples.size() < options_.examplesPerRule)
        rule.examples.push_back({{"field", d.field}, {"message", d.message}, {"real", d.real}, {"shadow", d.shadow},
                                 {"method", method}, {"path", path}});
    }
  }
  // The live log: one line per difference, as it happens.
  if (!runtime::LogEnabled("warn")) return;
  for (const auto& d : found) {
    runtime::LogFields fields = {{"operation", op}, {"rule", d.rule}, {"field", d.field}};
    if (!d.real.empty()) fields["real"] = d.real;
    if (!d.shadow.empty()) fields["shadow"] = d.shadow;
    fields["message"] = d.message;
    fields["method"] = method;
    fields["path"] = path;
    runtime::Log("warn", "proxy difference", fields);
  }
}

json ShadowProxy::Report() const {
  std::lock_guard lock(mu_);
  json ops = json::object();
  for (const auto& [id, tally] : operations_) {
    json rules = json::object();
    for (const auto& [name, rule] : tally.rules) rules[name] = {{"count", rule.count}, {"examples", rule.examples}};
    ops[id] = {{"requests", tally.requests}, {"differences", tally.differences}, {"rules", std::move(rules)}};
  }
  return {{"target", options_.target},   {"allowMutations", options_.allowMutations},
          {"requests", requests_},       {"forwarded", forwarded_},
          {"refused", refused_},         {"differences", differences_},
          {"unknownToShadowIds", unpredictable_.size()}, {"operations", std::move(ops)}};
}

std::string ShadowProxy::ReportText() const {
  const json r = Report();
  std::string out = "emsim proxy report: target " + r["target"].get<std::string>() + ", mutations " +
                    (r["allowMutations"].get<bool>() ? "forwarded" : "refused") + "\n";
  out += std::to_string(r["requests"].get<size_t>()) + " requests: " + std::to_string(r["forwarded"].get<size_t>()) +
         " forwarded, " + std::to_string(r["refused"].get<size_t>()) + " refused; " +
         std::to_string(r["differences"].get<size_t>()) + " differences\n";
  for (const auto& [id, op] : r["operations"].items()) {
    out += "\n" + id + ": " + std::to_string(op["requests"].get<size_t>()) + " requests, " +
           std::to_string(op["differences"].get<size_t>()) + " differences\n";
    for (const auto& [rule, tally] : op["rules"].items()) {
      out += "  " + rule + " x" + std::to_string(tally["count"].get<size_t>()) + "\n";
      for (const auto& e : tally["examples"]) {
        out += "    " + e["field"].get<std::string>() + ": " + e["message"].get<std::string>();
        const std::string real = e["real"].get<std::string>(), shadow = e["shadow"].get<std::string>();
        if (!real.empty() && !shadow.empty()) out += " [real " + real + ", emsim " + shadow + "]";
        else if (!real.empty()) out += " [real " + real + "]";
        out += " (" + e["method"].get<std::string>() + " " + e["path"].get<std::string>() + ")\n";
      }
    }
  }
  return out;
}

void ShadowProxy::ClearReport() {
  std::lock_guard lock(mu_);
  requests_ = forwarded_ = refused_ = differences_ = 0;
  operations_.clear();
}

http::Response ShadowProxy::ServeReport(const http::RawRequest& raw) {
  // With --admin-token, the report is /_sim like the rest: the shadow's router decides who may
  // read it, by the same check as any /_sim request of it.
  if (!shadow_.options.adminToken.empty()) {
    http::RawRequest probe;
    probe.method = "GET";
    probe.path = "/_sim/health";
    for (const auto& [k, v] : raw.headers)
      if (k == "authorization") probe.headers.emplace_back(k, v);
    http::Response denied = shadow_pipeline_.Handle(std::move(probe));
    if (denied.status == 401) return denied;
  }
  if (raw.method == "DELETE") {
    size_t cleared = 0;
    {
      std::lock_guard lock(mu_);
      cleared = requests_;
    }
    ClearReport();
    return http::Response{.status = 200, .body = {{"status", "ok"}, {"cleared", cleared}}};
  }
  if (raw.method != "GET") {
    http::Response r = ErrorAnswer(405, "GET or DELETE /_sim/proxy/report");
    r.headers.emplace_back("allow", "GET, DELETE");
    return r;
  }
  auto format = raw.params.find("format");
  const auto accept = raw.headers.find("accept");
  const bool text = (format != raw.params.end() && format->second == "text") ||
                    (format == raw.params.end() && accept != raw.headers.end() &&
                     accept->second.find("text/plain") != std::string::npos);
  if (text) return http::Response{.status = 200, .raw = ReportText(), .contentType = "text/plain; charset=utf-8"};
  return http::Response{.status = 200, .body = Report()};
}

}  // namespace emsim::api
