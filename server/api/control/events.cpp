#include "api/control/events.hpp"

#include "api/query.hpp"
#include "api/shapes.hpp"
#include "model/trigger.hpp"
#include "model/webhooks.hpp"

namespace emsim::api {

namespace {

json Time(const std::optional<model::Millis>& t) { return t ? json(model::FormatIso(*t)) : json(nullptr); }

json DeliveryJson(const model::DeliveryAttempt& d) {
  return {{"id", d.id},
          {"eventId", d.eventId},
          {"eventType", d.eventType},
          {"endpointId", d.endpointId},
          {"accountId", d.accountId},
          {"url", d.url},
          {"attempt", d.attempt},
          {"status", d.status},
          {"scheduledAt", model::FormatIso(d.scheduledAt)},
          {"sentAt", Time(d.sentAt)},            // simulated: when the attempt was due and made
          {"sentAtWall", Time(d.sentAtWall)},    // the wall clock at the HTTP call
          {"responseStatus", d.responseStatus},
          {"error", d.error},
          {"responseBody", d.responseBody},
          {"durationMs", d.durationMs},
          {"signatureTimestamp", d.signatureTimestamp},
          {"nextAttemptAt", Time(d.nextAttemptAt)},
          {"consecutiveFailures", d.consecutiveFailures},
          {"injected", d.injected.is_null() ? json::array() : d.injected}};  // delivery faults (/_sim/faults target delivery) that shaped it
}

json EndpointSummary(const model::WebhookEndpoint& e) {
  return {{"id", e.id},
          {"accountId", e.accountId},
          {"url", e.url},
          {"enabled_events", e.enabledEvents},
          {"status", e.status},
          {"consecutiveFailures", e.consecutiveFailures},
          {"disabledAt", Time(e.disabledAt)},
          {"disabledReason", e.disabledReason}};
}


}  // namespace

json SimEventJson(const model::Event& e) {
  json j = model::EventEnvelope(e);
  j["accountId"] = e.accountId;
  return j;
}

app::Reply SimListEvents(app::Ctx& ctx) {
  const std::string type = ctx.req.Query("type"), account = ctx.req.Query("accountId");
  return ctx.Read([&](const model::State& s) {
    json events = json::array();
    for (const auto& e : s.events)
      if ((type.empty() || e.type == type) && (account.empty() || e.accountId == account))
        events.push_back(SimEventJson(e));
    return app::Json({{"events", Newest(std::move(events), Limit(ctx.req))}});
  });
}

app::Reply SimTriggerEvent(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // shape checked by schemas/requests/sim.events.trigger.json
  model::TriggerInput in;
  in.type = b.at("type");
  in.apiKey = b.at("apiKey");
  if (b.contains("objectId")) in.objectId = b["objectId"].get<std::string>();
  // A copy that recurses on the value's depth: bounded by the limited parser (64 levels).
  if (b.contains("data")) in.data = b["data"];
  auto result = ctx.Write([&](model::State& s) -> model::Result<json> {
    // The event is the account's: it happens at its clock's now, its deliveries run on it.
    if (auto a = s.accountByApiKey.find(in.apiKey); a != s.accountByApiKey.end()) ctx.UseClockOf(s, a->second);
    auto e = model::TriggerEvent(s, in, ctx.now);
    if (!e) return e.error();
    json endpoints = json::array();
    for (const auto* ep : model::SubscribedEndpoints(s, **e)) endpoints.push_back(ep->id);
    return json{{"event", SimEventJson(**e)}, {"endpoints", std::move(endpoints)}};
  });
  if (!result) return result.error();
  json out = std::move(*result);
  // The payload is the caller's to shape (data overrides); say whether it still fits the schema.
  const std::string schema = "events/" + in.type;
  if (ctx.svc.schemas.Has(schema)) {
    json issues = json::array();
    json envelope = out["event"];
    envelope.erase("accountId");
    for (const auto& i : ctx.svc.schemas.Check(schema, envelope)) issues.push_back(i.Pointer() + " " + i.message);
    out["schemaIssues"] = std::move(issues);
  }
  return app::Json(std::move(out), 201);
}

app::Reply SimTriggerChange(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // shape checked by schemas/requests/sim.trigger.json
  model::ChangeTriggerInput in;
  in.type = b.at("type");
  // The account as the public API names it (x-auth-service), or apiKey in the body as
  // POST /_sim/events takes it; the body wins when both are sent.
  in.apiKey = b.contains("apiKey") ? b["apiKey"].get<std::string>() : ctx.req.Header("x-auth-service");
  if (in.apiKey.empty())
    return model::Error::Validation("apiKey",
                                    "apiKey (body) or the x-auth-service header is required: the account whose object changes");
  if (b.contains("objectId")) in.objectId = b["objectId"].get<std::string>();
  auto result = ctx.Write([&](model::State& s) {
    // The change is the account's: it happens at its clock's now (a tenant's own, if it has one).
    if (auto a = s.accountByApiKey.find(in.apiKey); a != s.accountByApiKey.end()) ctx.UseClockOf(s, a->second);
    return model::TriggerChange(s, in, ctx.now);
  });
  if (!result) return result.error();
  json events = json::array();
  for (const auto& e : result->events) events.push_back({{"id", e.id}, {"type", e.type}});
  return app::Json({{"type", result->type},
                    {"objectId", result->objectId},
                    {"change", result->change},
                    {"events", std::move(events)}},
                   201);
}

app::Reply SimResendEvent(app::Ctx& ctx) {
  // Body optional: {} or none resends to every subscribed endpoint (schemas/requests/sim.events.resend.json).
  const json body = ctx.req.hasBody && ctx.req.body.is_object() ? ctx.req.body : json::object();
  std::optional<std::string> endpoint;
  if (body.contains("endpointId")) endpoint = body["endpointId"].get<std::string>();
  const std::string event_id = ctx.req.params.at("id");
  auto result = ctx.Write([&](model::State& s) -> model::Result<json> {
    if (const model::Event* e = s.FindEvent(event_id)) ctx.UseClockOf(s, e->accountId);  // its account's clock
    auto resent = model::ResendEvent(s, event_id, endpoint, ctx.now);
    if (!resent) return resent.error();
    json deliveries = json::array();
    for (const auto& d : *resent)
      deliveries.push_back({{"id", "dlv_" + std::to_string(d.jobSeq)}, {"endpointId", d.endpointId}, {"attempt", 1},
                            {"scheduledAt", model::FormatIso(ctx.now)}});
    return json{{"eventId", event_id}, {"deliveries", std::move(deliveries)}};
  });
  if (!result) return result.error();
  // 202: the deliveries are scheduled, not made; they go out when the clock reaches them (Part 6).
  return app::Json(std::move(*result), 202);
}

app::Reply SimListDeliveries(app::Ctx& ctx) {
  model::DeliveryFilter f;
  f.endpointId = ctx.req.Query("endpointId");
  f.eventId = ctx.req.Query("eventId");
  f.status = ctx.req.Query("status", ctx.req.Query("outcome"));
  f.accountId = ctx.req.Query("accountId");
  return ctx.Read([&](const model::State& s) {
    json deliveries = json::array();
    for (const auto& d : model::ListDeliveries(s, f)) deliveries.push_back(DeliveryJson(d));
    json endpoints = json::array();
    for (const auto& e : s.webhookEndpoints)
      if ((f.endpointId.empty() || e.id == f.endpointId) && (f.accountId.empty() || e.accountId == f.accountId))
        endpoints.push_back(EndpointSummary(e));
    return app::Json({{"deliveries", Newest(std::move(deliveries), Limit(ctx.req))}, {"endpoints", endpoints}});
  });
}

app::Reply SimListNotifications(app::Ctx& ctx) {
  const std::string account = ctx.req.Query("accountId");
  return ctx.Read([&](const model::State& s) {
    json list = json::array();
    for (const auto& n : s.notifications) {
      if (!account.empty() && n.accountId != account) continue;
      list.push_back({{"id", n.id},
                      {"accountId", n.accountId},
                      {"channel", n.channel},
                      {"to", n.to},
                      {"subject", n.subject},
                      {"message", n.message},
                      {"details", n.details},
                      {"createdAt", model::FormatIso(n.createdAt)}});
    }
    return app::Json({{"notifications", std::move(list)}});
  });
}

}  // namespace emsim::api
