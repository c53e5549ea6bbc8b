#pragma once
// /_sim control plane for events and webhook delivery (DESIGN.md table): what was emitted, every
// delivery attempt, owner notifications, and a trigger for any Part 6 event type.
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimListEvents(app::Ctx& ctx);         // GET  /_sim/events
app::Reply SimTriggerEvent(app::Ctx& ctx);       // POST /_sim/events
app::Reply SimResendEvent(app::Ctx& ctx);        // POST /_sim/events/:id/resend
app::Reply SimTriggerChange(app::Ctx& ctx);      // POST /_sim/trigger: the real change behind an event (model/trigger.hpp)
app::Reply SimListDeliveries(app::Ctx& ctx);     // GET  /_sim/deliveries
app::Reply SimListNotifications(app::Ctx& ctx);  // GET  /_sim/notifications

json SimEventJson(const model::Event& e);  // the Part 6 envelope plus accountId
}  // namespace emsim::api
