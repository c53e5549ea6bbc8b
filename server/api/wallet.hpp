#pragma once
// The wallet and the user, from the public reference, not the spec (Part 4.11 names them only).
#include "app/types.hpp"

namespace emsim::api {
app::Reply WalletBalance(app::Ctx& ctx);      // wallet.balance        GET  /v2/wallet/balance
app::Reply AddWalletBalance(app::Ctx& ctx);   // wallet.add_balance    POST /v2/wallet/balance
app::Reply EnableAutoRecharge(app::Ctx& ctx); // wallet.auto_recharge  POST /v2/wallet/enable-auto-recharge
app::Reply UserDetails(app::Ctx& ctx);        // users.details         GET  /v2/users
}  // namespace emsim::api
