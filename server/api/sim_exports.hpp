#pragma once
// /_sim/exports and /_sim/tenants (DESIGN.md control plane): what the exports produced, and
// isolated accounts for parallel tests.
#include "http/types.hpp"

namespace emsim::api {
http::Reply SimListExports(http::Ctx& ctx);   // GET  /_sim/exports
http::Reply SimGetExport(http::Ctx& ctx);     // GET  /_sim/exports/:id  (?format=csv: the raw CSV)
http::Reply SimCreateTenant(http::Ctx& ctx);  // POST /_sim/tenants
}  // namespace emsim::api
