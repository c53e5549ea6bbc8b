#pragma once
// /_sim control plane for money: the account wallet and the invoices emsim issues (the checkouts
// that stand in for paying: api/control/checkouts).
#include "app/types.hpp"

namespace emsim::api {
app::Reply SimGetWallet(app::Ctx& ctx);                 // GET  /_sim/wallet                (x-auth-service)
app::Reply SimPutWallet(app::Ctx& ctx);                 // PUT  /_sim/wallet                (x-auth-service)
app::Reply SimListWalletMovements(app::Ctx& ctx);       // GET  /_sim/wallet/movements      (x-auth-service)
app::Reply SimGetInvoice(app::Ctx& ctx);                // GET  /_sim/invoices/:id
}  // namespace emsim::api
