#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply PurchasePlacementTests(http::Ctx& ctx);  // placement_tests.purchase  POST /v2/placement-tests/purchase
}  // namespace emsim::api
