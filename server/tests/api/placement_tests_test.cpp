// Part 4.7 placement tests over HTTP: MONTHLY credits, ONE_TIME wallet payments, the checkout
// when the wallet is too small, test orders moving on the scheduler, and wallet atomicity
// under concurrent requests.
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "tests/support/billing_test_util.hpp"

namespace emsim::testing {
namespace {

const char* kPurchase = "/v2/placement-tests/purchase";

json Buy(const std::string& type, std::vector<std::string> mailbox_ids, const std::string& name = "Q1 inbox check") {
  return {{"placementType", type}, {"testName", name}, {"mailboxIds", mailbox_ids}};
}

// Order statuses by orderId, straight from the state.
std::map<std::string, std::string> OrderStatuses(TestServer& server) {
  return server.svc().store.Read([](const model::State& s) {
    std::map<std::string, std::string> out;
    for (const auto& t : s.placementTests) out[t.id] = core::NameOf(t.status);
    return out;
  });
}

std::int64_t Credits(TestServer& server, const std::string& record_id) {
  return server.svc().store.Read([&](const model::State& s) { return s.subscriptions.Find(record_id)->placementCredits; });
}

size_t CartCount(TestServer& server) {
  return server.svc().store.Read([](const model::State& s) { return s.placementCarts.size(); });
}

// Path part of an emsim URL ("http://127.0.0.1:1234/_sim/x" -> "/_sim/x"), checking the host.
std::string PathOf(TestServer& server, const std::string& url) {
  EXPECT_EQ(url.rfind(server.baseUrl(), 0), 0u) << url;
  return url.substr(server.baseUrl().size());
}

TEST(PlacementTests, OneTimePaysTwoDollarsPerMailboxFromTheWallet) {
  TestServer server;
  auto r = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01", "mbx_nw_01_02", "mbx_nw_01_03"}));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/placement_tests.purchase", r.body);
  const json d = r.body["data"];
  EXPECT_EQ(d["placementType"], "ONE_TIME");
  EXPECT_EQ(d["testName"], "Q1 inbox check");
  EXPECT_EQ(d["mailboxCount"], 3);
  EXPECT_EQ(d["totalCost"], 6);  // Part 8: 2 dollars per mailbox
  EXPECT_EQ(d["currency"], "USD");
  EXPECT_EQ(d["walletUsed"], true);
  EXPECT_EQ(d["checkoutSession"], false);
  EXPECT_EQ(d["checkoutUrl"], "");
  EXPECT_EQ(d["walletBalance"], json({{"previousBalance", 250}, {"amountDeducted", 6}, {"currentBalance", 244}}));
  EXPECT_EQ(d["invoice"]["status"], "PAID");
  ASSERT_EQ(d["testOrders"].size(), 3u);
  EXPECT_EQ(d["testOrders"][0]["mailboxEmail"], "partnerships@northwindreach.com");
  EXPECT_EQ(d["testOrders"][1]["mailboxEmail"], "team@northwindreach.com");
  for (const auto& o : d["testOrders"]) EXPECT_EQ(o["status"], "PENDING");
  // Default timings: RUNNING after 60 s, COMPLETED 900 s later.
  EXPECT_EQ(d["estimatedCompletionTime"], "2026-01-01T09:16:00.000Z");

  EXPECT_EQ(WalletCents(server), 24400);
  // The invoice URL leads to the invoice.
  auto inv = server.Get(PathOf(server, d["invoice"]["invoiceUrl"]), "");
  ASSERT_EQ(inv.status, 200) << inv.raw;
  EXPECT_EQ(inv.body["invoiceId"], d["invoice"]["invoiceId"]);
  EXPECT_EQ(inv.body["amount"], "6.00");
  EXPECT_EQ(inv.body["status"], "PAID");
  EXPECT_EQ(inv.body["paidWith"], "WALLET");
  // A second purchase sees the first one's deduction.
  auto again = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_04"}));
  ASSERT_EQ(again.status, 200) << again.raw;
  EXPECT_EQ(again.body["data"]["walletBalance"],
            json({{"previousBalance", 244}, {"amountDeducted", 2}, {"currentBalance", 242}}));
}

// The answer is written as text (api/placement_tests.cpp); its bytes must be exactly what
// nlohmann writes for the same document (key order, escapes, numbers), for each kind of answer:
// wallet-paid, MONTHLY credits, and the checkout fallback with a non-empty checkoutUrl. The test
// name carries a quote, a backslash, a control character and UTF-8 to exercise the escaper.
TEST(PlacementTests, TheTextAnswerHasTheBytesOfTheJsonDocument) {
  TestServer server;
  const std::string name = "Q1 \"inbox\" \\ check\t\u00e9\u2713";
  for (const auto& [type, ids] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"ONE_TIME", {"mbx_nw_01_01", "mbx_nw_01_02"}}, {"MONTHLY", {"mbx_nw_01_03"}}}) {
    auto r = server.Post(kPurchase, Buy(type, ids, name));
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.raw, r.body.dump());
    EXPECT_EQ(r.body["data"]["testName"], name);
    EXPECT_CONFORMS(server, "responses/placement_tests.purchase", r.body);
  }
  server.svc().store.Write([](model::State& s) { s.accounts.Edit("acc_alice")->walletCents = 100; });
  auto checkout = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_04"}, name));
  ASSERT_EQ(checkout.status, 200) << checkout.raw;
  EXPECT_EQ(checkout.body["data"]["checkoutSession"], true);
  EXPECT_NE(checkout.body["data"]["checkoutUrl"], "");
  EXPECT_EQ(checkout.raw, checkout.body.dump());
}

TEST(PlacementTests, OrdersMoveThroughTheirStatusesOnlyWhenTheClockAdvances) {
  TestServer server;
  auto r = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01", "mbx_nw_01_02"}));
  ASSERT_EQ(r.status, 200) << r.raw;
  const std::string first = r.body["data"]["testOrders"][0]["orderId"];
  EXPECT_EQ(OrderStatuses(server)[first], "PENDING");
  EXPECT_TRUE(EventsOf(server, "placement_test.status_changed").empty());

  server.Advance("59s");
  EXPECT_EQ(OrderStatuses(server)[first], "PENDING");
  EXPECT_GE(server.Advance("1s"), 1);
  EXPECT_EQ(OrderStatuses(server)[first], "RUNNING");
  auto events = EventsOf(server, "placement_test.status_changed");
  ASSERT_EQ(events.size(), 2u);  // one per order
  for (const auto& e : events) {
    EXPECT_CONFORMS(server, "events/placement_test.status_changed", e);
    EXPECT_EQ(e["data"]["placementTestDetails"]["status"], "RUNNING");
    EXPECT_EQ(e["data"]["previousState"], json({{"status", "PENDING"}}));
    EXPECT_EQ(e["data"]["placementTestDetails"]["cartOrderId"], r.body["data"]["cartOrderId"]);
  }
  EXPECT_EQ(events[0]["data"]["placementTestDetails"]["orderId"], first);
  EXPECT_EQ(events[0]["data"]["placementTestDetails"]["mailboxEmail"], "partnerships@northwindreach.com");

  server.Advance("899s");
  EXPECT_EQ(OrderStatuses(server)[first], "RUNNING");
  server.Advance("1s");
  EXPECT_EQ(OrderStatuses(server)[first], "COMPLETED");
  events = EventsOf(server, "placement_test.status_changed");
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[3]["data"]["placementTestDetails"]["status"], "COMPLETED");
  EXPECT_EQ(events[3]["data"]["previousState"], json({{"status", "RUNNING"}}));
  EXPECT_EQ(events[3]["data"]["placementTestDetails"]["updatedAt"], "2026-01-01T09:16:00.000Z");
  EXPECT_CONFORMS(server, "events/placement_test.status_changed", events[3]);
  // Nothing further happens.
  EXPECT_EQ(server.Advance("1d"), 0);
}

TEST(PlacementTests, WalletTooSmallDeductsNothingAndOffersACheckout) {
  TestServer server;
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balance", 5}}, kAliceKey).status, 200);
  auto r = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01", "mbx_nw_01_02", "mbx_nw_01_03"}));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/placement_tests.purchase", r.body);
  const json d = r.body["data"];
  EXPECT_EQ(d["checkoutSession"], true);
  EXPECT_EQ(d["walletUsed"], false);
  EXPECT_EQ(d["totalCost"], 6);
  EXPECT_EQ(d["walletBalance"], json({{"previousBalance", 5}, {"amountDeducted", 0}, {"currentBalance", 5}}));
  EXPECT_EQ(d["invoice"]["status"], "OPEN");
  for (const auto& o : d["testOrders"]) EXPECT_EQ(o["status"], "AWAITING_PAYMENT");
  EXPECT_EQ(WalletCents(server), 500);

  // Unpaid orders do not move with the clock.
  EXPECT_EQ(server.Advance("1h"), 0);
  const std::string order = d["testOrders"][0]["orderId"];
  EXPECT_EQ(OrderStatuses(server)[order], "AWAITING_PAYMENT");

  const std::string checkout = PathOf(server, d["checkoutUrl"]);
  auto page = server.Get(checkout, "");
  ASSERT_EQ(page.status, 200) << page.raw;
  EXPECT_EQ(page.body["status"], "AWAITING_PAYMENT");
  EXPECT_EQ(page.body["amount"], "6.00");
  EXPECT_EQ(page.body["cartOrderId"], d["cartOrderId"]);

  // Paying at the checkout (as the user would) starts the tests; the wallet stays untouched.
  auto paid = server.Post(PathOf(server, page.body["completeUrl"]), json::object(), "");
  ASSERT_EQ(paid.status, 200) << paid.raw;
  EXPECT_EQ(paid.body["status"], "PAID");
  EXPECT_EQ(OrderStatuses(server)[order], "PENDING");
  EXPECT_EQ(WalletCents(server), 500);
  auto inv = server.Get(PathOf(server, d["invoice"]["invoiceUrl"]), "");
  EXPECT_EQ(inv.body["status"], "PAID");
  EXPECT_EQ(inv.body["paidWith"], "CHECKOUT");
  auto events = EventsOf(server, "placement_test.status_changed");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["data"]["previousState"], json({{"status", "AWAITING_PAYMENT"}}));
  EXPECT_CONFORMS(server, "events/placement_test.status_changed", events[0]);

  // Paying twice: 400; an unknown checkout: 404.
  EXPECT_VALIDATION_ERROR(server, server.Post(PathOf(server, page.body["completeUrl"]), json::object(), ""), "id");
  EXPECT_ERROR_WITH_ID(server, server.Post("/_sim/placement-checkouts/nope/complete", json::object(), ""), 404);
  EXPECT_ERROR_WITH_ID(server, server.Get("/_sim/placement-checkouts/nope", ""), 404);

  server.Advance("60s");
  EXPECT_EQ(OrderStatuses(server)[order], "RUNNING");
  server.Advance("15m");
  EXPECT_EQ(OrderStatuses(server)[order], "COMPLETED");
}

TEST(PlacementTests, ExactBalanceIsEnoughAndLeavesZero) {
  TestServer server;
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balance", 4}}, kAliceKey).status, 200);
  auto r = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01", "mbx_nw_01_02"}));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["data"]["walletUsed"], true);
  EXPECT_EQ(r.body["data"]["walletBalance"]["currentBalance"], 0);
  EXPECT_EQ(WalletCents(server), 0);
  // One cent short is not enough.
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balanceCents", 199}}, kAliceKey).status, 200);
  auto short_by_a_cent = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01"}));
  EXPECT_EQ(short_by_a_cent.body["data"]["walletUsed"], false);
  EXPECT_EQ(WalletCents(server), 199);
}

TEST(PlacementTests, WalletBalanceIsWholeDollarsRoundedDownAndStillAddsUp) {
  TestServer server;
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balanceCents", 1099}}, kAliceKey).status, 200);
  auto r = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01", "mbx_nw_01_02"}));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["data"]["walletBalance"], json({{"previousBalance", 10}, {"amountDeducted", 4}, {"currentBalance", 6}}));
  EXPECT_EQ(WalletCents(server), 699);  // the cents are kept
}

TEST(PlacementTests, MonthlyConsumesCreditsAndLeavesTheWalletAlone) {
  TestServer server;
  ASSERT_EQ(Credits(server, "srec_alice_ent"), 20);
  auto r = server.Post(kPurchase, Buy("MONTHLY", {"mbx_nw_01_01", "mbx_nw_01_02", "mbx_nw_01_03"}));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/placement_tests.purchase", r.body);
  const json d = r.body["data"];
  EXPECT_EQ(d["placementType"], "MONTHLY");
  EXPECT_EQ(d["totalCost"], 0);
  EXPECT_EQ(d["walletUsed"], false);
  EXPECT_EQ(d["checkoutSession"], false);
  EXPECT_EQ(d["walletBalance"], json({{"previousBalance", 250}, {"amountDeducted", 0}, {"currentBalance", 250}}));
  EXPECT_EQ(d["invoice"]["status"], "PAID");
  for (const auto& o : d["testOrders"]) EXPECT_EQ(o["status"], "PENDING");
  EXPECT_EQ(Credits(server, "srec_alice_ent"), 17);
  EXPECT_EQ(WalletCents(server), 25000);
  auto inv = server.Get(PathOf(server, d["invoice"]["invoiceUrl"]), "");
  EXPECT_EQ(inv.body["amount"], "0.00");
  EXPECT_EQ(inv.body["paidWith"], "CREDITS");
  // The tests run like paid ones.
  server.Advance("16m");
  EXPECT_EQ(OrderStatuses(server)[d["testOrders"][0]["orderId"]], "COMPLETED");
}

TEST(PlacementTests, MonthlyWithoutEnoughCreditsIs400AndConsumesNothing) {
  TestServer server;
  // Bob: 3 credits on his ACTIVE basic subscription; the cancelled one does not count.
  auto r = server.Post(kPurchase, Buy("MONTHLY", {"mbx_lu_01_01", "mbx_lu_01_02", "mbx_lu_01_03", "mbx_lu_01_04"}), kBobKey);
  EXPECT_VALIDATION_ERROR(server, r, "placementType");
  EXPECT_NE(r.body["errors"][0]["msg"].get<std::string>().find("4 needed, 3 left"), std::string::npos) << r.raw;
  EXPECT_EQ(Credits(server, "srec_bob_basic"), 3);
  EXPECT_EQ(CartCount(server), 0u);
  // Exactly three is fine, and uses them up.
  auto ok = server.Post(kPurchase, Buy("MONTHLY", {"mbx_lu_01_01", "mbx_lu_01_02", "mbx_lu_01_03"}), kBobKey);
  ASSERT_EQ(ok.status, 200) << ok.raw;
  EXPECT_EQ(Credits(server, "srec_bob_basic"), 0);
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("MONTHLY", {"mbx_lu_01_01"}), kBobKey), "placementType");
  // A cancelled subscription's credits are not usable.
  ASSERT_EQ(server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_alice_ent"}}).status, 200);
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("MONTHLY", {"mbx_nw_01_01"})), "placementType");
  EXPECT_EQ(Credits(server, "srec_alice_ent"), 20);
}

TEST(PlacementTests, MonthlyUsesCreditsOfTheSubscriptionEndingFirstThenTheNext) {
  TestServer server;
  // Give Bob a second ACTIVE subscription whose period ends before his basic one.
  auto dump = server.Get("/_sim/state?secrets=true", "").body;
  json extra = {{"id", "srec_bob_extra"}, {"accountId", "acc_bob"}, {"subscriptionId", "sub_bob_extra"},
                {"subscriptionStatus", "ACTIVE"}, {"plan", "BASIC"}, {"planKey", "basic_monthly"}, {"price", 39},
                {"totalMailboxQuantity", 25}, {"periodStart", 0}, {"periodEnd", 1}, {"subscriptionCreationDate", 0},
                {"planUpgradeCancelPossible", true}, {"paymentFailureMessage", nullptr}, {"invoiceDetails", ""},
                {"placementCredits", 2}};
  dump["subscriptions"].push_back(extra);
  ASSERT_EQ(server.Put("/_sim/state", dump).status, 200);
  auto r = server.Post(kPurchase, Buy("MONTHLY", {"mbx_lu_01_01", "mbx_lu_01_02", "mbx_lu_01_03"}), kBobKey);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(Credits(server, "srec_bob_extra"), 0);  // ends first: used first
  EXPECT_EQ(Credits(server, "srec_bob_basic"), 2);
}

TEST(PlacementTests, PlacementTypeOtherThanMonthlyOrOneTimeIs400NamingIt) {
  TestServer server;
  auto r = server.Post(kPurchase, Buy("WEEKLY", {"mbx_nw_01_01"}));
  EXPECT_VALIDATION_ERROR(server, r, "placementType");  // Part 7
  EXPECT_EQ(r.body["errors"][0]["location"], "body");
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("one_time", {"mbx_nw_01_01"})), "placementType");
  EXPECT_EQ(CartCount(server), 0u);
}

TEST(PlacementTests, EveryFieldIsRequiredAndTyped) {
  TestServer server;
  json body = Buy("ONE_TIME", {"mbx_nw_01_01"});
  for (const char* field : {"placementType", "testName", "mailboxIds"}) {
    json b = body;
    b.erase(field);
    EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, b), field);
  }
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("ONE_TIME", {})), "mailboxIds");
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01"}, "")), "testName");
  json bad_item = body;
  bad_item["mailboxIds"] = json::array({"mbx_nw_01_01", 5});
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, bad_item), "mailboxIds[1]");
  EXPECT_ERROR_WITH_ID(server, server.Post(kPurchase, body, ""), 401);
  EXPECT_EQ(WalletCents(server), 25000);
  EXPECT_EQ(CartCount(server), 0u);
}

TEST(PlacementTests, UnknownOrForeignMailboxesAre400NamingMailboxIds) {
  TestServer server;
  auto unknown = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01", "mbx_nope"}));
  EXPECT_VALIDATION_ERROR(server, unknown, "mailboxIds");
  EXPECT_NE(unknown.body["errors"][0]["msg"].get<std::string>().find("mbx_nope"), std::string::npos);
  // Bob's mailbox, and a mailbox of Alice's other workspace.
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("ONE_TIME", {"mbx_lu_01_01"})), "mailboxIds");
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("MONTHLY", {"mbx_lb_01_01"})), "mailboxIds");
  // The same mailbox twice.
  EXPECT_VALIDATION_ERROR(server, server.Post(kPurchase, Buy("ONE_TIME", {"mbx_nw_01_01", "mbx_nw_01_01"})), "mailboxIds");
  // The same in a long list (past the short scan, emsim looks repeats up in a set): the message
  // names the repeated mailbox, once per repeat.
  std::vector<std::string> many = {"mbx_nw_01_01", "mbx_nw_01_02", "mbx_nw_01_03", "mbx_nw_01_04", "mbx_nw_01_05",
                                   "mbx_nw_01_06", "mbx_nw_01_07", "mbx_nw_01_08", "mbx_nw_02_01", "mbx_nw_02_02",
                                   "mbx_nw_02_03", "mbx_nw_02_04", "mbx_nw_02_05", "mbx_nw_02_06", "mbx_nw_02_07",
                                   "mbx_nw_03_01", "mbx_nw_03_02", "mbx_nw_02_04"};
  auto long_repeat = server.Post(kPurchase, Buy("ONE_TIME", many));
  EXPECT_VALIDATION_ERROR(server, long_repeat, "mailboxIds");
  EXPECT_NE(long_repeat.body["errors"][0]["msg"].get<std::string>().find("twice: mbx_nw_02_04"), std::string::npos)
      << long_repeat.raw;
  many.pop_back();  // 17 distinct mailboxes: bought
  EXPECT_EQ(server.Post(kPurchase, Buy("MONTHLY", many)).status, 200);
  EXPECT_EQ(Credits(server, "srec_alice_ent"), 3);
  EXPECT_EQ(CartCount(server), 1u);
  EXPECT_EQ(WalletCents(server), 25000);
  // Selecting the other workspace makes its mailboxes valid; the wallet is the account's.
  auto labs = server.Post(kPurchase, Buy("ONE_TIME", {"mbx_lb_01_01"}), kAliceKey, {{"x-workspace-key", "ws_labs"}});
  ASSERT_EQ(labs.status, 200) << labs.raw;
  EXPECT_EQ(labs.body["data"]["testOrders"][0]["mailboxEmail"], "noah.f@northwindlabs.io");
  EXPECT_EQ(WalletCents(server), 24800);
}

// Money and concurrency: 50 real concurrent HTTP ONE_TIME purchases that together
// exceed the balance. The wallet never goes negative and every cent is accounted for.
TEST(PlacementTests, FiftyConcurrentOneTimePurchasesNeverOverdrawAndLoseNoCent) {
  TestServer server;
  constexpr int kRequests = 50;
  const std::vector<std::string> mailboxes = {"mbx_nw_01_01", "mbx_nw_01_02", "mbx_nw_01_03"};  // $6 each
  const std::int64_t start = WalletCents(server);
  ASSERT_EQ(start, 25000);
  const std::int64_t cost = 600;

  std::mutex mu;
  std::vector<json> results;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client client("127.0.0.1", server.port());
      client.set_read_timeout(60, 0);
      ++ready;
      while (ready.load() < kRequests) std::this_thread::yield();  // start together
      auto res = client.Post(kPurchase, {{"x-auth-service", kAliceKey}},
                             Buy("ONE_TIME", mailboxes, "burst " + std::to_string(i)).dump(), "application/json");
      std::lock_guard lock(mu);
      results.push_back(res ? json{{"status", res->status}, {"body", json::parse(res->body, nullptr, false)}}
                            : json{{"status", 0}, {"error", httplib::to_string(res.error())}});
    });
  }
  for (auto& t : threads) t.join();

  ASSERT_EQ(results.size(), static_cast<size_t>(kRequests));
  std::int64_t deducted_dollars = 0;
  int wallet_purchases = 0, checkouts = 0;
  std::set<std::int64_t> previous_balances;
  for (const auto& r : results) {
    ASSERT_EQ(r["status"], 200) << r.dump();
    EXPECT_CONFORMS(server, "responses/placement_tests.purchase", r["body"]);
    const json& d = r["body"]["data"];
    const json& w = d["walletBalance"];
    EXPECT_GE(w["currentBalance"].get<std::int64_t>(), 0);
    EXPECT_EQ(w["previousBalance"].get<std::int64_t>() - w["amountDeducted"].get<std::int64_t>(),
              w["currentBalance"].get<std::int64_t>());
    if (d["walletUsed"] == true) {
      ++wallet_purchases;
      EXPECT_EQ(w["amountDeducted"], 6);
      deducted_dollars += w["amountDeducted"].get<std::int64_t>();
      // Each debit saw a distinct balance: no two purchases raced on the same one.
      EXPECT_TRUE(previous_balances.insert(w["previousBalance"].get<std::int64_t>()).second) << w.dump();
    } else {
      ++checkouts;
      EXPECT_EQ(d["checkoutSession"], true);
      EXPECT_EQ(w["amountDeducted"], 0);
      EXPECT_LT(w["previousBalance"].get<std::int64_t>() * 100, cost);  // only refused when really short
    }
  }
  const std::int64_t end = WalletCents(server);
  EXPECT_GE(end, 0);
  EXPECT_EQ(wallet_purchases, static_cast<int>(start / cost));  // 41
  EXPECT_EQ(checkouts, kRequests - wallet_purchases);
  EXPECT_EQ(deducted_dollars * 100, start - end);
  EXPECT_EQ(end, start % cost);  // $4 left
  // The state agrees: paid carts and PAID wallet invoices match the responses.
  server.svc().store.Read([&](const model::State& s) {
    std::int64_t paid_cents = 0;
    int paid = 0;
    for (const auto& inv : s.invoices)
      if (inv.paidWith == model::PaidWith::kWallet) {
        paid_cents += inv.amountCents;
        ++paid;
      }
    EXPECT_EQ(paid, wallet_purchases);
    EXPECT_EQ(paid_cents, start - end);
    EXPECT_EQ(s.placementCarts.size(), static_cast<size_t>(kRequests));
    EXPECT_EQ(s.placementTests.size(), static_cast<size_t>(kRequests) * mailboxes.size());
  });
}

}  // namespace
}  // namespace emsim::testing
