// Model-level tests of the money rules (no sockets): wallet arithmetic, placement purchase and
// its scheduled steps, DNS shield plan lookup.
#include <gtest/gtest.h>

#include "model/checkouts.hpp"
#include "model/dns_shield.hpp"
#include "model/placement_tests.hpp"
#include "model/wallet.hpp"

namespace emsim::model {
namespace {

State BillingWorld() {
  State s;
  s.ids = IdGenerator(7);
  Account a;
  a.id = "acc";
  a.apiKey = "key";
  a.user.id = "usr";
  a.walletCents = 500;
  s.accounts.Insert(a);
  Workspace w;
  w.id = "ws";
  w.accountId = "acc";
  s.workspaces.Insert(w);
  Domain d;
  d.id = "dom";
  d.accountId = "acc";
  d.workspaceId = "ws";
  d.domain = "example.com";
  s.AddDomain(d);
  for (const char* name : {"a", "b", "c"}) {
    Mailbox m;
    m.id = std::string("mbx_") + name;
    m.accountId = "acc";
    m.workspaceId = "ws";
    m.domainId = "dom";
    m.username = name;
    s.AddMailbox(m);
  }
  s.RebuildIndexes();
  return s;
}

TEST(WalletModel, WholeDollarsRoundDown) {
  EXPECT_EQ(WholeDollars(0), 0);
  EXPECT_EQ(WholeDollars(99), 0);
  EXPECT_EQ(WholeDollars(100), 1);
  EXPECT_EQ(WholeDollars(25099), 250);
  // previous - whole-dollar charge == current, after rounding, for any cents.
  for (Cents c = 200; c < 1000; ++c) EXPECT_EQ(WholeDollars(c) - 2, WholeDollars(c - 200)) << c;
}

TEST(WalletModel, DebitNeverGoesNegativeAndEveryDebitIsRecorded) {
  State s;
  Account a;
  a.id = "acc";
  a.walletCents = 300;
  EXPECT_TRUE(TryDebitWallet(s, a, 200, "placement_tests", 1000));
  EXPECT_EQ(a.walletCents, 100);
  EXPECT_FALSE(TryDebitWallet(s, a, 101, "placement_tests", 1000));
  EXPECT_EQ(a.walletCents, 100);
  EXPECT_FALSE(TryDebitWallet(s, a, -5, "placement_tests", 1000));
  EXPECT_TRUE(TryDebitWallet(s, a, 100, "domain_purchase", 2000));
  EXPECT_EQ(a.walletCents, 0);
  ASSERT_EQ(s.walletMovements.size(), 2u);  // the refused debits left no trace
  EXPECT_EQ(s.walletMovements[0].amountCents, -200);
  EXPECT_EQ(s.walletMovements[0].balanceCents, 100);
  EXPECT_EQ(s.walletMovements[1].id, "wmv_2");
  EXPECT_EQ(s.walletMovements[1].reason, "domain_purchase");
  EXPECT_EQ(s.walletMovements[1].balanceCents, 0);
  EXPECT_EQ(s.walletMovements[1].createdAt, 2000);
}

TEST(WalletModel, ASetIsAMovementOfTheDifferenceAndTheChainAddsUp) {
  State s;
  Account a;
  a.id = "acc";
  a.walletCents = 1000;
  s.AddAccount(a);
  Account& acc = *s.accounts.Edit("acc");
  ASSERT_TRUE(SetWallet(s, "acc", 2500, "balanceCents", 10).ok());
  ASSERT_TRUE(SetWallet(s, "acc", 2500, "balanceCents", 11).ok());  // no change, no movement
  ASSERT_TRUE(TryDebitWallet(s, acc, 700, "placement_tests", 12));
  ASSERT_TRUE(SetWallet(s, "acc", 100, "balanceCents", 13).ok());
  const auto moves = WalletMovementsOf(s, "acc");
  ASSERT_EQ(moves.size(), 3u);
  EXPECT_EQ(moves[0]->amountCents, 1500);
  EXPECT_EQ(moves[0]->reason, "set");
  EXPECT_EQ(moves[2]->amountCents, -1700);
  Cents opening = moves[0]->balanceCents - moves[0]->amountCents, sum = 0;
  for (const auto* m : moves) sum += m->amountCents;
  EXPECT_EQ(opening, 1000);
  EXPECT_EQ(opening + sum, acc.walletCents);
  EXPECT_FALSE(SetWallet(s, "acc", -1, "balanceCents", 14).ok());
  EXPECT_EQ(s.walletMovements.size(), 3u);
}

TEST(PlacementModel, OneTimePurchaseDebitsAndSchedulesTheFirstStep) {
  State s = BillingWorld();
  auto r = PurchasePlacementTests(s, {"acc", "ws"}, {"ONE_TIME", "t", {"mbx_a", "mbx_b"}}, 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->walletBefore, 500);
  EXPECT_EQ(r->walletAfter, 100);
  EXPECT_EQ(s.accounts.Find("acc")->walletCents, 100);
  ASSERT_EQ(r->orders.size(), 2u);
  EXPECT_EQ(r->orders[0].mailboxEmail, "a@example.com");
  ASSERT_EQ(s.jobs.size(), 1u);
  const Job& job = s.jobs.begin()->second;
  EXPECT_EQ(job.kind, kPlacementAdvanceJob);
  EXPECT_EQ(job.dueMs, 1000 + 60 * kSecond);

  AdvancePlacementTests(s, job.args.Parse(), job.dueMs);
  EXPECT_EQ(s.placementTests.Find(r->orders[0].id)->status, PlacementTestStatus::kRunning);
  EXPECT_EQ(s.events.size(), 2u);
}

// Part 4.7 / gap decision: credits come from ACTIVE subscriptions of the caller's account, the
// period ending first used first, ties in creation order, split across subscriptions as needed.
TEST(PlacementModel, MonthlyCreditsComeFromThePeriodEndingFirstTiesInCreationOrder) {
  State s = BillingWorld();
  auto add = [&s](const char* id, const char* account, const char* status, Millis period_end, std::int64_t credits) {
    Subscription sub;
    sub.id = id;
    sub.accountId = account;
    sub.subscriptionStatus = *core::ParseEnum<SubscriptionStatus>(status);
    sub.periodEnd = period_end;
    sub.placementCredits = credits;
    s.subscriptions.Insert(sub);
  };
  add("late", "acc", "ACTIVE", 900, 5);
  add("tie_first", "acc", "ACTIVE", 100, 1);
  add("cancelled", "acc", "CANCELLED", 50, 9);
  add("other_account", "acc_other", "ACTIVE", 10, 9);
  add("tie_second", "acc", "ACTIVE", 100, 1);
  auto r = PurchasePlacementTests(s, {"acc", "ws"}, {"MONTHLY", "t", {"mbx_a", "mbx_b", "mbx_c"}}, 1000);
  ASSERT_TRUE(r.ok());
  const PlacementCart& cart = s.placementCarts.back();
  ASSERT_EQ(cart.creditsUsed.size(), 3u);
  EXPECT_EQ(cart.creditsUsed[0].subscriptionId, "tie_first");
  EXPECT_EQ(cart.creditsUsed[1].subscriptionId, "tie_second");
  EXPECT_EQ(cart.creditsUsed[2].subscriptionId, "late");
  EXPECT_EQ(cart.creditsUsed[2].credits, 1);
  EXPECT_EQ(s.subscriptions.Find("late")->placementCredits, 4);
  EXPECT_EQ(s.subscriptions.Find("cancelled")->placementCredits, 9);
  EXPECT_EQ(s.subscriptions.Find("other_account")->placementCredits, 9);
  EXPECT_EQ(s.invoices.back().description, "3 placement test(s) \"t\", paid with MONTHLY credits");
  // The two that ended first are empty now: the next purchase takes only from the last one.
  ASSERT_TRUE(PurchasePlacementTests(s, {"acc", "ws"}, {"MONTHLY", "t", {"mbx_a", "mbx_b", "mbx_c"}}, 0).ok());
  ASSERT_EQ(s.placementCarts.back().creditsUsed.size(), 1u);
  EXPECT_EQ(s.placementCarts.back().creditsUsed[0].credits, 3);
  EXPECT_EQ(s.subscriptions.Find("late")->placementCredits, 1);
}

TEST(PlacementModel, ValidationFailuresChangeNothing) {
  State s = BillingWorld();
  const json before = DumpState(s);
  EXPECT_FALSE(PurchasePlacementTests(s, {"acc", "ws"}, {"WEEKLY", "t", {"mbx_a"}}, 0).ok());
  EXPECT_FALSE(PurchasePlacementTests(s, {"acc", "ws"}, {"ONE_TIME", "t", {}}, 0).ok());
  EXPECT_FALSE(PurchasePlacementTests(s, {"acc", "ws"}, {"ONE_TIME", "t", {"mbx_a", "nope"}}, 0).ok());
  EXPECT_FALSE(PurchasePlacementTests(s, {"acc", "other_ws"}, {"ONE_TIME", "t", {"mbx_a"}}, 0).ok());
  EXPECT_FALSE(PurchasePlacementTests(s, {"acc", "ws"}, {"MONTHLY", "t", {"mbx_a"}}, 0).ok());  // no credits
  EXPECT_EQ(DumpState(s), before);
}

TEST(PlacementModel, AJobForAVanishedCartDoesNothing) {
  State s = BillingWorld();
  AdvancePlacementTests(s, {{"cartOrderId", "gone"}, {"status", "RUNNING"}}, 0);
  EXPECT_TRUE(s.events.empty());
  EXPECT_TRUE(s.jobs.empty());
}

// The placement job writes its arguments' text itself (model/state.hpp JobArgs): it must be the
// text nlohmann makes, so dumps, loads and the runner see the same {cartOrderId, status} object.
TEST(PlacementModel, TheStepJobsArgumentsAreTheTextOfTheirObject) {
  State s = BillingWorld();
  auto r = PurchasePlacementTests(s, {"acc", "ws"}, {"ONE_TIME", "t", {"mbx_a"}}, 1000);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(s.jobs.size(), 1u);
  const json expected = {{"cartOrderId", r->cartOrderId}, {"status", "RUNNING"}};
  EXPECT_EQ(s.jobs.begin()->second.args.text(), expected.dump());
  const json dump = DumpState(s);
  EXPECT_EQ(dump["jobs"][0]["args"], expected);
  EXPECT_EQ(DumpState(LoadState(dump)), dump);
  EXPECT_EQ(LoadState(dump).jobs.begin()->second.args, s.jobs.begin()->second.args);

  // A cart id that needs escaping (a loaded state may hold any id) still makes valid arguments.
  PlacementCart cart;
  cart.id = "we\"ird\\id\n\xc3\xa9";
  cart.accountId = "acc";
  cart.workspaceId = "ws";
  cart.status = CartStatus::kAwaitingPayment;
  cart.checkoutSession = true;
  s.placementCarts.Insert(cart);
  ASSERT_TRUE(CompletePlacementCheckout(s, cart.id, 2000).ok());
  const Job& step = std::prev(s.jobs.end())->second;
  EXPECT_EQ(step.args.Parse(), (json{{"cartOrderId", cart.id}, {"status", "RUNNING"}}));
  EXPECT_EQ(step.args.text(), (json{{"cartOrderId", cart.id}, {"status", "RUNNING"}}).dump());
}

TEST(DnsShieldModel, PlansFollowPart8AndMatchCaseInsensitively) {
  ASSERT_EQ(ShieldPlans().size(), 3u);
  EXPECT_EQ(FindShieldPlan("starter")->priceDollars, 299);
  EXPECT_EQ(FindShieldPlan("GROWTH")->maxDomains, 100);
  EXPECT_EQ(FindShieldPlan("Pro")->priceDollars, 2999);
  EXPECT_EQ(FindShieldPlan("Pro")->maxDomains, 500);
  EXPECT_EQ(FindShieldPlan("enterprise"), nullptr);
}

}  // namespace
}  // namespace emsim::model
