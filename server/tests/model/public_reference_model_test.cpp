// Model tests of the operations taken from the public reference, not the spec (Part 4.11 names
// them only): wallet top-up and auto recharge, workspaces, user details, mailbox assign / update /
// scheduled removal, removing unused domains. No sockets.
#include <gtest/gtest.h>

#include "model/checkouts.hpp"
#include "model/domains.hpp"
#include "model/mailboxes.hpp"
#include "model/users.hpp"
#include "model/wallet.hpp"
#include "model/workspaces.hpp"

namespace emsim::model {
namespace {

constexpr Millis kRefNow = 1767258000000;  // 2026-01-01T09:00:00Z

// One account with a workspace, an ACTIVE domain holding two mailboxes, an empty domain, a
// subscription of 4 mailbox slots, and a second account with a workspace and a domain.
State ReferenceWorld() {
  State s;
  s.ids = IdGenerator(11);
  for (const char* id : {"acc", "other"}) {
    Account a;
    a.id = id;
    a.apiKey = std::string("key_") + id;
    a.user = {std::string("usr_") + id, std::string(id) + "@example.com", "Ann", "Lee"};
    a.walletCents = 5000;
    s.AddAccount(a);
    Workspace w;
    w.id = std::string("ws_") + id;
    w.accountId = id;
    w.name = std::string("Main ") + id;
    w.isDefault = true;
    w.createdAt = kRefNow - 1000;
    s.workspaces.Insert(w);
  }
  for (const auto& [id, ws, name] : {std::tuple{"dom", "ws_acc", "example.com"}, std::tuple{"dom_empty", "ws_acc", "empty.com"},
                                     std::tuple{"dom_other", "ws_other", "other.com"}}) {
    Domain d;
    d.id = id;
    d.accountId = std::string(ws).substr(3);
    d.workspaceId = ws;
    d.domain = name;
    d.status = DomainStatus::kActive;
    s.AddDomain(d);
  }
  for (const char* name : {"ann", "bob"}) {
    Mailbox m;
    m.id = std::string("mbx_") + name;
    m.accountId = "acc";
    m.workspaceId = "ws_acc";
    m.domainId = "dom";
    m.username = name;
    m.firstName = "F";
    m.lastName = "L";
    s.AddMailbox(m);
  }
  Subscription sub;
  sub.id = "sub";
  sub.accountId = "acc";
  sub.plan = "GROWTH";
  sub.totalMailboxQuantity = 4;
  sub.periodEnd = kRefNow + 10 * kDay;
  s.subscriptions.Insert(sub);
  return s;
}

const Caller kAcc{"acc", "ws_acc"};

TEST(PublicReferenceModel, AWalletTopUpCreditsNothingUntilItsCheckoutIsCompletedOnce) {
  State s = ReferenceWorld();
  auto c = OpenWalletTopUp(s, kAcc, 12345, kRefNow);
  ASSERT_TRUE(c) << c.error().message;
  const std::string id = (*c)->id;
  EXPECT_EQ((*c)->purpose, kCheckoutForWallet);
  EXPECT_EQ(s.accounts.Find("acc")->walletCents, 5000);
  EXPECT_TRUE(s.walletMovements.empty());

  auto done = CompleteDomainCheckout(s, id, kRefNow + 1);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(s.accounts.Find("acc")->walletCents, 17345);
  ASSERT_EQ(s.walletMovements.size(), 1u);
  EXPECT_EQ(s.walletMovements.back().reason, "wallet_topup");
  EXPECT_EQ(s.walletMovements.back().reference, id);
  EXPECT_EQ(s.walletMovements.back().balanceCents, 17345);
  EXPECT_EQ(s.domains.size(), 3u);  // a top-up buys no domain

  EXPECT_FALSE(CompleteDomainCheckout(s, id, kRefNow + 2));  // paid once
  EXPECT_EQ(s.accounts.Find("acc")->walletCents, 17345);
}

TEST(PublicReferenceModel, TopUpAmountsOutsideTheLimitsAreRefused) {
  State s = ReferenceWorld();
  for (Cents bad : {Cents{0}, Cents{-5}, kMaxTopUpCents + 1}) {
    auto c = OpenWalletTopUp(s, kAcc, bad, kRefNow);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().errors.at(0).param, "amount");
  }
  EXPECT_TRUE(s.checkouts.empty());
}

TEST(PublicReferenceModel, AutoRechargeStoresItsSettingsAndADebitBelowTheThresholdSchedulesTheRecharge) {
  State s = ReferenceWorld();
  Account& a = *s.accounts.Edit("acc");
  ASSERT_TRUE(SetAutoRecharge(s, kAcc, {true, Cents{3000}, Cents{10000}}, kRefNow));
  EXPECT_TRUE(a.autoRecharge.enabled);
  EXPECT_EQ(a.autoRecharge.thresholdCents, 3000);
  EXPECT_EQ(a.autoRecharge.amountCents, 10000);
  EXPECT_TRUE(s.jobs.empty());  // $50 is not below $30

  ASSERT_TRUE(TryDebitWallet(s, a, 2500, "placement_tests", kRefNow));
  EXPECT_EQ(a.walletCents, 2500);  // the debit answers its own balance; the recharge is a job
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs.begin()->second.kind, kAutoRechargeJob);
  EXPECT_EQ(s.jobs.begin()->second.dueMs, kRefNow);

  RunAutoRecharge(s, "acc", kRefNow);
  EXPECT_EQ(a.walletCents, 12500);
  EXPECT_EQ(s.walletMovements.back().reason, "auto_recharge");
  EXPECT_EQ(s.walletMovements.back().amountCents, 10000);
  RunAutoRecharge(s, "acc", kRefNow);  // a second run finds the wallet above the threshold
  EXPECT_EQ(a.walletCents, 12500);

  // Disabled: absent values keep what was stored, and no debit recharges.
  ASSERT_TRUE(SetAutoRecharge(s, kAcc, {false, std::nullopt, std::nullopt}, kRefNow));
  EXPECT_EQ(a.autoRecharge.thresholdCents, 3000);
  s.jobs.clear();
  ASSERT_TRUE(TryDebitWallet(s, a, 12000, "placement_tests", kRefNow));
  EXPECT_TRUE(s.jobs.empty());
  auto bad = SetAutoRecharge(s, kAcc, {true, Cents{-1}, std::nullopt}, kRefNow);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().errors.at(0).param, "threshold");
  EXPECT_FALSE(a.autoRecharge.enabled);
}

TEST(PublicReferenceModel, NewWalletFieldsSurviveADumpAndAnOldDumpLoadsWithTheDefaults) {
  State s = ReferenceWorld();
  ASSERT_TRUE(SetAutoRecharge(s, kAcc, {true, Cents{2500}, std::nullopt}, kRefNow));
  auto c = OpenWalletTopUp(s, kAcc, 700, kRefNow);
  ASSERT_TRUE(c);
  s.mailboxes.Edit("mbx_ann")->removeOnNextRenewal = true;
  State loaded = LoadState(DumpState(s));
  EXPECT_EQ(DumpState(loaded), DumpState(s));
  EXPECT_TRUE(loaded.accounts.Find("acc")->autoRecharge.enabled);
  EXPECT_EQ(loaded.accounts.Find("acc")->autoRecharge.thresholdCents, 2500);
  EXPECT_EQ(loaded.checkouts.Find((*c)->id)->purpose, kCheckoutForWallet);
  EXPECT_TRUE(loaded.mailboxes.Find("mbx_ann")->removeOnNextRenewal);

  // Untouched records dump without the new fields, so older documents compare equal.
  const json dump = DumpState(ReferenceWorld());
  EXPECT_FALSE(dump["accounts"][0].contains("autoRecharge"));
  EXPECT_FALSE(dump["mailboxes"][0].contains("removeOnNextRenewal"));
  json bad = DumpState(s);
  bad["checkouts"][0]["purpose"] = "gift";
  EXPECT_THROW(LoadState(bad), std::invalid_argument);
}

TEST(PublicReferenceModel, WorkspacesAreCreatedAndRenamedWithUniqueNamesPerAccount) {
  State s = ReferenceWorld();
  auto w = CreateWorkspace(s, kAcc, "  Outbound  ", kRefNow);
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ((*w)->name, "Outbound");
  EXPECT_EQ((*w)->accountId, "acc");
  EXPECT_FALSE((*w)->isDefault);
  const std::string id = (*w)->id;
  EXPECT_EQ(ListWorkspaces(s, kAcc).size(), 2u);

  auto dup = CreateWorkspace(s, kAcc, "outbound", kRefNow);
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().errors.at(0).param, "name");
  EXPECT_TRUE(CreateWorkspace(s, {"other", "ws_other"}, "Outbound", kRefNow));  // another account may
  EXPECT_FALSE(CreateWorkspace(s, kAcc, "   ", kRefNow));

  ASSERT_TRUE(RenameWorkspace(s, kAcc, id, "Renamed"));
  EXPECT_EQ(s.workspaces.Find(id)->name, "Renamed");
  EXPECT_TRUE(RenameWorkspace(s, kAcc, id, "renamed"));  // its own name, other case
  EXPECT_FALSE(RenameWorkspace(s, kAcc, id, "Main acc"));
  EXPECT_EQ(RenameWorkspace(s, kAcc, "ws_other", "X").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(RenameWorkspace(s, kAcc, "ws_nope", "X").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(s.workspaces.Find("ws_other")->name, "Main other");

  BillingInput billing;
  billing.workspaceId = "ws_other";  // ignored: the details go on the new workspace
  billing.company = "Acme";
  auto billed = CreateWorkspace(s, kAcc, "Billed", kRefNow, &billing);
  ASSERT_TRUE(billed) << billed.error().message;
  ASSERT_TRUE((*billed)->billingDetails);
  EXPECT_EQ((*billed)->billingDetails->company, "Acme");
  EXPECT_EQ((*billed)->billingDetails->workspaceId, (*billed)->id);
  EXPECT_EQ((*billed)->billingDetails->userId, "usr_acc");
  EXPECT_FALSE(s.workspaces.Find("ws_other")->billingDetails);
}

TEST(PublicReferenceModel, UserDetailsComeFromTheAccountRecord) {
  State s = ReferenceWorld();
  auto v = UserDetails(s, kAcc);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->account->user.email, "acc@example.com");
  EXPECT_EQ(v->activePlan, "GROWTH");
  EXPECT_EQ(v->planEndsOn, kRefNow + 10 * kDay);
  EXPECT_EQ(v->purchasedMailboxes, 4);
  EXPECT_EQ(v->assignedMailboxes, 2);
  EXPECT_EQ(v->userCreatedAt, kRefNow - 1000);
  auto other = UserDetails(s, {"other", "ws_other"});
  EXPECT_EQ(other->activePlan, std::nullopt);
  EXPECT_EQ(other->purchasedMailboxes, 0);
}

TEST(PublicReferenceModel, UsernameRulesFollowTheReference) {
  for (const char* ok : {"a", "ann.lee", "a_b-c", "A1"}) EXPECT_TRUE(ValidMailboxUsername(ok)) << ok;
  for (const char* bad : {"", ".ann", "ann.", "a..b", "a._b", "ann lee", "ann@x", "é"}) EXPECT_FALSE(ValidMailboxUsername(bad)) << bad;
  EXPECT_FALSE(ValidMailboxUsername(std::string(65, 'a')));
}

TEST(PublicReferenceModel, AssignCreatesInProgressMailboxesThatAJobActivatesAllOrNothing) {
  State s = ReferenceWorld();
  auto bad_name = AssignMailboxes(s, kAcc, {{"dom", {{"C", "D", "carl", "example.com"}, {"E", "F", "Ann", "example.com"}}}}, kRefNow);
  ASSERT_FALSE(bad_name);
  EXPECT_EQ(bad_name.error().errors.at(0).param, "dom[1].mailboxUsername");
  EXPECT_EQ(AssignMailboxes(s, kAcc, {{"dom_other", {{"C", "D", "carl", "other.com"}}}}, kRefNow).error().code,
            ErrorCode::kNotFound);
  EXPECT_EQ(AssignMailboxes(s, kAcc, {{"dom", {{"C", "D", "carl", "empty.com"}}}}, kRefNow).error().errors.at(0).param,
            "dom[0].domainName");
  EXPECT_EQ(AssignMailboxes(s, kAcc, {{"dom", {{"C", "D", "x", "example.com"}, {"C", "D", "X", "example.com"}}}}, kRefNow)
                .error().errors.at(0).param,
            "dom[1].mailboxUsername");
  // 4 slots, 2 used: three more do not fit.
  auto full = AssignMailboxes(s, kAcc, {{"dom_empty", {{"A", "B", "a", "empty.com"}, {"A", "B", "b", "empty.com"}, {"A", "B", "c", "empty.com"}}}}, kRefNow);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().errors.at(0).param, "body");
  EXPECT_EQ(s.mailboxes.size(), 2u);
  EXPECT_TRUE(s.jobs.empty());

  auto made = AssignMailboxes(s, kAcc, {{"dom_empty", {{"Carl", "Diaz", "carl", "EMPTY.com"}}}, {"dom", {{"E", "F", "eve", "example.com"}}}}, kRefNow);
  ASSERT_TRUE(made) << made.error().message;
  ASSERT_EQ(made->size(), 2u);
  const Mailbox* carl = s.mailboxes.Find(made->at(0));
  EXPECT_EQ(carl->status, MailboxStatus::kInProgress);
  EXPECT_EQ(carl->domainId, "dom_empty");
  EXPECT_EQ(MailboxAddress(s, *carl), "carl@empty.com");
  EXPECT_EQ(IndexProblems(s), "");
  ASSERT_EQ(s.jobs.size(), 1u);
  const Job job = s.jobs.begin()->second;
  EXPECT_EQ(job.kind, kMailboxActivateJob);
  EXPECT_EQ(job.dueMs, kRefNow + 300 * kSecond);
  ActivateAssignedMailboxes(s, job.args.Parse(), job.dueMs);
  EXPECT_EQ(s.mailboxes.Find(made->at(0))->status, MailboxStatus::kActive);
  EXPECT_EQ(s.mailboxes.Find(made->at(1))->status, MailboxStatus::kActive);
  EXPECT_EQ(s.activeMailboxesByWorkspace["ws_acc"], 4);
  EXPECT_EQ(IndexProblems(s), "");
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events.back().type, "mailbox.updated");
  EXPECT_EQ(s.events.back().data.Parse()["previousState"], json({{"status", "IN_PROGRESS"}}));
}

TEST(PublicReferenceModel, UpdateChangesNamesAllOrNothingAndEmitsMailboxUpdated) {
  State s = ReferenceWorld();
  // Swapping two usernames in one request is allowed; taking a name kept by another is not.
  auto taken = UpdateMailboxes(s, kAcc, {{"mbx_ann", "Ann", "Lee", "bob", std::nullopt, false}}, kRefNow);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().errors.at(0).param, "mailboxData[0].username");
  EXPECT_EQ(UpdateMailboxes(s, kAcc, {{"mbx_nope", "A", "B", "c", std::nullopt, false}}, kRefNow).error().code,
            ErrorCode::kNotFound);
  EXPECT_EQ(UpdateMailboxes(s, kAcc, {{"mbx_ann", "A", "B", "ok", std::nullopt, false}, {"mbx_bob", "A", "B", "..", std::nullopt, false}}, kRefNow)
                .error().errors.at(0).param,
            "mailboxData[1].username");
  EXPECT_EQ(s.mailboxes.Find("mbx_ann")->username, "ann");
  EXPECT_TRUE(s.events.empty());

  ASSERT_TRUE(UpdateMailboxes(s, kAcc, {{"mbx_ann", "Ann", "Lee", "bob", std::string("https://x/p.png"), false},
                                        {"mbx_bob", "F", "L", "ann", std::nullopt, false}}, kRefNow));
  EXPECT_EQ(s.mailboxes.Find("mbx_ann")->username, "bob");
  EXPECT_EQ(s.mailboxes.Find("mbx_ann")->profilePicture, "https://x/p.png");
  EXPECT_EQ(s.mailboxes.Find("mbx_bob")->username, "ann");
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].data.Parse()["previousState"]["username"], "ann");
  EXPECT_EQ(s.events[0].data.Parse()["previousState"]["firstName"], "F");
  // No change, no event; removeProfilePicture clears it.
  ASSERT_TRUE(UpdateMailboxes(s, kAcc, {{"mbx_bob", "F", "L", "ann", std::nullopt, false}}, kRefNow));
  EXPECT_EQ(s.events.size(), 2u);
  ASSERT_TRUE(UpdateMailboxes(s, kAcc, {{"mbx_ann", "Ann", "Lee", "bob", std::nullopt, true}}, kRefNow));
  EXPECT_EQ(s.mailboxes.Find("mbx_ann")->profilePicture, std::nullopt);
  EXPECT_EQ(IndexProblems(s), "");
  // Usernames are looked up in an index (State::mailboxesByName) that follows renames: "ann",
  // now mbx_bob's, is taken in any case, and free again once mbx_bob is renamed.
  const std::string dom = s.mailboxes.Find("mbx_bob")->domainId;
  const std::string dom_name = s.domains.Find(dom)->domain;
  EXPECT_FALSE(AssignMailboxes(s, kAcc, {{dom, {{"A", "B", "ANN", dom_name}}}}, kRefNow));
  ASSERT_TRUE(UpdateMailboxes(s, kAcc, {{"mbx_bob", "F", "L", "zed", std::nullopt, false}}, kRefNow));
  auto again = AssignMailboxes(s, kAcc, {{dom, {{"A", "B", "ANN", dom_name}}}}, kRefNow);
  EXPECT_TRUE(again) << again.error().message;
  EXPECT_EQ(IndexProblems(s), "");
}

TEST(PublicReferenceModel, ScheduledRemovalMarksAndUnmarksMailboxes) {
  State s = ReferenceWorld();
  EXPECT_EQ(ScheduleMailboxRemoval(s, kAcc, {"mbx_ann", "mbx_gone"}, true, kRefNow).error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(s.mailboxes.Find("mbx_ann")->removeOnNextRenewal);
  EXPECT_EQ(*ScheduleMailboxRemoval(s, kAcc, {"mbx_ann"}, true, kRefNow), 1);
  EXPECT_TRUE(s.mailboxes.Find("mbx_ann")->removeOnNextRenewal);
  EXPECT_EQ(s.events.back().data.Parse()["previousState"], json({{"removeOnNextRenewal", false}}));
  EXPECT_EQ(*ScheduleMailboxRemoval(s, kAcc, {}, true, kRefNow), 1);  // empty: every ACTIVE one; ann already was
  EXPECT_TRUE(s.mailboxes.Find("mbx_bob")->removeOnNextRenewal);
  EXPECT_EQ(*ScheduleMailboxRemoval(s, kAcc, {"mbx_ann", "mbx_ann"}, false, kRefNow), 1);
  EXPECT_FALSE(s.mailboxes.Find("mbx_ann")->removeOnNextRenewal);
}

TEST(PublicReferenceModel, OnlyDomainsWithoutMailboxesOfTheWorkspaceAreRemoved) {
  State s = ReferenceWorld();
  EXPECT_EQ(RemoveUnusedDomains(s, kAcc, {"dom_empty", "dom"}).error().errors.at(0).param, "ids");
  EXPECT_EQ(RemoveUnusedDomains(s, kAcc, {"dom_empty", "dom_other"}).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(s.domains.size(), 3u);
  auto done = RemoveUnusedDomains(s, kAcc, {"dom_empty", "dom_empty"});
  ASSERT_TRUE(done);
  EXPECT_EQ(*done, std::vector<std::string>{"dom_empty"});
  EXPECT_FALSE(s.domains.Contains("dom_empty"));
  EXPECT_EQ(IndexProblems(s), "");
}

}  // namespace
}  // namespace emsim::model
