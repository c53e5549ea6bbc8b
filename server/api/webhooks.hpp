#pragma once
// Part 4.10 webhook management. Access::kAccount: scoped to the API key's account;
// x-workspace-key has no effect (Part 5).
#include "http/types.hpp"

namespace emsim::api {
http::Reply ListWebhookEventTypes(http::Ctx& ctx);   // GET   /v2/webhooks/events
http::Reply CreateWebhookEndpoint(http::Ctx& ctx);   // POST  /v2/webhooks/endpoints
http::Reply ListWebhookEndpoints(http::Ctx& ctx);    // GET   /v2/webhooks/endpoints
http::Reply UpdateWebhookEndpoint(http::Ctx& ctx);   // PATCH /v2/webhooks/endpoints/:id
}  // namespace emsim::api
