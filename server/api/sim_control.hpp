#pragma once
// /_sim control plane, first part (DESIGN.md table): thin calls into the store, clock and
// scheduler, as WireMock's admin tasks are.
#include "http/types.hpp"

namespace emsim::api {
http::Reply SimHealth(http::Ctx& ctx);        // GET  /_sim/health
http::Reply SimReset(http::Ctx& ctx);         // POST /_sim/reset
http::Reply SimGetState(http::Ctx& ctx);      // GET  /_sim/state
http::Reply SimPutState(http::Ctx& ctx);      // PUT  /_sim/state
http::Reply SimListRequests(http::Ctx& ctx);  // GET  /_sim/requests
http::Reply SimGetClock(http::Ctx& ctx);      // GET  /_sim/clock
http::Reply SimPutClock(http::Ctx& ctx);      // PUT  /_sim/clock
http::Reply SimAdvanceClock(http::Ctx& ctx);  // POST /_sim/clock/advance

// Everything back to the loaded fixtures: state, clock, journal, error ids, and whatever later
// layers registered in Services::resetHooks (sinks, faults, deliveries).
void ResetAll(app::Services& svc);
json ClockJson(const sim::Clock& clock);
}  // namespace emsim::api
