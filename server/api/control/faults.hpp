#pragma once
// /_sim/faults (DESIGN.md control plane): inject an answer (status, body, delay) or an edit of
// the real answer for requests matching method + path, N times; or corrupt webhook deliveries.
// The rules live in model/faults.hpp; the pipeline stage that applies them is in http/router.cpp.
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimCreateFault(app::Ctx& ctx);  // POST   /_sim/faults
app::Reply SimListFaults(app::Ctx& ctx);   // GET    /_sim/faults
app::Reply SimClearFaults(app::Ctx& ctx);  // DELETE /_sim/faults
app::Reply SimDeleteFault(app::Ctx& ctx);  // DELETE /_sim/faults/:id
}  // namespace emsim::api
