#pragma once
// Live data the checks need, found through the API itself (no fixture knowledge), so the same
// tests run against emsim and a real deployment.
#include <optional>
#include <string>
#include <vector>

#include "contract.hpp"

namespace contract {

// A short token different on every call and every run (reruns against one emsim included), for
// names and addresses the suite makes up.
std::string Nonce();

// workspaces.list data (empty when it fails; the failure is reported).
json Workspaces();

// Every domain list record of the current workspace, over all pages (capped at max_pages).
json AllDomains(size_t max_pages = 30);

// A mailbox record from mailboxes.list, if the account has one.
std::optional<json> AnyMailbox();

// emsim only: moves the simulated clock forward (runs every job that falls due).
void AdvanceClock(const std::string& duration);

// emsim only: the suite account's wallet in whole dollars (GET /_sim/wallet), or -1; and setting it.
long WalletDollars();
void SetWalletDollars(long dollars);

// emsim only: the whole state (GET /_sim/state).
json SimState();

// Deletes /_sim faults it created when it goes out of scope (emsim only).
class FaultGuard {
 public:
  FaultGuard() = default;
  ~FaultGuard();
  FaultGuard(const FaultGuard&) = delete;
  FaultGuard& operator=(const FaultGuard&) = delete;
  // POSTs the fault (apiKey defaults to the suite's key, so others sharing the emsim are not
  // affected); answers its id, or "" after reporting a failure.
  std::string Add(json fault);

 private:
  std::vector<std::string> ids_;
};

}  // namespace contract
