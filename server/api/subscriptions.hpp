#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply ListSubscriptions(http::Ctx& ctx);    // subscriptions.list     GET  /v1/user/subscriptions
http::Reply CancelSubscription(http::Ctx& ctx);   // subscriptions.cancel   POST /v1/user/cancel-subscription
http::Reply UpgradeSubscription(http::Ctx& ctx);  // subscriptions.upgrade  POST /v2/subscriptions/upgrade
}  // namespace emsim::api
