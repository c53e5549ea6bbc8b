#pragma once
// /_sim/faults (DESIGN.md control plane): inject an answer (status, body, delay) or an edit of
// the real answer for requests matching method + path, N times; or corrupt webhook deliveries.
// The rules live in model/faults.hpp; the pipeline stage that applies them is in http/router.cpp.
#include "http/types.hpp"

namespace emsim::api {
http::Reply SimCreateFault(http::Ctx& ctx);  // POST   /_sim/faults
http::Reply SimListFaults(http::Ctx& ctx);   // GET    /_sim/faults
http::Reply SimClearFaults(http::Ctx& ctx);  // DELETE /_sim/faults
http::Reply SimDeleteFault(http::Ctx& ctx);  // DELETE /_sim/faults/:id
}  // namespace emsim::api
