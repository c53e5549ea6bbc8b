#include "model/sinks.hpp"

#include <cstdlib>

#include "core/json_limits.hpp"
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
    if (patch.contains("receiver")) next.receiver = patch["receiver"].get<std::string>();
    if (patch.contains("toleranceSeconds")) next.toleranceSeconds = patch["toleranceSeconds"].get<std::int64_t>();
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
  if (next.receiver != "none" && next.receiver != "naive" && next.receiver != "idempotent")
    return Error::Validation("receiver", "receiver must be none, naive or idempotent");
  if (next.toleranceSeconds < 1 || next.toleranceSeconds > 86400)
    return Error::Validation("toleranceSeconds", "toleranceSeconds must be between 1 and 86400");
  b = std::move(next);
  return Ok{};
}

constexpr size_t kAppliedKept = 10'000;  // newest event ids kept in `applied`; the counts go on

// The object an event describes: data.<resource>Details (Part 6 payloads), its id and status.
std::optional<std::pair<std::string, std::optional<std::string>>> EventObject(const json& event) {
  const json& data = event.contains("data") && event["data"].is_object() ? event["data"] : json::object();
  for (const auto& [key, value] : data.items()) {
    if (key.size() <= 7 || key.compare(key.size() - 7, 7, "Details") != 0 || !value.is_object()) continue;
    if (!value.contains("id") || !value["id"].is_string()) continue;
    std::optional<std::string> status;
    if (value.contains("status") && value["status"].is_string()) status = value["status"].get<std::string>();
    return std::pair{value["id"].get<std::string>(), status};
  }
  return std::nullopt;
}

// The receiver's decision on a delivery the behaviour script answered 2xx (see sinks.hpp).
// Answers a refusal (status + reason) or nullopt when the answer stands.
std::optional<std::pair<std::int64_t, std::string>> ActOnEvent(SinkProcessing& p, const SinkBehaviour& b,
                                                                const SinkRequest& r, const SignatureProbe& sig) {
  const bool idempotent = b.receiver == "idempotent";
  const bool stale = sig.timestamp && std::llabs(sig.nowSeconds - *sig.timestamp) > b.toleranceSeconds;
  if (idempotent && r.signatureValid != true) {
    ++p.badSignatureRejected;
    return std::pair{std::int64_t{400}, "signature does not verify: " + r.signatureCheck};
  }
  if (idempotent && stale) {
    ++p.staleRejected;
    return std::pair{std::int64_t{400}, "signature timestamp " + std::to_string(sig.nowSeconds - *sig.timestamp) +
                                            " s from now, beyond the tolerance of " +
                                            std::to_string(b.toleranceSeconds) + " s"};
  }
  auto event = ParseJsonLimited(r.body);
  if (!event || !event->is_object() || !event->contains("id") || !(*event)["id"].is_string())
    return std::pair{std::int64_t{400}, std::string("not an event: no id")};
  const std::string id = (*event)["id"].get<std::string>();
  const json created_field = event->value("created", json());
  const std::int64_t created = created_field.is_number_integer() ? created_field.get<std::int64_t>() : 0;
  if (stale) ++p.staleAccepted;
  if (idempotent) {
    if (!p.seen.insert(id).second) {
      ++p.duplicatesIgnored;
      return std::nullopt;
    }
  }
  auto object = EventObject(*event);
  if (idempotent && object) {
    auto it = p.objects.find(object->first);
    if (it != p.objects.end() && it->second.created > created) {
      ++p.olderIgnored;
      return std::nullopt;
    }
  }
  p.applied.push_back(id);
  if (p.applied.size() > kAppliedKept) p.applied.erase(p.applied.begin());
  if (object) p.objects[object->first] = {id, event->value("type", ""), created, object->second};
  return std::nullopt;
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
  Sink* sink = s.sinks.Edit(id);
  if (!sink) return Error::NotFound(msg::kSinkNotFound);
  if (auto ok = ApplyBehaviour(sink->behaviour, behaviour); !ok) return ok.error();
  if (name) sink->name = *name;
  return static_cast<const Sink*>(sink);
}

Result<SinkAnswer> ReceiveAtSink(State& s, const std::string& sink_id, IncomingRequest in, const SignatureProbe& sig,
                                 Millis now) {
  Sink* sink = s.sinks.Edit(sink_id);
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
  if (b.receiver != "none" && a.kind == SinkAnswer::Kind::kRespond && a.status >= 200 && a.status <= 299) {
    if (auto refused = ActOnEvent(sink->processing, b, r, sig)) {
      a.status = refused->first;
      a.body = json({{"error", refused->second}}).dump();
      r.answer = "status " + std::to_string(a.status) + " (" + b.receiver + " receiver: " + refused->second + ")";
    }
  }
  if (a.kind != SinkAnswer::Kind::kClose) r.answeredStatus = a.status;
  if (b.delayMs) r.answer += " after " + std::to_string(b.delayMs) + " ms";
  sink->requests.push_back(std::move(r));
  if (sink->requests.size() > kSinkRequestsKept) sink->requests.erase(sink->requests.begin());
  return a;
}

}  // namespace emsim::model
