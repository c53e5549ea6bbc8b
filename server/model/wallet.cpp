#include "model/wallet.hpp"

namespace emsim::model {

bool TryDebitWallet(Account& account, Cents amount) {
  if (amount < 0 || account.walletCents < amount) return false;
  account.walletCents -= amount;
  return true;
}

Status SetWallet(State& s, const std::string& account_id, Cents cents, const std::string& param) {
  Account* a = s.accounts.Find(account_id);
  if (!a) return Error::NotFound("Account " + account_id + " not found");
  if (cents < 0 || cents > kMaxWalletCents)
    return Error::Validation(param, param + " must be between 0 and " + std::to_string(kMaxWalletCents / 100) +
                                        " dollars");
  a->walletCents = cents;
  return Ok{};
}

}  // namespace emsim::model
