#pragma once
// /_sim/exports and /_sim/tenants (DESIGN.md control plane): what the exports produced, and
// isolated accounts for parallel tests.
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimListExports(app::Ctx& ctx);   // GET  /_sim/exports
app::Reply SimGetExport(app::Ctx& ctx);     // GET  /_sim/exports/:id  (?format=csv: the raw CSV)
app::Reply SimCreateTenant(app::Ctx& ctx);  // POST /_sim/tenants
}  // namespace emsim::api
