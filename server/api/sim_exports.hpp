#pragma once
// /_sim/exports (DESIGN.md control plane): what the exports produced.
#include "http/types.hpp"

namespace emsim::api {
http::Reply SimListExports(http::Ctx& ctx);   // GET  /_sim/exports
http::Reply SimGetExport(http::Ctx& ctx);     // GET  /_sim/exports/:id  (?format=csv: the raw CSV)
}  // namespace emsim::api
