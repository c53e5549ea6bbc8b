#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply ListSubscriptions(app::Ctx& ctx);    // subscriptions.list     GET  /v1/user/subscriptions
app::Reply CancelSubscription(app::Ctx& ctx);   // subscriptions.cancel   POST /v1/user/cancel-subscription
app::Reply UpgradeSubscription(app::Ctx& ctx);  // subscriptions.upgrade  POST /v2/subscriptions/upgrade
}  // namespace emsim::api
