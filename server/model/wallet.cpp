#include "model/wallet.hpp"

#include <utility>

namespace emsim::model {

namespace {

// A wallet credited through the API stays within what a state document may load (state.cpp).
constexpr Cents kMaxCreditedCents = 1'000'000'000'000'000;

WalletMovement& Record(State& s, Account& account, Cents amount, std::string_view reason, Millis now) {
  WalletMovement m;
  m.id = "wmv_" + std::to_string(s.trimmed.walletMovements + s.walletMovements.size() + 1);
  m.accountId = account.id;
  m.amountCents = amount;
  m.balanceCents = account.walletCents;
  m.reason = reason;
  m.createdAt = now;
  s.walletMovements.push_back(std::move(m));
  return s.walletMovements.back();
}

}  // namespace

WalletMovement* TryDebitWallet(State& s, Account& account, Cents amount, std::string_view reason, Millis now) {
  if (amount < 0 || account.walletCents < amount) return nullptr;
  account.walletCents -= amount;
  WalletMovement* debit = &Record(s, account, -amount, reason, now);
  // The recharge is a job of its own, due now, not a credit inside this debit: callers name the
  // debit (walletMovements.back()) and answer the balance it left (Part 4.7 currentBalance).
  if (account.autoRecharge.enabled && account.walletCents < account.autoRecharge.thresholdCents)
    s.Schedule(now, kAutoRechargeJob, {{"accountId", account.id}});
  return debit;
}

Result<const Checkout*> OpenWalletTopUp(State& s, const Caller& caller, Cents amount, Millis now) {
  if (amount < 1 || amount > kMaxTopUpCents)
    return Error::Validation("amount", "amount must be from 0.01 to " + FormatDecimal(kMaxTopUpCents) + " (USD)");
  if (!s.accounts.Contains(caller.accountId)) return Error::Internal("caller's account is missing");
  // The wallet is the account's (workspace headers ignored): the checkout names its default workspace.
  const Workspace* ws = DefaultWorkspace(s, caller.accountId);
  if (!ws) return Error::Internal("caller's account has no workspace");
  Checkout c;
  c.id = "chk_" + s.ids.Uuid4();
  c.accountId = caller.accountId;
  c.workspaceId = ws->id;
  c.purpose = kCheckoutForWallet;
  c.amountCents = amount;
  c.createdAt = now;
  return &s.checkouts.Insert(std::move(c));
}

void CreditWalletTopUp(State& s, Account& account, const Checkout& c, Millis now) {
  account.walletCents += c.amountCents;
  Record(s, account, c.amountCents, "wallet_topup", now).reference = c.id;
}

Status SetAutoRecharge(State& s, const Caller& caller, const AutoRechargeInput& in, Millis now) {
  for (const auto& [param, v] : {std::pair{"threshold", in.threshold}, std::pair{"minimumRechargeAmount", in.amount}})
    if (v && (*v < 0 || *v > kMaxTopUpCents))
      return Error::Validation(param, std::string(param) + " must be from 0 to " + FormatDecimal(kMaxTopUpCents) + " (USD)");
  if (in.enable && in.amount && *in.amount < 1)
    return Error::Validation("minimumRechargeAmount", "minimumRechargeAmount must be at least 0.01 (USD)");
  Account* a = s.accounts.Edit(caller.accountId);
  if (!a) return Error::Internal("caller's account is missing");
  a->autoRecharge.enabled = in.enable;
  if (in.threshold) a->autoRecharge.thresholdCents = *in.threshold;
  if (in.amount) a->autoRecharge.amountCents = *in.amount;
  // Enabled while already below the threshold: recharge as a debit there would have.
  if (a->autoRecharge.enabled && a->walletCents < a->autoRecharge.thresholdCents)
    s.Schedule(now, kAutoRechargeJob, {{"accountId", a->id}});
  return Ok{};
}

void RunAutoRecharge(State& s, const std::string& account_id, Millis now) {
  Account* a = s.accounts.Edit(account_id);
  if (!a || !a->autoRecharge.enabled || a->walletCents >= a->autoRecharge.thresholdCents) return;
  if (a->autoRecharge.amountCents < 1 || a->walletCents + a->autoRecharge.amountCents > kMaxCreditedCents) return;
  a->walletCents += a->autoRecharge.amountCents;
  Record(s, *a, a->autoRecharge.amountCents, "auto_recharge", now);
}

Status SetWallet(State& s, const std::string& account_id, Cents cents, const std::string& param, Millis now) {
  Account* a = s.accounts.Edit(account_id);
  if (!a) return Error::NotFound("Account " + account_id + " not found");
  if (cents < 0 || cents > kMaxWalletCents)
    return Error::Validation(param, param + " must be between 0 and " + std::to_string(kMaxWalletCents / 100) +
                                        " dollars");
  const Cents change = cents - a->walletCents;
  a->walletCents = cents;
  if (change != 0) Record(s, *a, change, "set", now);
  return Ok{};
}

std::vector<const WalletMovement*> WalletMovementsOf(const State& s, const std::string& account_id) {
  std::vector<const WalletMovement*> out;
  for (const auto& m : s.walletMovements)
    if (m.accountId == account_id) out.push_back(&m);
  return out;
}

}  // namespace emsim::model
