#pragma once
// The account wallet (DESIGN.md: the wallet belongs to the account). Balances are integer cents
// inside; the spec's `walletBalance` (Part 4.7) and /_sim/wallet speak whole dollars.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "model/money.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Whole dollars of a balance, rounded down (gap decision: cents stay inside; a whole-dollar
// charge keeps `previousBalance - amountDeducted == currentBalance` exact after rounding).
inline std::int64_t WholeDollars(Cents c) { return c >= 0 ? c / 100 : -((-c + 99) / 100); }

// Upper bound for a balance set through /_sim/wallet, far from int64 overflow.
inline constexpr Cents kMaxWalletCents = 100'000'000'000;  // one billion dollars

// Debits `amount` when the balance covers it, records the movement (reason, at `now`) and answers
// it; otherwise changes nothing and answers null. Callers hold the store's write lock, so the
// check, the debit and its record are one step (never negative, no lost cents under concurrent
// requests). The caller names what was paid (`reference`) once it has drawn that id.
WalletMovement* TryDebitWallet(State& s, Account& account, Cents amount, std::string_view reason, Millis now);

// /_sim/wallet PUT: 0 <= cents <= kMaxWalletCents, else 400 naming `param`. A change of the
// balance is recorded as a movement with reason "set".
Status SetWallet(State& s, const std::string& account_id, Cents cents, const std::string& param, Millis now);

// The account's movements, oldest first (the ledger keeps the newest --retain-events of all).
std::vector<const WalletMovement*> WalletMovementsOf(const State& s, const std::string& account_id);

}  // namespace emsim::model
