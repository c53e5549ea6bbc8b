#pragma once
// /_sim/sinks: built-in webhook receivers served by emsim itself (DESIGN.md table).
#include "http/types.hpp"

namespace emsim::api {
http::Reply SimCreateSink(http::Ctx& ctx);   // POST  /_sim/sinks
http::Reply SimListSinks(http::Ctx& ctx);    // GET   /_sim/sinks
http::Reply SimGetSink(http::Ctx& ctx);      // GET   /_sim/sinks/:id
http::Reply SimUpdateSink(http::Ctx& ctx);   // PATCH /_sim/sinks/:id
http::Reply SimSinkReceive(http::Ctx& ctx);  // POST  /_sim/sinks/:id/receive (the receiver itself)
}  // namespace emsim::api
