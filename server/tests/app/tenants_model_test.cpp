// Model tests for POST /_sim/tenants' cloning (default fixture; no sockets).
#include <set>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "model/tenants.hpp"
#include "fixture/fixtures.hpp"

namespace emsim::model {
namespace {

constexpr Millis kNow = 1767258000000;

State Fixture(std::uint64_t seed = 1) { return fixture::LoadFixtureFile(cli::DefaultFixturePath(), seed).state; }

template <class T>
size_t CountOf(const Table<T>& t, const std::string& account_id) {
  size_t n = 0;
  for (const auto& r : t) n += r.accountId == account_id;
  return n;
}

TEST(CreateTenant, ClonesEveryRecordOfTheTemplateWithFreshIdsAndUniqueNames) {
  const State fixture = Fixture();
  State s = fixture;
  auto t = CreateTenant(s, fixture, "acc_alice", kNow);
  ASSERT_TRUE(t.ok());
  const Account* a = s.accounts.Find(t->accountId);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(s.tenants.Find(t->accountId), nullptr);
  EXPECT_EQ(s.tenants.Find(t->accountId)->templateId, "acc_alice");
  EXPECT_EQ(s.tenants.Find(t->accountId)->tag, t->tag);
  EXPECT_EQ(a->walletCents, fixture.accounts.Find("acc_alice")->walletCents);
  EXPECT_EQ(s.accountByApiKey.at(t->apiKey), t->accountId);
  EXPECT_NE(t->apiKey, fixture.accounts.Find("acc_alice")->apiKey);

  EXPECT_EQ(CountOf(s.workspaces, t->accountId), CountOf(fixture.workspaces, "acc_alice"));
  EXPECT_EQ(CountOf(s.domains, t->accountId), CountOf(fixture.domains, "acc_alice"));
  EXPECT_EQ(CountOf(s.mailboxes, t->accountId), CountOf(fixture.mailboxes, "acc_alice"));
  EXPECT_EQ(CountOf(s.subscriptions, t->accountId), CountOf(fixture.subscriptions, "acc_alice"));
  EXPECT_EQ(CountOf(s.dnsShield, t->accountId), CountOf(fixture.dnsShield, "acc_alice"));
  EXPECT_EQ(CountOf(s.emails, t->accountId), CountOf(fixture.emails, "acc_alice"));
  ASSERT_GT(CountOf(s.emails, t->accountId), 0u);

  // Every domain name, subscription id and message id stays unique in the whole state.
  std::set<std::string> names, subs, messages;
  for (const auto& d : s.domains) EXPECT_TRUE(names.insert(d.domain).second) << d.domain;
  for (const auto& x : s.subscriptions) EXPECT_TRUE(subs.insert(x.subscriptionId).second) << x.subscriptionId;
  for (const auto& e : s.emails) EXPECT_TRUE(messages.insert(e.messageId).second) << e.messageId;
  // Records hang together: mailboxes point at the tenant's domains in the tenant's workspaces.
  for (const auto& m : s.mailboxes) {
    if (m.accountId != t->accountId) continue;
    const Domain* d = s.domains.Find(m.domainId);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->accountId, t->accountId);
    EXPECT_EQ(d->workspaceId, m.workspaceId);
    EXPECT_EQ(d->domain.rfind(t->tag + "-", 0), 0u);
  }
  // Emails held in the tenant's mailboxes name the tenant's addresses.
  for (const auto& e : s.emails) {
    if (e.accountId == t->accountId) {
      EXPECT_NE(e.account.find("@" + t->tag + "-"), std::string::npos) << e.account;
    }
  }
  // The state still loads (no dangling reference).
  EXPECT_NO_THROW(LoadState(DumpState(s)));
}

TEST(CreateTenant, DefaultTemplateIsTheFirstFixtureAccount) {
  const State fixture = Fixture();
  State s = fixture;
  auto t = CreateTenant(s, fixture, "", kNow);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(s.tenants.Find(t->accountId)->templateId, fixture.accounts.begin()->id);
}

TEST(CreateTenant, UnknownTemplateIsA400NamingTemplate) {
  const State fixture = Fixture();
  State s = fixture;
  auto t = CreateTenant(s, fixture, "acc_nobody", kNow);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().errors.at(0).param, "template");
  EXPECT_EQ(DumpState(s), DumpState(fixture));
}

TEST(CreateTenant, TwoTenantsDifferAndTheSameSeedGivesTheSameTenants) {
  const State fixture = Fixture(42);
  State s1 = fixture, s2 = fixture;
  auto a1 = CreateTenant(s1, fixture, "acc_bob", kNow), b1 = CreateTenant(s1, fixture, "acc_bob", kNow);
  auto a2 = CreateTenant(s2, fixture, "acc_bob", kNow), b2 = CreateTenant(s2, fixture, "acc_bob", kNow);
  EXPECT_NE(a1->accountId, b1->accountId);
  EXPECT_NE(a1->apiKey, b1->apiKey);
  EXPECT_EQ(a1->apiKey, a2->apiKey);
  EXPECT_EQ(b1->accountId, b2->accountId);
  EXPECT_EQ(DumpState(s1), DumpState(s2));
}

}  // namespace
}  // namespace emsim::model
