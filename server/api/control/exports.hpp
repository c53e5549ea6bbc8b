#pragma once
// /_sim/exports and /_sim/tenants (DESIGN.md control plane): what the exports produced, and
// isolated accounts for parallel tests.
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimListExports(app::Ctx& ctx);   // GET  /_sim/exports
app::Reply SimGetExport(app::Ctx& ctx);     // GET  /_sim/exports/:id  (?format=csv: the raw CSV)
app::Reply SimCreateTenant(app::Ctx& ctx);  // POST /_sim/tenants
app::Reply SimListTenants(app::Ctx& ctx);   // GET  /_sim/tenants
app::Reply SimResetTenant(app::Ctx& ctx);   // POST /_sim/tenants/:id/reset
app::Reply SimDeleteTenant(app::Ctx& ctx);  // DELETE /_sim/tenants/:id
}  // namespace emsim::api
