#pragma once
// Part 4.4 domain availability and purchase: names, prices, the wallet, checkouts, and the
// PENDING -> CONNECTED -> ACTIVE lifecycle of a bought domain.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Part 8: default registration period 1 year. emsim accepts 1..10 (gap decision).
inline constexpr std::int64_t kMinYears = 1, kMaxYears = 10;
// At most this many names in one availability answer (the asked name included).
inline constexpr size_t kMaxAvailable = 10;

// Lower-cases and checks a domain name: 1-253 characters, at least two dot-separated labels of
// 1-63 letters, digits or hyphens (no hyphen first or last), an alphabetic top-level label of 2+.
// Invalid: a 400 naming domainName with what is wrong.
Result<std::string> NormalizeDomainName(std::string_view name);

// Per-year prices of a registrable name: the catalogue's entry when it lists the name, else the
// default price of its suffix (everything after the first label: "com", "io", ...), else none
// (emsim does not sell it).
struct DefaultTldPrice {
  const char* suffix;
  Cents domainPriceCents, renewPriceCents;
};
const std::vector<DefaultTldPrice>& DefaultTldPrices();
std::optional<CatalogueEntry> PriceOf(const State& s, const std::string& name);

// A domain of any account already holds the name.
bool IsTaken(const State& s, const std::string& name);

struct AvailableDomain {
  std::string domainName;
  Cents domainPriceCents = 0, renewPriceCents = 0;  // already multiplied by years
};

// domains.available: the asked name first when it is registrable and free, then the label under
// the other default suffixes, then catalogue names whose first label contains the asked label, in
// catalogue order; taken and duplicate names are left out; at most kMaxAvailable.
Result<std::vector<AvailableDomain>> CheckAvailability(const State& s, std::string_view name, std::int64_t years);

struct BuyResult {
  const Checkout* checkout = nullptr;
  bool paidFromWallet = false;
  Cents walletCents = 0;  // the wallet after the purchase (or unchanged, when not paid from it)
};

// domains.buy. The name must be valid, registrable and free (else 400 naming domainName).
// useWallet and wallet >= price: the price leaves the wallet now (one Write: atomic), the domain
// is created PENDING in the caller's workspace, and its lifecycle is scheduled. Otherwise
// nothing is deducted and a PENDING checkout waits to be completed (model/checkouts.hpp).
Result<BuyResult> BuyDomain(State& s, const Caller& caller, std::string_view name, std::int64_t years,
                            bool use_wallet, Millis now);

// What a paid domain checkout delivers, at once from the wallet or when its checkout is completed
// (model/checkouts.hpp): the domain, PENDING in the checkout's workspace, its lifecycle scheduled.
const Domain& CreateBoughtDomain(State& s, const Checkout& c, Millis now);

// Lifecycle jobs: "domains.connect" moves a PENDING bought domain to CONNECTED (name servers
// answer: MX and SPF records in place) and schedules "domains.activate", which moves it to ACTIVE
// (DKIM in place). A job finds the domain in another status (e.g. after /_sim/domains/:id/
// transition) and does nothing.
inline constexpr const char* kConnectJob = "domains.connect";
inline constexpr const char* kActivateJob = "domains.activate";
void RunConnectJob(State& s, const json& args, Millis now);
void RunActivateJob(State& s, const json& args, Millis now);

}  // namespace emsim::model
