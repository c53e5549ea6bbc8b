#pragma once
// /_sim control plane, first part (DESIGN.md table): thin calls into the store, clock and
// scheduler, as WireMock's admin tasks are.
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimHealth(app::Ctx& ctx);        // GET  /_sim/health
app::Reply SimReset(app::Ctx& ctx);         // POST /_sim/reset
app::Reply SimGetState(app::Ctx& ctx);      // GET  /_sim/state
app::Reply SimPutState(app::Ctx& ctx);      // PUT  /_sim/state
app::Reply SimListRequests(app::Ctx& ctx);  // GET  /_sim/requests
app::Reply SimCountRequests(app::Ctx& ctx);  // POST /_sim/requests/count
app::Reply SimClearRequests(app::Ctx& ctx);  // DELETE /_sim/requests
app::Reply SimGetClock(app::Ctx& ctx);      // GET  /_sim/clock
app::Reply SimPutClock(app::Ctx& ctx);      // PUT  /_sim/clock
app::Reply SimAdvanceClock(app::Ctx& ctx);  // POST /_sim/clock/advance

// Everything back to the loaded fixtures: state, clock, journal, error ids, and whatever later
// layers registered in Services::resetHooks (sinks, faults, deliveries).
void ResetAll(app::Services& svc);
json ClockJson(const runtime::Clock& clock);

// ?secrets=true|false of the routes that show secrets (state, requests, faults): masked unless
// asked for (DESIGN.md gap decision); a 400 for any other value.
model::Result<bool> SecretsWanted(app::Ctx& ctx);
}  // namespace emsim::api
