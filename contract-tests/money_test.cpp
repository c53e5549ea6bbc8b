// Parts 4.6-4.8 and 8: subscriptions (list, cancel without status, upgrade answering {}),
// placement tests (placementType, 2 dollars per mailbox, wallet arithmetic) and DNS shield
// (slot sums, lifetime plan upgrade without envelope).
#include <algorithm>
#include <cctype>

#include "live.hpp"

namespace contract {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

json Subscriptions() {
  Reply r = Invoke("subscriptions.list");
  if (!ExpectOk(r) || !r.body["data"].is_array()) return json::array();
  return r.body["data"];
}

// Mailbox ids of the current workspace, up to n.
std::vector<std::string> MailboxIds(size_t n) {
  std::vector<std::string> ids;
  Reply r = Invoke("mailboxes.list");
  if (!ExpectOk(r)) return ids;
  for (const auto& g : r.body["data"].value("domains", json::array()))
    for (const auto& m : g.value("mailboxes", json::array()))
      if (ids.size() < n) ids.push_back(m.value("id", ""));
  return ids;
}

json Slots() {
  Reply r = Invoke("dns_shield.available_slots");
  if (!ExpectOk(r) || !r.body["data"].is_object()) return nullptr;
  return r.body["data"];
}

// ---- subscriptions (Part 4.6) -------------------------------------------------------------------

TEST(SubscriptionsList, ConformsToItsSchema) { ExpectOk(Invoke("subscriptions.list")); }

TEST(SubscriptionsList, AccountRecordsIgnoreTheWorkspaceHeader) {
  REQUIRE_EMSIM_GAP("subscriptions and DNS shield records belong to the account: x-workspace-key does not select them");
  Reply base = Invoke("subscriptions.list"), slots = Invoke("dns_shield.available_slots");
  if (!ExpectOk(base) || !ExpectOk(slots)) return;
  for (const auto& w : Workspaces()) {
    Args a;
    a.workspaceKey = w.value("id", "");
    Reply r = Invoke("subscriptions.list", a), s = Invoke("dns_shield.available_slots", a);
    if (ExpectOk(r) && r.body["data"] != base.body["data"])
      Violation("subscriptions.list", "/data", "must not depend on x-workspace-key, differs under " + a.workspaceKey.value());
    if (ExpectOk(s) && s.body["data"] != slots.body["data"])
      Violation("dns_shield.available_slots", "/data", "must not depend on x-workspace-key, differs under " + a.workspaceKey.value());
  }
}

TEST(SubscriptionsList, PeriodsRunForward) {
  const json subs = Subscriptions();
  for (size_t i = 0; i < subs.size(); ++i) {
    const std::string start = subs[i].value("periodStart", ""), end = subs[i].value("periodEnd", "");
    // ISO 8601 UTC with milliseconds sorts as text.
    if (IsIsoMillisUtc(start) && IsIsoMillisUtc(end) && end < start)
      Violation("subscriptions.list", "/data/" + std::to_string(i) + "/periodEnd", "must not be before periodStart (" + start + "), got " + end);
  }
}

// A plan key to upgrade `sub` to: --upgrade-plan-key, or on emsim another plan from its state.
std::string PlanKeyFor(const json& sub) {
  if (!Cfg().upgradePlanKey.empty()) return Cfg().upgradePlanKey;
  if (!Cfg().isEmsim) return "";
  const json state = SimState();
  std::string current;
  for (const auto& s : state.value("subscriptions", json::array()))
    if (s.value("subscriptionId", "") == sub.value("subscriptionId", "")) current = s.value("planKey", "");
  for (const auto& p : state.value("plans", json::array()))
    if (p.value("key", "") != current && p.value("plan", "") != sub.value("plan", "")) return p.value("key", "");
  return "";
}

TEST(SubscriptionsUpgrade, AnswersAnEmptyObject) {
  REQUIRE_EFFECT("subscriptions.upgrade");
  json target;
  for (const auto& s : Subscriptions())
    if (!target.is_object() && s.value("subscriptionStatus", "") == "ACTIVE") target = s;
  if (!target.is_object()) GTEST_SKIP() << "subscriptions.list shows no ACTIVE subscription to upgrade";
  const std::string key = PlanKeyFor(target);
  if (key.empty()) GTEST_SKIP() << "no plan key to upgrade to: pass --upgrade-plan-key (no operation lists plans)";
  Args a;
  a.body = json{{"uniquePlanKey", key}, {"subscriptionId", target["subscriptionId"]}};
  Reply r = Invoke("subscriptions.upgrade", a);
  if (!ExpectOk(r)) return;
  // Part 4.6: "200: body is an empty object".
  if (!r.body.is_object() || !r.body.empty()) Violation("subscriptions.upgrade", "/", "must be an empty object (Part 4.6), got " + r.body.dump());
  if (Cfg().isEmsim)
    for (const auto& s : Subscriptions())
      if (s.value("subscriptionId", "") == target["subscriptionId"] && s.value("plan", "") == target.value("plan", ""))
        Violation("subscriptions.list", "plan of " + target["subscriptionId"].get<std::string>(), "must change after an upgrade to " + key);
}

TEST(SubscriptionsUpgrade, SubscriptionIdIsRequired) {
  REQUIRE_EFFECT("subscriptions.upgrade");
  CheckRequiredFields("subscriptions.upgrade", {{"uniquePlanKey", "contract-suite-none"}, {"subscriptionId", "contract-suite-none"}},
                      {"subscriptionId"});
}

TEST(SubscriptionsUpgrade, LookupKeyIsAcceptedAndBothMustAgree) {
  REQUIRE_EMSIM_GAP("lookupKey is accepted as uniquePlanKey; both present and different: 400 naming lookupKey");
  json target;
  for (const auto& s : Subscriptions())
    if (!target.is_object() && s.value("subscriptionStatus", "") == "ACTIVE") target = s;
  ASSERT_TRUE(target.is_object());
  const std::string key = PlanKeyFor(target);
  ASSERT_NE(key, "");
  Args both;
  both.body = json{{"uniquePlanKey", key}, {"lookupKey", key + "-other"}, {"subscriptionId", target["subscriptionId"]}};
  ExpectError(Invoke("subscriptions.upgrade", both), 400, "lookupKey");
  Args lookup;
  lookup.body = json{{"lookupKey", key}, {"subscriptionId", target["subscriptionId"]}};
  ExpectOk(Invoke("subscriptions.upgrade", lookup));
}

// ---- placement tests (Part 4.7) -----------------------------------------------------------------

TEST(PlacementTests, PlacementTypeMustBeMonthlyOrOneTime) {
  REQUIRE_EFFECT("placement_tests.purchase");
  const auto ids = MailboxIds(1);
  if (ids.empty()) GTEST_SKIP() << "the workspace has no mailbox";
  const json valid = {{"placementType", "ONE_TIME"}, {"testName", "contract suite"}, {"mailboxIds", ids}};
  // Part 7: "When placementType is neither MONTHLY nor ONE_TIME, then 400 with an entry whose
  // param is placementType."
  for (const json& bad : {json("WEEKLY"), json("one_time"), json(""), json(1)}) {
    Args a;
    a.body = valid;
    (*a.body)["placementType"] = bad;
    ExpectError(Invoke("placement_tests.purchase", a), 400, "placementType");
  }
  // Part 4.7: all three body fields are required.
  CheckRequiredFields("placement_tests.purchase", valid, {"placementType", "testName", "mailboxIds"}, {{"mailboxIds", "not-a-list"}});
}

TEST(PlacementTests, OneTimeCostsTwoDollarsPerMailboxFromTheWallet) {
  REQUIRE_EFFECT("placement_tests.purchase");
  const auto ids = MailboxIds(2);
  if (ids.empty()) GTEST_SKIP() << "the workspace has no mailbox";
  const long wallet_before = Cfg().isEmsim ? WalletDollars() : -1;
  Args a;
  a.body = json{{"placementType", "ONE_TIME"}, {"testName", "contract suite one-time"}, {"mailboxIds", ids}};
  Reply r = Invoke("placement_tests.purchase", a);
  if (!ExpectOk(r)) return;
  const json& d = r.body["data"];
  const std::string op = "placement_tests.purchase";
  const long count = static_cast<long>(ids.size());
  if (d.value("mailboxCount", -1L) != count) Violation(op, "/data/mailboxCount", "must be the number of mailboxes sent (" + std::to_string(count) + ")");
  // Part 4.7 / Part 8: ONE_TIME is 2 dollars per mailbox.
  if (d.value("totalCost", -1L) != 2 * count)
    Violation(op, "/data/totalCost", "must be 2 dollars per mailbox (Part 8): " + std::to_string(2 * count) + ", got " + d.value("totalCost", json()).dump());
  if (d.value("placementType", "") != "ONE_TIME") Violation(op, "/data/placementType", "must echo ONE_TIME");
  if (d.value("testName", "") != "contract suite one-time") Violation(op, "/data/testName", "must echo the testName sent");
  if (d.value("testOrders", json::array()).size() != ids.size())
    Violation(op, "/data/testOrders", "must hold one order per mailbox (" + std::to_string(count) + ")");
  const json& w = d.value("walletBalance", json::object());
  const long prev = w.value("previousBalance", 0L), deducted = w.value("amountDeducted", 0L), cur = w.value("currentBalance", 0L);
  if (prev - deducted != cur)
    Violation(op, "/data/walletBalance", "must keep previousBalance - amountDeducted = currentBalance, got " + w.dump());
  if (d.value("walletUsed", false)) {
    if (deducted != d.value("totalCost", -1L)) Violation(op, "/data/walletBalance/amountDeducted", "must equal totalCost when walletUsed is true");
    if (d.value("checkoutSession", true)) Violation(op, "/data/checkoutSession", "must be false when the wallet paid");
  } else {
    if (deducted != 0) Violation(op, "/data/walletBalance/amountDeducted", "must be 0 when walletUsed is false");
    if (d.value("checkoutUrl", "").empty()) Violation(op, "/data/checkoutUrl", "must be a link to pay when the wallet did not");
  }
  if (Cfg().isEmsim && wallet_before >= 0) {
    const long wallet_after = WalletDollars();
    if (wallet_before - wallet_after != deducted)
      Violation(op, "/data/walletBalance/amountDeducted", "must be what left the wallet (" + std::to_string(wallet_before - wallet_after) + ")");
    if (!IsIsoMillisUtc(d.value("estimatedCompletionTime", "")))
      Violation(op, "/data/estimatedCompletionTime", "must be an ISO 8601 UTC timestamp (emsim)");
  }
}

TEST(PlacementTests, MonthlyUsesCreditsWithNoCharge) {
  REQUIRE_EFFECT("placement_tests.purchase");
  const auto ids = MailboxIds(1);
  if (ids.empty()) GTEST_SKIP() << "the workspace has no mailbox";
  Args a;
  a.body = json{{"placementType", "MONTHLY"}, {"testName", "contract suite monthly"}, {"mailboxIds", ids}};
  Reply r = Invoke("placement_tests.purchase", a);
  if (r.status == 400 && !Cfg().isEmsim) {
    ExpectError(r, 400);
    GTEST_SKIP() << "MONTHLY was refused (no credits on this account?): " << r.Brief();
  }
  if (!ExpectOk(r)) return;
  const json& w = r.body["data"].value("walletBalance", json::object());
  // Part 4.7: MONTHLY uses credits of active subscriptions with no extra charge.
  if (w.value("amountDeducted", -1L) != 0) Violation("placement_tests.purchase", "/data/walletBalance/amountDeducted", "must be 0 for MONTHLY (Part 4.7)");
  if (r.body["data"].value("walletUsed", true)) Violation("placement_tests.purchase", "/data/walletUsed", "must be false for MONTHLY (Part 4.7)");
}

TEST(PlacementTests, WalletTooSmallGivesACheckoutAndTakesNothing) {
  REQUIRE_EMSIM("the wallet is set through /_sim/wallet");
  const auto ids = MailboxIds(2);
  ASSERT_FALSE(ids.empty());
  const long before = WalletDollars();
  SetWalletDollars(1);
  Args a;
  a.body = json{{"placementType", "ONE_TIME"}, {"testName", "contract suite checkout"}, {"mailboxIds", ids}};
  Reply r = Invoke("placement_tests.purchase", a);
  if (ExpectOk(r)) {
    const json& d = r.body["data"];
    if (!d.value("checkoutSession", false)) Violation("placement_tests.purchase", "/data/checkoutSession", "must be true when the wallet cannot pay");
    if (d.value("walletUsed", true)) Violation("placement_tests.purchase", "/data/walletUsed", "must be false when the wallet cannot pay");
    if (WalletDollars() != 1) Violation("placement_tests.purchase", "wallet", "must be untouched when the wallet cannot pay");
  }
  SetWalletDollars(before);
}

// ---- DNS shield (Part 4.8, Part 8) ----------------------------------------------------------------

TEST(DnsShieldSlots, SlotsAddUp) {
  const json d = Slots();
  if (!d.is_object()) return;
  long sum = 0;
  const json& subs = d.value("subscriptions", json::array());
  for (size_t i = 0; i < subs.size(); ++i) {
    const long total = subs[i].value("totalSlots", 0L), used = subs[i].value("totalUsedSlots", 0L), avail = subs[i].value("availableSlots", 0L);
    // Part 2: availableSlots = totalSlots - totalUsedSlots.
    if (avail != total - used)
      Violation("dns_shield.available_slots", "/data/subscriptions/" + std::to_string(i) + "/availableSlots",
                "must be totalSlots - totalUsedSlots (Part 2): " + std::to_string(total - used) + ", got " + std::to_string(avail));
    sum += avail;
  }
  // Part 4.8: totalAvailableSlots is the sum of the per-subscription availableSlots.
  if (d.value("totalAvailableSlots", -1L) != sum)
    Violation("dns_shield.available_slots", "/data/totalAvailableSlots",
              "must be the sum of availableSlots (Part 4.8): " + std::to_string(sum) + ", got " + d.value("totalAvailableSlots", json()).dump());
}

TEST(DnsShieldUpgrade, AnswersMessageAndInvoiceUrlNamingBothPlans) {
  REQUIRE_EFFECT("dns_shield.upgrade_plan");
  const json d = Slots();
  if (!d.is_object()) return;
  json target;
  for (const auto& s : d.value("subscriptions", json::array()))
    if (!target.is_object() && s.value("planType", "") == "STARTER") target = s;
  if (!target.is_object()) GTEST_SKIP() << "no STARTER DNS shield subscription to upgrade";
  Args a;
  a.body = json{{"subscriptionId", target["id"]}, {"newPlanName", "growth"}};
  Reply r = Invoke("dns_shield.upgrade_plan", a);
  if (!ExpectOk(r)) return;
  // Part 4.8: the message states the old and new plan names.
  const std::string msg = Lower(r.body.value("message", ""));
  if (msg.find("starter") == std::string::npos || msg.find("growth") == std::string::npos)
    Violation("dns_shield.upgrade_plan", "/message", "must state the old and new plan names (Part 4.8), got \"" + r.body.value("message", "") + "\"");
  const json after = Slots();
  if (!after.is_object()) return;
  for (const auto& s : after.value("subscriptions", json::array())) {
    if (s.value("id", "") != target["id"]) continue;
    if (s.value("planType", "") != "GROWTH") Violation("dns_shield.available_slots", "planType of " + s.value("id", ""), "must be GROWTH after the upgrade");
    // Part 8: Growth protects up to 100 domains.
    if (s.value("totalSlots", 0L) != 100) Violation("dns_shield.available_slots", "totalSlots of " + s.value("id", ""), "must be 100 on Growth (Part 8)");
  }
}

TEST(DnsShieldUpgrade, BothFieldsAreRequired) {
  REQUIRE_EFFECT("dns_shield.upgrade_plan");
  CheckRequiredFields("dns_shield.upgrade_plan", {{"subscriptionId", "contract-suite-none"}, {"newPlanName", "growth"}},
                      {"subscriptionId", "newPlanName"}, {{"newPlanName", 3}});
}

TEST(DnsShieldUpgrade, NewPlanNameMustBeAPlan) {
  REQUIRE_EFFECT("dns_shield.upgrade_plan");
  const json d = Slots();
  if (!d.is_object() || d.value("subscriptions", json::array()).empty()) GTEST_SKIP() << "no DNS shield subscription";
  // Part 4.8: newPlanName is starter, growth or pro.
  Args a;
  a.body = json{{"subscriptionId", d["subscriptions"][0]["id"]}, {"newPlanName", "platinum"}};
  ExpectError(Invoke("dns_shield.upgrade_plan", a), 400, "newPlanName");
}

TEST(DnsShieldUpgrade, UnknownSubscriptionIs404) {
  // Part 4.8 lists 404 (its condition is not shown; an unknown subscription is the one case).
  REQUIRE_EFFECT("dns_shield.upgrade_plan");
  Args a;
  a.body = json{{"subscriptionId", "contract-suite-no-such-subscription"}, {"newPlanName", "growth"}};
  ExpectError(Invoke("dns_shield.upgrade_plan", a), 404);
}

// ---- cancel last: on emsim it ends the account's ACTIVE subscription the tests above use --------

TEST(SubscriptionsCancel, AnswersMessageAndNullDataAndTheSubscriptionIsCancelled) {
  REQUIRE_EFFECT("subscriptions.cancel");
  json target;
  for (const auto& s : Subscriptions())
    if (s.value("subscriptionStatus", "") == "ACTIVE" && s.value("planUpgradeCancelPossible", false)) target = s;
  if (!target.is_object()) GTEST_SKIP() << "subscriptions.list shows no ACTIVE subscription that may be cancelled";
  Args a;
  a.body = json{{"subscriptionId", target["subscriptionId"]}};
  Reply r = Invoke("subscriptions.cancel", a);
  if (!ExpectOk(r)) return;  // ExpectOk also holds the answer to {message, data} with no status
  if (!r.body.value("data", json(1)).is_null()) Violation("subscriptions.cancel", "/data", "must be null (Part 4.6)");
  for (const auto& s : Subscriptions())
    if (s.value("subscriptionId", "") == target["subscriptionId"] && s.value("subscriptionStatus", "") != "CANCELLED")
      Violation("subscriptions.list", "subscriptionStatus of " + target["subscriptionId"].get<std::string>(),
                "must be CANCELLED after subscriptions.cancel, got " + s.value("subscriptionStatus", ""));
}

TEST(SubscriptionsCancel, SubscriptionIdIsRequired) {
  REQUIRE_EFFECT("subscriptions.cancel");
  CheckRequiredFields("subscriptions.cancel", {{"subscriptionId", "contract-suite-none"}}, {"subscriptionId"}, {{"subscriptionId", 5}});
}

TEST(SubscriptionsCancel, UnknownSubscriptionIs404) {
  REQUIRE_EMSIM_GAP("an unknown subscription id answers 404");
  Args a;
  a.body = json{{"subscriptionId", "contract-suite-no-such-subscription"}};
  ExpectError(Invoke("subscriptions.cancel", a), 404);
}

}  // namespace
}  // namespace contract
