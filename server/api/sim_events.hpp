#pragma once
// /_sim control plane for events and webhook delivery (DESIGN.md table): what was emitted, every
// delivery attempt, owner notifications, and a trigger for any Part 6 event type.
#include "http/types.hpp"

namespace emsim::api {
http::Reply SimListEvents(http::Ctx& ctx);         // GET  /_sim/events
http::Reply SimTriggerEvent(http::Ctx& ctx);       // POST /_sim/events
http::Reply SimListDeliveries(http::Ctx& ctx);     // GET  /_sim/deliveries
http::Reply SimListNotifications(http::Ctx& ctx);  // GET  /_sim/notifications

json SimEventJson(const model::Event& e);  // the Part 6 envelope plus accountId
}  // namespace emsim::api
