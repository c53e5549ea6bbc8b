#pragma once
// /_sim control plane for money: the account wallet, the invoices emsim issues, and the
// checkout that stands in for paying a ONE_TIME placement purchase the wallet could not cover.
#include "http/types.hpp"

namespace emsim::api {
http::Reply SimGetWallet(http::Ctx& ctx);                 // GET  /_sim/wallet                (x-auth-service)
http::Reply SimPutWallet(http::Ctx& ctx);                 // PUT  /_sim/wallet                (x-auth-service)
http::Reply SimGetInvoice(http::Ctx& ctx);                // GET  /_sim/invoices/:id
http::Reply SimGetPlacementCheckout(http::Ctx& ctx);      // GET  /_sim/placement-checkouts/:id
http::Reply SimCompletePlacementCheckout(http::Ctx& ctx); // POST /_sim/placement-checkouts/:id/complete
}  // namespace emsim::api
