#pragma once
// The account wallet (DESIGN.md: the wallet belongs to the account). Balances are integer cents
// inside; the spec's `walletBalance` (Part 4.7) and /_sim/wallet speak whole dollars.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "model/auth.hpp"
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

// ---- From the public reference, not the spec (Part 4.11 names the wallet and auto recharge only).

// Largest top-up or auto-recharge setting taken through the API (gap decision: the reference
// names no limit; this keeps any sum far from overflow).
inline constexpr Cents kMaxTopUpCents = 1'000'000'000;  // ten million dollars

// POST /v2/wallet/balance (https://docs.zapmail.ai/add-balance-to-wallet-13490582e0): opens a
// checkout for `amount` through the one checkout flow (model/checkouts.hpp); nothing is credited
// until it is completed. Amount outside 0.01..kMaxTopUpCents: 400 naming amount.
Result<const Checkout*> OpenWalletTopUp(State& s, const Caller& caller, Cents amount, Millis now);

// What POST /v2/wallet/enable-auto-recharge sets (https://docs.zapmail.ai/enable-auto-recharge-13490713e0):
// absent values keep the stored ones (first time: the reference's defaults, $20 and $50).
struct AutoRechargeInput {
  bool enable = false;
  std::optional<Cents> threshold, amount;
};
Status SetAutoRecharge(State& s, const Caller& caller, const AutoRechargeInput& in, Millis now);

// The job a debit schedules when it leaves an auto-recharging wallet below its threshold.
inline constexpr const char* kAutoRechargeJob = "wallet.auto_recharge";
// Runs it: still enabled and still below the threshold -> credits the recharge amount (the saved
// payment method pays: emsim has no cards) and records an "auto_recharge" movement.
void RunAutoRecharge(State& s, const std::string& account_id, Millis now);

// Credits a completed wallet top-up checkout, with a "wallet_topup" movement naming it.
void CreditWalletTopUp(State& s, Account& account, const Checkout& c, Millis now);

// The account's movements, oldest first (the ledger keeps the newest --retain-events of all).
std::vector<const WalletMovement*> WalletMovementsOf(const State& s, const std::string& account_id);

}  // namespace emsim::model
