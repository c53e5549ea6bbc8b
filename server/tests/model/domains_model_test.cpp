// Model tests for Part 4.4 domain rules: names, prices, availability, purchase, settings and the
// events they emit. No sockets: a small State built by hand.
#include <gtest/gtest.h>

#include "model/checkouts.hpp"
#include "model/domain_purchase.hpp"
#include "model/domains.hpp"
#include "tests/support/fixture_clock.hpp"

namespace emsim::model {
namespace {

using testing::kFixtureStartMs;  // 2026-01-01T09:00:00.000Z

// Two accounts, one workspace each; "taken.com" belongs to bob, "alpha.com" and "alphamail.net"
// to ann; a catalogue with a cheap .co special and names sharing the label "alpha".
State DomainsWorld() {
  State s;
  s.ids = IdGenerator(7);
  s.accounts.Insert({"acc_ann", "key_ann", {"usr_ann", "ann@example.com", "Ann", "A"}, 5000, {}});
  s.accounts.Insert({"acc_bob", "key_bob", {"usr_bob", "bob@example.com", "Bob", "B"}, 0, {}});
  s.workspaces.Insert({"ws_ann", "acc_ann", "Ann", true, std::nullopt, kFixtureStartMs, {}});
  s.workspaces.Insert({"ws_bob", "acc_bob", "Bob", true, std::nullopt, kFixtureStartMs, {}});
  auto domain = [&](std::string id, std::string ws, std::string acc, std::string name, std::string status) {
    Domain d;
    d.id = std::move(id);
    d.workspaceId = std::move(ws);
    d.accountId = std::move(acc);
    d.domain = std::move(name);
    d.status = *core::ParseEnum<DomainStatus>(status);
    d.createdAt = d.updatedAt = kFixtureStartMs - kDay;
    s.AddDomain(d);
  };
  domain("d_alpha", "ws_ann", "acc_ann", "alpha.com", "ACTIVE");
  domain("d_alphamail", "ws_ann", "acc_ann", "alphamail.net", "CONNECTED");
  domain("d_taken", "ws_bob", "acc_bob", "taken.com", "ACTIVE");
  s.catalogue = {{"getalpha.com", 1999, 1999}, {"alpha.co", 999, 1299}, {"beta.io", 4500, 4900},
                 {"alphaworks.io", 3900, 4900}};
  s.RebuildIndexes();
  return s;
}

const Caller kAnn{"acc_ann", "ws_ann"};

std::vector<std::string> Names(const std::vector<AvailableDomain>& list) {
  std::vector<std::string> out;
  for (const auto& a : list) out.push_back(a.domainName);
  return out;
}

// ---- names -----------------------------------------------------------------------------------

TEST(DomainNames, ValidNamesAreLowerCased) {
  auto n = NormalizeDomainName("Brand-New.COM");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, "brand-new.com");
  EXPECT_TRUE(NormalizeDomainName("xn--bcher-kva.co.uk").ok());
}

TEST(DomainNames, InvalidNamesNameDomainNameAndSayWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {"localhost", "top-level domain"},
      {"a..com", "empty label"},
      {".com", "empty label"},
      {"-brand.com", "hyphen"},
      {"brand_new.com", "characters other than letters, digits and hyphens"},
      {"brand new.com", "characters other than letters, digits and hyphens"},
      {"brand.c", "shorter than 2"},
      {"brand.c0m", "characters other than letters"},
      {std::string(64, 'a') + ".com", "longer than 63"},
  };
  for (const auto& [name, why] : cases) {
    auto n = NormalizeDomainName(name);
    ASSERT_FALSE(n.ok()) << name;
    ASSERT_EQ(n.error().errors.size(), 1u);
    EXPECT_EQ(n.error().errors[0].param, "domainName");
    EXPECT_NE(n.error().errors[0].msg.find(why), std::string::npos) << name << ": " << n.error().errors[0].msg;
  }
}

// ---- prices ----------------------------------------------------------------------------------

TEST(DomainPrices, CatalogueEntryBeatsTheDefaultTable) {
  const State s = DomainsWorld();
  auto special = PriceOf(s, "alpha.co");
  ASSERT_TRUE(special);
  EXPECT_EQ(special->domainPriceCents, 999);
  EXPECT_EQ(special->renewPriceCents, 1299);
  auto other_co = PriceOf(s, "gamma.co");
  ASSERT_TRUE(other_co);
  EXPECT_EQ(other_co->domainPriceCents, 2499);  // default .co
  EXPECT_EQ(PriceOf(s, "gamma.com")->domainPriceCents, 1299);
  EXPECT_EQ(PriceOf(s, "gamma.io")->renewPriceCents, 4900);
}

TEST(DomainPrices, UnsoldSuffixesHaveNoPrice) {
  const State s = DomainsWorld();
  EXPECT_FALSE(PriceOf(s, "gamma.xyz"));
  EXPECT_FALSE(PriceOf(s, "mail.gamma.com"));  // a subdomain is not registrable
}

// ---- availability ----------------------------------------------------------------------------

TEST(DomainAvailability, AskedNameFirstThenOtherSuffixesThenCatalogueVariants) {
  const State s = DomainsWorld();
  auto r = CheckAvailability(s, "Gamma.com", 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Names(*r), (std::vector<std::string>{"gamma.com", "gamma.net", "gamma.org", "gamma.io", "gamma.co"}));
  EXPECT_EQ((*r)[0].domainPriceCents, 1299);
  EXPECT_EQ((*r)[0].renewPriceCents, 1499);
}

TEST(DomainAvailability, TakenNamesOfAnyAccountAreLeftOut) {
  const State s = DomainsWorld();
  // alpha.com is ann's own; taken.com is bob's: neither is offered, to anyone.
  auto r = CheckAvailability(s, "alpha.com", 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Names(*r), (std::vector<std::string>{"alpha.net", "alpha.org", "alpha.io", "alpha.co", "getalpha.com",
                                                 "alphaworks.io"}));
  // alpha.co comes from the catalogue's price, not the default table.
  EXPECT_EQ((*r)[3].domainPriceCents, 999);
  auto t = CheckAvailability(s, "taken.com", 1);
  ASSERT_TRUE(t.ok());
  for (const auto& a : *t) EXPECT_NE(a.domainName, "taken.com");
}

// Whether a name is taken is an index (State::domainsByName), not a scan: it follows purchases,
// removals and names spelt in another case, and a removed domain's name is for sale again.
TEST(DomainAvailability, ANameIsTakenWhileADomainHasItInAnyCase) {
  State s = DomainsWorld();
  Domain d;
  d.id = "d_mixed";
  d.workspaceId = "ws_bob";
  d.accountId = "acc_bob";
  d.domain = "MixedCase.org";
  s.AddDomain(d);
  EXPECT_FALSE(BuyDomain(s, kAnn, "mixedcase.org", 1, true, kFixtureStartMs).ok());
  auto bought = BuyDomain(s, kAnn, "fresh.com", 1, true, kFixtureStartMs);
  ASSERT_TRUE(bought.ok());
  EXPECT_FALSE(BuyDomain(s, kAnn, "FRESH.com", 1, true, kFixtureStartMs).ok());
  s.RemoveDomain("d_mixed");
  auto again = CheckAvailability(s, "mixedcase.org", 1);
  ASSERT_TRUE(again.ok());
  ASSERT_FALSE(again->empty());
  EXPECT_EQ((*again)[0].domainName, "mixedcase.org");
  EXPECT_EQ(IndexProblems(s), "");
}

TEST(DomainAvailability, PricesScaleWithYears) {
  const State s = DomainsWorld();
  auto r = CheckAvailability(s, "alpha.co", 3);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->empty());
  EXPECT_EQ((*r)[0].domainName, "alpha.co");
  EXPECT_EQ((*r)[0].domainPriceCents, 3 * 999);
  EXPECT_EQ((*r)[0].renewPriceCents, 3 * 1299);
}

TEST(DomainAvailability, YearsOutsideOneToTenAreRejected) {
  const State s = DomainsWorld();
  for (std::int64_t years : {0, 11, -1}) {
    auto r = CheckAvailability(s, "gamma.com", years);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().errors[0].param, "years");
  }
  EXPECT_TRUE(CheckAvailability(s, "gamma.com", 10).ok());
}

TEST(DomainAvailability, AtMostTenNamesAndUnsoldAskedNameOmitted) {
  State s = DomainsWorld();
  for (int i = 0; i < 20; ++i) s.catalogue.push_back({"zeta" + std::to_string(i) + ".com", 1000, 1000});
  auto r = CheckAvailability(s, "zeta.xyz", 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), kMaxAvailable);
  EXPECT_EQ((*r)[0].domainName, "zeta.com");  // .xyz is not sold: the asked name is not listed
  EXPECT_EQ((*r)[5].domainName, "zeta0.com");
}

// ---- purchase --------------------------------------------------------------------------------

TEST(DomainPurchase, WalletPaysAtOnceAndTheDomainStartsPending) {
  State s = DomainsWorld();
  auto r = BuyDomain(s, kAnn, "gamma.io", 1, true, kFixtureStartMs);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->paidFromWallet);
  EXPECT_EQ(s.accounts.Find("acc_ann")->walletCents, 5000 - 3900);
  EXPECT_EQ(r->checkout->status, CheckoutStatus::kPaid);
  EXPECT_EQ(r->checkout->paidWith, PaidWith::kWallet);
  const Domain* d = s.domains.Find(*r->checkout->domainId);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->domain, "gamma.io");
  EXPECT_EQ(d->status, DomainStatus::kPending);
  EXPECT_EQ(d->workspaceId, "ws_ann");
  EXPECT_EQ(d->expireOn, kFixtureStartMs + 365 * kDay);
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs.begin()->second.kind, kConnectJob);
  EXPECT_EQ(s.jobs.begin()->second.dueMs, kFixtureStartMs + 300 * kSecond);
  EXPECT_TRUE(s.events.empty());  // creation is not a change (README)
  EXPECT_TRUE(IsTaken(s, "gamma.io"));
}

TEST(DomainPurchase, TooLittleOrNoWalletDeductsNothingAndOpensACheckout) {
  State s = DomainsWorld();
  auto too_little = BuyDomain(s, kAnn, "gamma.io", 2, true, kFixtureStartMs);  // 78.00 > 50.00
  ASSERT_TRUE(too_little.ok());
  EXPECT_FALSE(too_little->paidFromWallet);
  EXPECT_EQ(too_little->checkout->status, CheckoutStatus::kPending);
  EXPECT_EQ(too_little->checkout->amountCents, 7800);
  auto no_wallet = BuyDomain(s, kAnn, "gamma.com", 1, false, kFixtureStartMs);
  ASSERT_TRUE(no_wallet.ok());
  EXPECT_EQ(no_wallet->checkout->status, CheckoutStatus::kPending);
  EXPECT_EQ(s.accounts.Find("acc_ann")->walletCents, 5000);
  EXPECT_EQ(s.domains.size(), 3u);
  EXPECT_TRUE(s.jobs.empty());
  EXPECT_FALSE(IsTaken(s, "gamma.io"));  // an open checkout reserves nothing
}

TEST(DomainPurchase, TakenUnsoldOrInvalidNamesAreRejectedNamingDomainName) {
  State s = DomainsWorld();
  for (const char* name : {"taken.com", "TAKEN.com", "gamma.xyz", "bad_name.com"}) {
    auto r = BuyDomain(s, kAnn, name, 1, true, kFixtureStartMs);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.error().errors[0].param, "domainName") << name;
  }
  EXPECT_EQ(s.accounts.Find("acc_ann")->walletCents, 5000);
  EXPECT_TRUE(s.checkouts.empty());
}

TEST(DomainPurchase, ExactBalanceIsEnough) {
  State s = DomainsWorld();
  s.accounts.Edit("acc_ann")->walletCents = 1299;
  auto r = BuyDomain(s, kAnn, "gamma.com", 1, true, kFixtureStartMs);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->paidFromWallet);
  EXPECT_EQ(s.accounts.Find("acc_ann")->walletCents, 0);
}

TEST(DomainPurchase, CompletingACheckoutCreatesTheDomainOnceOnly) {
  State s = DomainsWorld();
  auto r = BuyDomain(s, kAnn, "gamma.com", 1, false, kFixtureStartMs);
  ASSERT_TRUE(r.ok());
  const std::string id = r->checkout->id;
  auto done = CompleteDomainCheckout(s, id, kFixtureStartMs + kMinute);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ((*done)->status, CheckoutStatus::kPaid);
  EXPECT_EQ((*done)->paidWith, PaidWith::kCheckout);
  EXPECT_EQ(s.domains.Find(*(*done)->domainId)->status, DomainStatus::kPending);
  EXPECT_EQ(s.accounts.Find("acc_ann")->walletCents, 5000);  // paid outside the wallet
  auto again = CompleteDomainCheckout(s, id, kFixtureStartMs + 2 * kMinute);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().errors[0].msg.find("already paid"), std::string::npos);
  EXPECT_EQ(s.domains.size(), 4u);
  EXPECT_EQ(CompleteDomainCheckout(s, "chk_nope", kFixtureStartMs).error().code, ErrorCode::kNotFound);
}

TEST(DomainPurchase, CheckoutForANameTakenMeanwhileFails) {
  State s = DomainsWorld();
  auto first = BuyDomain(s, kAnn, "gamma.com", 1, false, kFixtureStartMs);
  const std::string first_id = first->checkout->id;
  ASSERT_TRUE(BuyDomain(s, {"acc_bob", "ws_bob"}, "gamma.com", 1, false, kFixtureStartMs).ok());
  const std::string second_id = s.checkouts.rows().back().id;
  ASSERT_TRUE(CompleteDomainCheckout(s, second_id, kFixtureStartMs).ok());
  auto late = CompleteDomainCheckout(s, first_id, kFixtureStartMs);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().errors[0].param, "domainName");
  EXPECT_EQ(s.checkouts.Find(first_id)->status, CheckoutStatus::kPending);
}

TEST(DomainLifecycle, ConnectThenActivateWithDnsAndEvents) {
  State s = DomainsWorld();
  auto r = BuyDomain(s, kAnn, "gamma.com", 1, true, kFixtureStartMs);
  const std::string id = *r->checkout->domainId;
  json args = {{"domainId", id}};
  RunConnectJob(s, args, kFixtureStartMs + 300 * kSecond);
  const Domain* d = s.domains.Find(id);
  EXPECT_EQ(d->status, DomainStatus::kConnected);
  EXPECT_TRUE(d->dns.mx && d->dns.spf);
  EXPECT_FALSE(d->dns.dkim);
  EXPECT_EQ(d->updatedAt, kFixtureStartMs + 300 * kSecond);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].type, "domain.updated");
  EXPECT_EQ(s.events[1].type, "domain.connection_status_changed");
  EXPECT_EQ(s.events[0].data.Parse()["previousState"],
            (json{{"status", "PENDING"}, {"mxRecords", false}, {"spfRecord", false}}));
  EXPECT_EQ(s.events[0].data.Parse()["domainDetails"]["status"], "CONNECTED");
  // The activation job was scheduled by the connect job (which is still queued here: this test
  // calls the runners directly instead of through the scheduler).
  std::vector<Job> activations;
  for (const auto& [key, job] : s.jobs)
    if (job.kind == kActivateJob) activations.push_back(job);
  ASSERT_EQ(activations.size(), 1u);
  EXPECT_EQ(activations[0].dueMs, kFixtureStartMs + 300 * kSecond + 3600 * kSecond);
  EXPECT_EQ(activations[0].args.Parse(), args);
  RunActivateJob(s, args, kFixtureStartMs + 3900 * kSecond);
  EXPECT_EQ(d->status, DomainStatus::kActive);
  EXPECT_TRUE(d->dns.dkim);
  // Leaving CONNECTED is a connection-status change too.
  ASSERT_EQ(s.events.size(), 4u);
  EXPECT_EQ(s.events[3].type, "domain.connection_status_changed");
  EXPECT_EQ(s.events[3].data.Parse()["previousState"], (json{{"status", "CONNECTED"}, {"dkimRecords", false}}));
}

TEST(DomainLifecycle, JobsLeaveADomainMovedByHandAlone) {
  State s = DomainsWorld();
  auto r = BuyDomain(s, kAnn, "gamma.com", 1, true, kFixtureStartMs);
  const std::string id = *r->checkout->domainId;
  ASSERT_TRUE(TransitionDomain(s, id, "ACTIVE", kFixtureStartMs + kSecond).ok());
  const size_t events = s.events.size();
  RunConnectJob(s, {{"domainId", id}}, kFixtureStartMs + 300 * kSecond);
  EXPECT_EQ(s.domains.Find(id)->status, DomainStatus::kActive);
  EXPECT_EQ(s.events.size(), events);
  for (const auto& [key, job] : s.jobs) EXPECT_NE(job.kind, kActivateJob);
}

// ---- transitions and events -------------------------------------------------------------------

TEST(DomainTransition, StatusChangeEmitsBothEventsOnlyAroundPendingOrConnected) {
  State s = DomainsWorld();
  auto to_connected = TransitionDomain(s, "d_alpha", "CONNECTED", kFixtureStartMs);
  ASSERT_TRUE(to_connected.ok());
  EXPECT_EQ(to_connected->previousStatus, DomainStatus::kActive);
  ASSERT_EQ(to_connected->eventIds.size(), 2u);
  EXPECT_EQ(s.events[1].data.Parse()["previousState"], (json{{"status", "ACTIVE"}}));
  EXPECT_EQ(s.domains.Find("d_alpha")->updatedAt, kFixtureStartMs);
  // The same status again: nothing changes, nothing is emitted.
  auto same = TransitionDomain(s, "d_alpha", "CONNECTED", kFixtureStartMs + kSecond);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->eventIds.empty());
  EXPECT_EQ(s.domains.Find("d_alpha")->updatedAt, kFixtureStartMs);
  EXPECT_EQ(TransitionDomain(s, "nope", "ACTIVE", kFixtureStartMs).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(TransitionDomain(s, "d_alpha", "DELETED", kFixtureStartMs).error().code, ErrorCode::kValidation);
}

TEST(DomainTransition, EventsBelongToTheDomainsAccount) {
  State s = DomainsWorld();
  ASSERT_TRUE(TransitionDomain(s, "d_taken", "PENDING", kFixtureStartMs).ok());
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].accountId, "acc_bob");
  EXPECT_EQ(s.events[0].data.Parse()["domainDetails"]["userId"], "usr_bob");
}

// ---- dns-check selection ----------------------------------------------------------------------

TEST(DomainSelection, UnknownAndForeignIdsAreNotFoundAndNamed) {
  const State s = DomainsWorld();
  auto r = FindWorkspaceDomains(s, kAnn, {"d_alpha", "d_taken", "missing", "d_alpha"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("d_taken, missing"), std::string::npos) << r.error().message;
  auto ok = FindWorkspaceDomains(s, kAnn, {"d_alphamail", "d_alpha", "d_alpha"});
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->size(), 2u);  // request order, each once
  EXPECT_EQ((*ok)[0]->id, "d_alphamail");
}

// ---- settings ---------------------------------------------------------------------------------

TEST(DomainSettings, SelectsTheUnionOfIdsAndKeywordAndChangesNothingUntilTheJob) {
  State s = DomainsWorld();
  auto n = ScheduleDomainSetting(s, kAnn, DomainSetting::kDmarc, {{"d_alpha"}, "MAIL", "dmarc@ann.com"}, kFixtureStartMs);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);
  EXPECT_FALSE(s.domains.Find("d_alpha")->dmarcEmail);
  EXPECT_TRUE(s.events.empty());
  ASSERT_EQ(s.jobs.size(), 1u);
  const Job job = s.jobs.begin()->second;
  EXPECT_EQ(job.kind, "domains.apply_dmarc");
  EXPECT_EQ(job.dueMs, kFixtureStartMs + 30 * kSecond);
  EXPECT_EQ(job.args.Parse()["domainIds"], (json{"d_alpha", "d_alphamail"}));
  ApplyDomainSetting(s, DomainSetting::kDmarc, job.args.Parse(), job.dueMs);
  const Domain* d = s.domains.Find("d_alphamail");
  EXPECT_EQ(d->dmarcEmail, "dmarc@ann.com");
  EXPECT_TRUE(d->dmarcEmailAddedToReseller);
  EXPECT_TRUE(d->dns.dmarc);
  ASSERT_EQ(s.events.size(), 2u);  // one domain.updated per domain; no status change
  EXPECT_EQ(s.events[0].data.Parse()["previousState"],
            (json{{"dmarcEmail", nullptr}, {"dmarcEmailAddedToReseller", false}, {"dmarcRecords", false}}));
  // Applying the same again changes nothing and emits nothing.
  ApplyDomainSetting(s, DomainSetting::kDmarc, job.args.Parse(), job.dueMs + kSecond);
  EXPECT_EQ(s.events.size(), 2u);
}

TEST(DomainSettings, ForwardingAndCatchAllSetTheirOwnFields) {
  State s = DomainsWorld();
  ApplyDomainSetting(s, DomainSetting::kForwarding, {{"domainIds", {"d_alpha"}}, {"email", "fw@ann.com"}}, kFixtureStartMs);
  ApplyDomainSetting(s, DomainSetting::kCatchAll, {{"domainIds", {"d_alpha"}}, {"email", "all@ann.com"}}, kFixtureStartMs);
  const Domain* d = s.domains.Find("d_alpha");
  EXPECT_EQ(d->forwardingEmail, "fw@ann.com");
  EXPECT_TRUE(d->forwardingEmailAdded);
  EXPECT_FALSE(d->forwardTo);  // the web redirect is not email forwarding (README)
  EXPECT_EQ(d->catchAllEmail, "all@ann.com");
  EXPECT_TRUE(d->catchAllEmailAdded);
  EXPECT_FALSE(d->dmarcEmail);
}

TEST(DomainSettings, NothingSelectedIs400AndUnknownIdsAre404WithoutScheduling) {
  State s = DomainsWorld();
  auto none = ScheduleDomainSetting(s, kAnn, DomainSetting::kCatchAll, {{}, "", "x@ann.com"}, kFixtureStartMs);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().errors[0].param, "domainIds");
  auto no_match = ScheduleDomainSetting(s, kAnn, DomainSetting::kCatchAll, {{}, "taken", "x@ann.com"}, kFixtureStartMs);
  ASSERT_FALSE(no_match.ok());
  EXPECT_NE(no_match.error().errors[0].msg.find("'taken' matched no domain"), std::string::npos);
  auto foreign = ScheduleDomainSetting(s, kAnn, DomainSetting::kCatchAll, {{"d_taken"}, "alpha", "x@ann.com"}, kFixtureStartMs);
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(s.jobs.empty());
}

}  // namespace
}  // namespace emsim::model
