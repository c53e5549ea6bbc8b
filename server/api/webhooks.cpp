#include "api/webhooks.hpp"

#include "api/shapes.hpp"
#include "core/messages.hpp"
#include "model/webhooks.hpp"

namespace emsim::api {

app::Reply ListWebhookEventTypes(app::Ctx& ctx) {
  json data = json::array();
  for (const auto& t : model::EventTypes())
    data.push_back({{"value", t.value}, {"label", t.label}, {"description", t.description}, {"category", t.category}});
  return app::Envelope(model::msg::kSuccess, std::move(data));
}

app::Reply CreateWebhookEndpoint(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // shape checked by schemas/requests/webhooks.create.json
  model::EndpointInput in{b.at("url"), b.at("enabled_events").get<std::vector<std::string>>()};
  auto created = ctx.Write([&](model::State& s) -> model::Result<json> {
    auto e = model::CreateEndpoint(s, ctx.caller, in, ctx.svc.options.strictWebhookUrls, ctx.now);
    if (!e) return e.error();
    return WebhookEndpointRecord(**e, /*with_secret=*/true);
  });
  if (!created) return created.error();
  return app::Envelope(model::msg::kWebhookEndpointCreated, std::move(*created));
}

app::Reply ListWebhookEndpoints(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) {
    json data = json::array();
    for (const auto* e : model::ListEndpoints(s, ctx.caller)) data.push_back(WebhookEndpointRecord(*e, false));
    return app::Envelope(model::msg::kSuccess, std::move(data));
  });
}

app::Reply UpdateWebhookEndpoint(app::Ctx& ctx) {
  const json& b = ctx.req.hasBody ? ctx.req.body : json::object();  // all fields optional (Part 4.10)
  model::EndpointPatch patch;
  if (b.contains("url")) patch.url = b["url"].get<std::string>();
  if (b.contains("enabled_events")) patch.enabledEvents = b["enabled_events"].get<std::vector<std::string>>();
  if (b.contains("status")) patch.status = b["status"].get<std::string>();
  auto updated = ctx.Write([&](model::State& s) -> model::Result<json> {
    auto e = model::UpdateEndpoint(s, ctx.caller, ctx.req.params.at("id"), patch, ctx.svc.options.strictWebhookUrls,
                                   ctx.now);
    if (!e) return e.error();
    return WebhookEndpointRecord(**e, false);
  });
  if (!updated) return updated.error();
  return app::Envelope(model::msg::kWebhookEndpointUpdated, std::move(*updated));
}

}  // namespace emsim::api
