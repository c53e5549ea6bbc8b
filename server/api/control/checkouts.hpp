#pragma once
// /_sim control plane for the one checkout flow (model/checkouts.hpp): the page a purchase's
// payment link points at, and completing it, which stands in for the client paying. One pair of
// routes per purchase that can wait for payment; their paths and fields are a contract (DESIGN.md).
#include "app/types.hpp"

namespace emsim::api {

app::Reply SimGetCheckout(app::Ctx& ctx);               // GET  /_sim/checkout/:id                     (domains.buy)
app::Reply SimCompleteCheckout(app::Ctx& ctx);          // POST /_sim/checkout/:id/complete
app::Reply SimGetPlacementCheckout(app::Ctx& ctx);      // GET  /_sim/placement-checkouts/:id          (placement_tests.purchase)
app::Reply SimCompletePlacementCheckout(app::Ctx& ctx); // POST /_sim/placement-checkouts/:id/complete

}  // namespace emsim::api
