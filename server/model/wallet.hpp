#pragma once
// The account wallet (DESIGN.md: the wallet belongs to the account). Balances are integer cents
// inside; the spec's `walletBalance` (Part 4.7) and /_sim/wallet speak whole dollars.
#include <string>

#include "core/error.hpp"
#include "model/money.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Whole dollars of a balance, rounded down (gap decision: cents stay inside; a whole-dollar
// charge keeps `previousBalance - amountDeducted == currentBalance` exact after rounding).
inline std::int64_t WholeDollars(Cents c) { return c >= 0 ? c / 100 : -((-c + 99) / 100); }

// Upper bound for a balance set through /_sim/wallet, far from int64 overflow.
inline constexpr Cents kMaxWalletCents = 100'000'000'000;  // one billion dollars

// Debits `amount` when the balance covers it and answers true; otherwise changes nothing and
// answers false. Callers hold the store's write lock, so the check and the debit are one step
// (never negative, no lost cents under concurrent requests).
bool TryDebitWallet(Account& account, Cents amount);

// /_sim/wallet PUT: 0 <= cents <= kMaxWalletCents, else 400 naming `param`.
Status SetWallet(State& s, const std::string& account_id, Cents cents, const std::string& param);

}  // namespace emsim::model
