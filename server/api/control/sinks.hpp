#pragma once
// /_sim/sinks: built-in webhook receivers served by emsim itself (DESIGN.md table).
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimCreateSink(app::Ctx& ctx);   // POST  /_sim/sinks
app::Reply SimListSinks(app::Ctx& ctx);    // GET   /_sim/sinks
app::Reply SimGetSink(app::Ctx& ctx);      // GET   /_sim/sinks/:id
app::Reply SimUpdateSink(app::Ctx& ctx);   // PATCH /_sim/sinks/:id
app::Reply SimSinkReceive(app::Ctx& ctx);  // POST  /_sim/sinks/:id/receive (the receiver itself)
}  // namespace emsim::api
