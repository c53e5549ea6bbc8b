#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply ListWorkspaces(http::Ctx& ctx);      // workspaces.list        GET  /v1/workspace/list
http::Reply AddOrUpdateBilling(http::Ctx& ctx);  // billing.add_or_update  POST /v1/billing-details/add-or-update
}  // namespace emsim::api
