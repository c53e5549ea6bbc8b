#include "model/domain_purchase.hpp"

#include <set>

#include "model/checkouts.hpp"
#include "model/domains.hpp"
#include "core/messages.hpp"
#include "core/text.hpp"

namespace emsim::model {

namespace {

bool IsLdh(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// "brightreach.com" -> {"brightreach", "com"}; the suffix may hold dots ("co.uk").
std::pair<std::string, std::string> SplitFirstLabel(const std::string& name) {
  const auto dot = name.find('.');
  return {name.substr(0, dot), name.substr(dot + 1)};
}

// Where a bought domain's name servers point: emsim's registrar, as in the default fixtures.
const std::vector<std::string> kRegistrarNameServers = {"ns1.emsim-dns.net", "ns2.emsim-dns.net"};

}  // namespace

Result<std::string> NormalizeDomainName(std::string_view raw) {
  auto bad = [&](const std::string& why) {
    return Error::Validation("domainName", "'" + std::string(raw) + "' is not a valid domain name: " + why);
  };
  const std::string name = ToLower(raw);
  if (name.empty()) return bad("it is empty");
  if (name.size() > 253) return bad("it is longer than 253 characters");
  std::vector<std::string> labels;
  size_t start = 0;
  for (;;) {
    const size_t dot = name.find('.', start);
    labels.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (labels.size() < 2) return bad("it needs a name and a top-level domain, like example.com");
  for (const auto& label : labels) {
    if (label.empty()) return bad("it has an empty label (two dots in a row, or a dot at either end)");
    if (label.size() > 63) return bad("the label '" + label + "' is longer than 63 characters");
    for (char c : label)
      if (!IsLdh(c)) return bad("the label '" + label + "' has characters other than letters, digits and hyphens");
    if (label.front() == '-' || label.back() == '-')
      return bad("the label '" + label + "' starts or ends with a hyphen");
  }
  const std::string& tld = labels.back();
  if (tld.size() < 2) return bad("the top-level domain '" + tld + "' is shorter than 2 letters");
  for (char c : tld)
    if (c < 'a' || c > 'z') return bad("the top-level domain '" + tld + "' has characters other than letters");
  return name;
}

const std::vector<DefaultTldPrice>& DefaultTldPrices() {
  // Gap decision (README): the spec shows no prices; these defaults (per year) price every name
  // the fixture catalogue does not list. Order is the order suggestions are offered in.
  static const std::vector<DefaultTldPrice> kPrices = {
      {"com", 1299, 1499}, {"net", 1499, 1699}, {"org", 1299, 1599}, {"io", 3900, 4900}, {"co", 2499, 2999},
  };
  return kPrices;
}

std::optional<CatalogueEntry> PriceOf(const State& s, const std::string& name) {
  for (const auto& c : s.catalogue)
    if (ToLower(c.domainName) == name) return CatalogueEntry{name, c.domainPriceCents, c.renewPriceCents};
  const std::string suffix = SplitFirstLabel(name).second;
  for (const auto& p : DefaultTldPrices())
    if (suffix == p.suffix) return CatalogueEntry{name, p.domainPriceCents, p.renewPriceCents};
  return std::nullopt;
}

// `name` is normalized (lower case): State::domainsByName, not a scan of every domain.
bool IsTaken(const State& s, const std::string& name) {
  return s.domainsByName.contains(name);  // a count is erased when it reaches 0
}

Result<std::vector<AvailableDomain>> CheckAvailability(const State& s, std::string_view raw, std::int64_t years) {
  auto name = NormalizeDomainName(raw);
  if (!name) return name.error();
  if (years < kMinYears || years > kMaxYears) return Error::Validation("years", msg::kYearsRange);
  const auto [label, suffix] = SplitFirstLabel(*name);

  std::vector<std::string> candidates = {*name};
  for (const auto& p : DefaultTldPrices()) candidates.push_back(label + "." + p.suffix);
  for (const auto& c : s.catalogue) {
    const std::string entry = ToLower(c.domainName);
    if (ContainsFolded(SplitFirstLabel(entry).first, label)) candidates.push_back(entry);
  }

  std::vector<AvailableDomain> out;
  std::set<std::string> seen;
  for (const auto& candidate : candidates) {
    if (out.size() >= kMaxAvailable) break;
    if (!seen.insert(candidate).second || IsTaken(s, candidate)) continue;
    auto price = PriceOf(s, candidate);
    if (!price) continue;  // not sold here: not listed
    out.push_back({candidate, price->domainPriceCents * years, price->renewPriceCents * years});
  }
  return out;
}

namespace {

// The name of a purchase must be valid, sold here and free; the error always names domainName.
Result<CatalogueEntry> RegistrableName(const State& s, std::string_view raw) {
  auto name = NormalizeDomainName(raw);
  if (!name) return name.error();
  if (IsTaken(s, *name)) return Error::Validation("domainName", *name + " is already registered");
  auto price = PriceOf(s, *name);
  if (!price) {
    std::string sold;
    for (const auto& p : DefaultTldPrices()) sold += (sold.empty() ? "." : ", .") + std::string(p.suffix);
    return Error::Validation("domainName", *name + " cannot be registered here: emsim sells " + sold +
                                               " names and the names of its catalogue");
  }
  return *price;
}

}  // namespace

// No event: nothing changed on an existing domain yet (README gap decision); the first event is
// PENDING -> CONNECTED.
const Domain& CreateBoughtDomain(State& s, const Checkout& c, Millis now) {
  Domain d;
  d.id = s.ids.Uuid4();
  d.accountId = c.accountId;
  d.workspaceId = c.workspaceId;
  d.domain = c.domainName;
  d.status = DomainStatus::kPending;
  d.createdAt = d.updatedAt = d.registeredOn = now;
  d.expireOn = now + c.years * 365 * kDay;
  d.nameServers = kRegistrarNameServers;
  d.purchaseType = "REGISTERED";
  const Domain& added = s.AddDomain(std::move(d));
  s.Schedule(now + s.TimingMs("domainPendingToConnectedSeconds", 300 * kSecond), kConnectJob,
             {{"domainId", added.id}});
  return added;
}

Result<BuyResult> BuyDomain(State& s, const Caller& caller, std::string_view raw, std::int64_t years,
                            bool use_wallet, Millis now) {
  if (years < kMinYears || years > kMaxYears) return Error::Validation("years", msg::kYearsRange);
  auto entry = RegistrableName(s, raw);
  if (!entry) return entry.error();
  Account* account = s.accounts.Edit(caller.accountId);
  if (!account) return Error::Internal("caller's account is missing");

  Checkout c;
  c.id = "chk_" + s.ids.Uuid4();
  c.accountId = caller.accountId;
  c.workspaceId = caller.workspaceId;
  c.domainName = entry->domainName;
  c.years = years;
  c.amountCents = entry->domainPriceCents * years;
  c.createdAt = now;
  BuyResult r;
  // The balance check and the debit happen in the same Write as everything else here, so
  // concurrent purchases can neither overdraw the wallet nor lose a cent.
  if (const PaidWith paid = PayFromWallet(s, *account, c.amountCents, "domain_purchase", now, use_wallet);
      paid != PaidWith::kUnpaid) {
    s.walletMovements.back().reference = c.id;
    MarkPaid(c, paid, now);
    c.domainId = CreateBoughtDomain(s, c, now).id;
    r.paidFromWallet = true;
  }
  r.walletCents = account->walletCents;
  r.checkout = &s.checkouts.Insert(std::move(c));
  return r;
}

void RunConnectJob(State& s, const json& args, Millis now) {
  Domain* d = s.domains.Edit(args.at("domainId").get<std::string>());
  if (!d || d->status != DomainStatus::kPending) return;
  ChangeDomain(s, *d, now, [](Domain& x) {
    x.status = DomainStatus::kConnected;
    x.dns.mx = true;
    x.dns.spf = true;
  });
  s.Schedule(now + s.TimingMs("domainConnectedToActiveSeconds", 3600 * kSecond), kActivateJob,
             {{"domainId", d->id}});
}

void RunActivateJob(State& s, const json& args, Millis now) {
  Domain* d = s.domains.Edit(args.at("domainId").get<std::string>());
  if (!d || d->status != DomainStatus::kConnected) return;
  ChangeDomain(s, *d, now, [](Domain& x) {
    x.status = DomainStatus::kActive;
    x.dns.dkim = true;
  });
}

}  // namespace emsim::model
