#pragma once
// /_sim control plane for money: the account wallet, the invoices emsim issues, and the
// checkout that stands in for paying a ONE_TIME placement purchase the wallet could not cover.
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimGetWallet(app::Ctx& ctx);                 // GET  /_sim/wallet                (x-auth-service)
app::Reply SimPutWallet(app::Ctx& ctx);                 // PUT  /_sim/wallet                (x-auth-service)
app::Reply SimGetInvoice(app::Ctx& ctx);                // GET  /_sim/invoices/:id
app::Reply SimGetPlacementCheckout(app::Ctx& ctx);      // GET  /_sim/placement-checkouts/:id
app::Reply SimCompletePlacementCheckout(app::Ctx& ctx); // POST /_sim/placement-checkouts/:id/complete
}  // namespace emsim::api
