// With --data-dir a write transaction writes the rows its tables noted as changed (model/table.hpp):
// a scan through a table's mutable rows notes every row, and the durable copy then rewrote the
// whole table (every placement purchase rewrote every subscription). Each write here must note the
// rows it changes and no others.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/dns_shield.hpp"
#include "model/domains.hpp"
#include "model/exports.hpp"
#include "model/placement_tests.hpp"
#include "model/subscriptions.hpp"
#include "tests/support/fixture_clock.hpp"
#include "tests/support/test_server.hpp"

namespace emsim {
namespace {

template <class T>
std::vector<std::string> Noted(model::Table<T>& table) {
  std::vector<std::string> ids;
  if (table.TakeChanges([&](std::string_view id, const T*) { ids.emplace_back(id); })) return {"<every row>"};
  return ids;
}

using Ids = std::vector<std::string>;

TEST(ChangeTracking, AWriteNotesTheRowsItChangesNotItsWholeTable) {
  model::State s = testing::DefaultFixtureState();
  s.subscriptions.Track(true);
  s.dnsShield.Track(true);
  s.thirdPartyAccounts.Track(true);
  s.domains.Track(true);
  const model::Caller alice{"acc_alice", "ws_northwind"};
  const auto now = testing::kFixtureStartMs;

  // A MONTHLY purchase takes a credit from the subscription whose period ends first.
  ASSERT_TRUE(model::PurchasePlacementTests(s, alice, {"MONTHLY", "t", {"mbx_nw_01_01"}}, now).ok());
  EXPECT_EQ(Noted(s.subscriptions), Ids{"srec_alice_ent"});

  ASSERT_TRUE(model::CancelSubscription(s, "acc_alice", "sub_alice_ent", now).ok());
  EXPECT_EQ(Noted(s.subscriptions), Ids{"srec_alice_ent"});

  ASSERT_TRUE(model::UpgradeShieldPlan(s, "acc_alice", "dss_alice_starter", "growth", now).ok());
  EXPECT_EQ(Noted(s.dnsShield), Ids{"dsr_alice_starter"});

  ASSERT_TRUE(model::UpdateThirdPartyAccount(s, alice, {"INSTANTLY", "ops@example.com", "sha256:aa"}, now).ok());
  const Ids created = Noted(s.thirdPartyAccounts);
  ASSERT_EQ(created.size(), 1u);
  // A second account of the same app, then the first one's credentials replaced.
  ASSERT_TRUE(model::UpdateThirdPartyAccount(s, alice, {"INSTANTLY", "sales@example.com", "sha256:bb"}, now).ok());
  ASSERT_EQ(Noted(s.thirdPartyAccounts).size(), 1u);
  ASSERT_TRUE(model::UpdateThirdPartyAccount(s, alice, {"INSTANTLY", "OPS@example.com", "sha256:cc"}, now).ok());
  EXPECT_EQ(Noted(s.thirdPartyAccounts), created);

  // A domain setting only schedules its job: no domain changes until it runs, and then the named one.
  ASSERT_TRUE(model::ScheduleDomainSetting(s, alice, model::DomainSetting::kDmarc, {{"dom_nw_01"}, "", "d@example.com"}, now).ok());
  EXPECT_EQ(Noted(s.domains), Ids{});
  const model::Job* job = nullptr;
  for (const auto& [key, j] : s.jobs)
    if (j.kind == model::JobKind(model::DomainSetting::kDmarc)) job = &j;
  ASSERT_NE(job, nullptr);
  model::ApplyDomainSetting(s, model::DomainSetting::kDmarc, job->args.Parse(), job->dueMs);
  EXPECT_EQ(Noted(s.domains), Ids{"dom_nw_01"});
}

// What a write only reads is not noted: Find never notes (Edit does). A non-const State made
// every lookup a noted change, so each MONTHLY purchase rewrote its mailboxes and its account.
TEST(ChangeTracking, APurchaseNotesWhatItWritesNotWhatItOnlyReads) {
  model::State s = testing::DefaultFixtureState();
  s.mailboxes.Track(true);
  s.accounts.Track(true);
  s.subscriptions.Track(true);
  s.invoices.Track(true);
  s.placementCarts.Track(true);
  s.placementTests.Track(true);
  const model::Caller alice{"acc_alice", "ws_northwind"};
  const auto now = testing::kFixtureStartMs;

  auto monthly = model::PurchasePlacementTests(s, alice, {"MONTHLY", "t", {"mbx_nw_01_01", "mbx_nw_01_02"}}, now);
  ASSERT_TRUE(monthly.ok());
  EXPECT_EQ(Noted(s.mailboxes), Ids{});
  EXPECT_EQ(Noted(s.accounts), Ids{});
  EXPECT_EQ(Noted(s.subscriptions), Ids{"srec_alice_ent"});
  EXPECT_EQ(Noted(s.invoices), Ids{monthly->invoiceId.str()});
  EXPECT_EQ(Noted(s.placementCarts), Ids{monthly->cartOrderId.str()});
  EXPECT_EQ(Noted(s.placementTests), (Ids{monthly->orders[0].id.str(), monthly->orders[1].id.str()}));

  // ONE_TIME pays from the wallet: the account is written, its subscriptions are not.
  auto one_time = model::PurchasePlacementTests(s, alice, {"ONE_TIME", "t", {"mbx_nw_01_01"}}, now);
  ASSERT_TRUE(one_time.ok());
  ASSERT_TRUE(one_time->walletUsed);
  EXPECT_EQ(Noted(s.accounts), Ids{"acc_alice"});
  EXPECT_EQ(Noted(s.mailboxes), Ids{});
  EXPECT_EQ(Noted(s.subscriptions), Ids{});
}

}  // namespace
}  // namespace emsim
