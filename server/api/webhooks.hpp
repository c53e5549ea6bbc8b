#pragma once
// Part 4.10 webhook management. Access::kAccount: scoped to the API key's account;
// x-workspace-key has no effect (Part 5).
#include "app/types.hpp"

namespace emsim::api {
app::Reply ListWebhookEventTypes(app::Ctx& ctx);   // GET   /v2/webhooks/events
app::Reply CreateWebhookEndpoint(app::Ctx& ctx);   // POST  /v2/webhooks/endpoints
app::Reply ListWebhookEndpoints(app::Ctx& ctx);    // GET   /v2/webhooks/endpoints
app::Reply UpdateWebhookEndpoint(app::Ctx& ctx);   // PATCH /v2/webhooks/endpoints/:id
}  // namespace emsim::api
