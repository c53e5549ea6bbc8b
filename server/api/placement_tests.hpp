#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply PurchasePlacementTests(app::Ctx& ctx);  // placement_tests.purchase  POST /v2/placement-tests/purchase
}  // namespace emsim::api
