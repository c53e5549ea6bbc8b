#include "model/wallet.hpp"

namespace emsim::model {

namespace {

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
  return &Record(s, account, -amount, reason, now);
}

Status SetWallet(State& s, const std::string& account_id, Cents cents, const std::string& param, Millis now) {
  Account* a = s.accounts.Find(account_id);
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
