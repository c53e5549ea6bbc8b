#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply ListWorkspaces(app::Ctx& ctx);      // workspaces.list        GET  /v1/workspace/list
app::Reply AddOrUpdateBilling(app::Ctx& ctx);  // billing.add_or_update  POST /v1/billing-details/add-or-update
}  // namespace emsim::api
