#include "api/control/sinks.hpp"

#include <chrono>
#include <thread>

#include "events/dispatcher.hpp"
#include "events/signer.hpp"
#include "core/messages.hpp"
#include "core/json_limits.hpp"
#include "model/sinks.hpp"

namespace emsim::api {

namespace {

json SinkJson(const app::Services& svc, const model::Sink& k, bool with_requests) {
  json j = {{"id", k.id},
            {"name", k.name},
            {"url", svc.baseUrl + model::SinkReceivePath(k.id)},
            {"behaviour", k.behaviour},
            {"received", k.received},
            {"createdAt", model::FormatIso(k.createdAt)}};
  if (with_requests) {
    json requests = json::array();
    for (const auto& r : k.requests) {
      json rj = r;
      rj["receivedAt"] = model::FormatIso(r.receivedAt);
      requests.push_back(std::move(rj));
    }
    j["requests"] = std::move(requests);
  }
  if (k.behaviour.receiver != "none") {
    const auto& p = k.processing;
    json objects = json::object();
    for (const auto& [id, o] : p.objects)
      objects[id] = {{"eventId", o.eventId}, {"eventType", o.eventType}, {"created", o.created}, {"status", o.status}};
    j["processing"] = {{"receiver", k.behaviour.receiver},
                       {"applied", p.applied},
                       {"appliedCount", p.applied.size()},
                       {"objects", std::move(objects)},
                       {"duplicatesIgnored", p.duplicatesIgnored},
                       {"olderIgnored", p.olderIgnored},
                       {"staleRejected", p.staleRejected},
                       {"staleAccepted", p.staleAccepted},
                       {"badSignatureRejected", p.badSignatureRejected}};
  }
  return j;
}

// The behaviour fields of a POST/PATCH body (flat: {status, failFirst, ...}).
json BehaviourOf(const json& body) {
  json b = body.is_object() ? body : json::object();
  b.erase("name");
  return b;
}

}  // namespace

app::Reply SimCreateSink(app::Ctx& ctx) {
  const json body = ctx.req.hasBody ? ctx.req.body : json::object();
  auto created = ctx.Write([&](model::State& s) -> model::Result<json> {
    auto k = model::CreateSink(s, body.value("name", ""), BehaviourOf(body), ctx.now);
    if (!k) return k.error();
    return SinkJson(ctx.svc, **k, true);
  });
  if (!created) return created.error();
  return app::Json(std::move(*created), 201);
}

app::Reply SimListSinks(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) {
    json list = json::array();
    for (const auto& k : s.sinks) list.push_back(SinkJson(ctx.svc, k, false));
    return app::Json({{"sinks", std::move(list)}});
  });
}

app::Reply SimGetSink(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    const model::Sink* k = s.sinks.Find(ctx.req.params.at("id"));
    if (!k) return model::Error::NotFound(model::msg::kSinkNotFound);
    return app::Json(SinkJson(ctx.svc, *k, true));
  });
}

app::Reply SimUpdateSink(app::Ctx& ctx) {
  const json body = ctx.req.hasBody ? ctx.req.body : json::object();
  std::optional<std::string> name;
  if (body.contains("name")) name = body["name"].get<std::string>();
  auto updated = ctx.Write([&](model::State& s) -> model::Result<json> {
    auto k = model::UpdateSink(s, ctx.req.params.at("id"), name, BehaviourOf(body));
    if (!k) return k.error();
    return SinkJson(ctx.svc, **k, false);
  });
  if (!updated) return updated.error();
  return app::Json(std::move(*updated));
}

app::Reply SimSinkReceive(app::Ctx& ctx) {
  model::IncomingRequest in;
  in.method = ctx.req.method;
  in.path = ctx.req.path;
  in.body = ctx.req.rawBody;  // Part 6: the signature covers the raw, unparsed body
  // As sent (http/server.cpp drops httplib's own), except bytes that are not UTF-8: the recorded
  // request is listed as JSON (GET /_sim/sinks/:id), which cannot carry them.
  for (const auto& [k, v] : ctx.req.headers)
    in.headers[model::IsValidUtf8(k) ? k : model::SafeText(k)] = model::IsValidUtf8(v) ? v : model::SafeText(v, 8192);
  model::SignatureProbe probe;
  const std::string header = ctx.req.Header("x-service-signature");
  std::optional<events::ParsedSignature> sig;
  if (header.empty()) probe.problem = "no X-Service-Signature header";
  else if (!(sig = events::ParseSignatureHeader(header)))
    probe.problem = "malformed X-Service-Signature header (expected t=<unix seconds>,v1=<hex>)";
  else
    probe.matches = [&](const std::string& secret) { return events::SignatureMatches(*sig, secret, ctx.req.rawBody); };
  if (sig) probe.timestamp = sig->t;
  // A receiver compares `t` with its own clock; emsim's sinks use the clock emsim signs with.
  probe.nowSeconds = (ctx.svc.options.signWithSimulatedTime ? ctx.now : runtime::Clock::WallNow()) / model::kSecond;

  auto answer = ctx.Write([&](model::State& s) {
    return model::ReceiveAtSink(s, ctx.req.params.at("id"), std::move(in), probe, ctx.now);
  });
  if (!answer) return answer.error();

  // The delay is real time and holds no lock; it ends early when emsim shuts down.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(answer->delayMs);
  while (std::chrono::steady_clock::now() < until && !ctx.svc.scheduler.stopping())
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(20), until - std::chrono::steady_clock::now()));

  http::Response r;
  r.status = static_cast<int>(answer->status);
  switch (answer->kind) {
    case model::SinkAnswer::Kind::kClose:
      r.closeConnection = true;
      r.raw = "";
      break;
    case model::SinkAnswer::Kind::kRedirect:
      r.headers.emplace_back("Location", answer->location);
      r.raw = "";
      r.contentType = "text/plain";
      break;
    case model::SinkAnswer::Kind::kRespond:
      r.raw = answer->body;
      break;
  }
  return r;
}

}  // namespace emsim::api
