#include "model/sinks.hpp"

#include "core/messages.hpp"
#include "model/webhooks.hpp"

namespace emsim::model {

std::string SinkReceivePath(const std::string& sink_id) { return "/_sim/sinks/" + sink_id + "/receive"; }

namespace {

// Applies the fields present in `patch`; checks ranges the schema does not express.
Status ApplyBehaviour(SinkBehaviour& b, const json& patch) {
  SinkBehaviour next = b;
  try {
    if (patch.contains("status")) next.status = patch["status"].get<std::int64_t>();
    if (patch.contains("failFirst")) next.failFirst = patch["failFirst"].get<std::int64_t>();
    if (patch.contains("failStatus")) next.failStatus = patch["failStatus"].get<std::int64_t>();
    if (patch.contains("delayMs")) next.delayMs = patch["delayMs"].get<std::int64_t>();
    if (patch.contains("redirectTo")) next.redirectTo = patch["redirectTo"].get<std::optional<std::string>>();
    if (patch.contains("redirectStatus")) next.redirectStatus = patch["redirectStatus"].get<std::int64_t>();
    if (patch.contains("closeConnection")) next.closeConnection = patch["closeConnection"].get<bool>();
    if (patch.contains("body")) next.body = patch["body"].get<std::string>();
  } catch (const std::exception& e) {
    return Error::Validation("behaviour", std::string("bad behaviour field: ") + e.what());
  }
  for (auto [name, v] : {std::pair{"status", next.status}, std::pair{"failStatus", next.failStatus}})
    if (v < 200 || v > 599) return Error::Validation(name, std::string(name) + " must be an HTTP status 200..599");
  if (next.redirectStatus < 300 || next.redirectStatus > 399)
    return Error::Validation("redirectStatus", "redirectStatus must be a 3xx status");
  if (next.failFirst < 0) return Error::Validation("failFirst", "failFirst must be 0 or more");
  if (next.delayMs < 0 || next.delayMs > 120000)
    return Error::Validation("delayMs", "delayMs must be between 0 and 120000");
  b = std::move(next);
  return Ok{};
}

}  // namespace

Result<const Sink*> CreateSink(State& s, const std::string& name, const json& behaviour, Millis now) {
  Sink sink;
  if (auto ok = ApplyBehaviour(sink.behaviour, behaviour); !ok) return ok.error();
  sink.id = "snk_" + s.ids.Token(12);
  sink.name = name;
  sink.createdAt = now;
  return &s.sinks.Insert(std::move(sink));
}

Result<const Sink*> UpdateSink(State& s, const std::string& id, const std::optional<std::string>& name,
                               const json& behaviour) {
  Sink* sink = s.sinks.Find(id);
  if (!sink) return Error::NotFound(msg::kSinkNotFound);
  if (auto ok = ApplyBehaviour(sink->behaviour, behaviour); !ok) return ok.error();
  if (name) sink->name = *name;
  return static_cast<const Sink*>(sink);
}

Result<SinkAnswer> ReceiveAtSink(State& s, const std::string& sink_id, IncomingRequest in, const SignatureProbe& sig,
                                 Millis now) {
  Sink* sink = s.sinks.Find(sink_id);
  if (!sink) return Error::NotFound(msg::kSinkNotFound);
  const SinkBehaviour& b = sink->behaviour;
  SinkRequest r;
  r.number = ++sink->received;
  r.receivedAt = now;
  r.method = std::move(in.method);
  r.path = std::move(in.path);
  r.headers = std::move(in.headers);
  r.body = std::move(in.body);

  // Which endpoints deliver here: those whose URL has this sink's receive path (any host name
  // for emsim: 127.0.0.1, localhost, a --base-url), in creation order, from the State index.
  std::vector<const WebhookEndpoint*> endpoints;
  if (auto it = s.webhookEndpointsByPath.find(SinkReceivePath(sink_id)); it != s.webhookEndpointsByPath.end())
    for (const auto& id : it->second)
      if (const WebhookEndpoint* e = s.webhookEndpoints.Find(id)) endpoints.push_back(e);
  if (endpoints.empty()) {
    r.signatureCheck = "no webhook endpoint has this sink's URL";
  } else if (sig.problem) {
    r.signatureValid = false;
    r.signatureCheck = *sig.problem;
  } else {
    r.signatureValid = false;
    r.signatureCheck = "signature does not match the secret of any endpoint with this URL";
    for (const auto* e : endpoints) {
      if (sig.matches && sig.matches(e->secret)) {
        r.signatureValid = true;
        r.signatureCheck = "verified with the secret of endpoint " + e->id;
        r.endpointId = e->id;
        break;
      }
    }
  }

  SinkAnswer a;
  a.delayMs = b.delayMs;
  if (r.number <= b.failFirst) {
    a.status = b.failStatus;
    a.body = "{\"error\":\"failing on purpose (failFirst)\"}";
    r.answer = "status " + std::to_string(a.status) + " (failFirst " + std::to_string(r.number) + "/" +
               std::to_string(b.failFirst) + ")";
  } else if (b.closeConnection) {
    a.kind = SinkAnswer::Kind::kClose;
    r.answer = "closed without answering";
  } else if (b.redirectTo) {
    a.kind = SinkAnswer::Kind::kRedirect;
    a.status = b.redirectStatus;
    a.location = *b.redirectTo;
    r.answer = "redirect " + std::to_string(a.status) + " -> " + a.location;
  } else {
    a.status = b.status;
    a.body = b.body;
    r.answer = "status " + std::to_string(a.status);
  }
  if (a.kind != SinkAnswer::Kind::kClose) r.answeredStatus = a.status;
  if (b.delayMs) r.answer += " after " + std::to_string(b.delayMs) + " ms";
  sink->requests.push_back(std::move(r));
  if (sink->requests.size() > kSinkRequestsKept) sink->requests.erase(sink->requests.begin());
  return a;
}

}  // namespace emsim::model
