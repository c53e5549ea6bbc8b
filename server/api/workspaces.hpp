#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply ListWorkspaces(app::Ctx& ctx);      // workspaces.list        GET  /v1/workspace/list
app::Reply AddOrUpdateBilling(app::Ctx& ctx);  // billing.add_or_update  POST /v1/billing-details/add-or-update
// From the public reference, not the spec (Part 4.11):
app::Reply CreateWorkspace(app::Ctx& ctx);     // workspaces.create      POST /v2/workspaces
app::Reply UpdateWorkspace(app::Ctx& ctx);     // workspaces.update      PUT  /v2/workspaces
}  // namespace emsim::api
