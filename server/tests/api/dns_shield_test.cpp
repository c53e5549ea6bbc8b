// Part 4.8 DNS shield over HTTP: available slots and plan upgrades (Part 8 prices and limits).
#include "tests/support/billing_test_util.hpp"

namespace emsim::testing {
namespace {

const char* kSlots = "/v2/dns-shield/available-slots";
const char* kUpgrade = "/v2/dns-shield/upgrade-plan";

json SlotRecord(const json& slots, const std::string& id) {
  for (const auto& s : slots["data"]["subscriptions"])
    if (s["id"] == id) return s;
  return nullptr;
}

TEST(DnsShield, AvailableSlotsSumsTheActiveSubscriptions) {
  TestServer server;
  auto r = server.Get(kSlots);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/dns_shield.available_slots", r.body);
  ASSERT_EQ(r.body["data"]["subscriptions"].size(), 2u);
  EXPECT_EQ(SlotRecord(r.body, "dsr_alice_starter"),
            json({{"id", "dsr_alice_starter"}, {"planType", "STARTER"}, {"totalSlots", 30}, {"totalUsedSlots", 12},
                  {"availableSlots", 18}}));
  EXPECT_EQ(SlotRecord(r.body, "dsr_alice_growth")["availableSlots"], 63);
  EXPECT_EQ(r.body["data"]["totalAvailableSlots"], 18 + 63);

  auto bob = server.Get(kSlots, kBobKey);
  ASSERT_EQ(bob.body["data"]["subscriptions"].size(), 1u);
  EXPECT_EQ(bob.body["data"]["totalAvailableSlots"], 1);
  EXPECT_ERROR_WITH_ID(server, server.Get(kSlots, ""), 401);
}

TEST(DnsShield, CancelledSubscriptionsAreNotCounted) {
  TestServer server;
  auto dump = server.Get("/_sim/state?secrets=true", "").body;
  for (auto& d : dump["dnsShield"])
    if (d["id"] == "dsr_alice_growth") d["status"] = "CANCELLED";
  ASSERT_EQ(server.Put("/_sim/state", dump).status, 200);
  auto r = server.Get(kSlots);
  ASSERT_EQ(r.body["data"]["subscriptions"].size(), 1u);
  EXPECT_EQ(r.body["data"]["totalAvailableSlots"], 18);
  // ...nor upgradable.
  EXPECT_VALIDATION_ERROR(server, server.Post(kUpgrade, {{"subscriptionId", "dsr_alice_growth"}, {"newPlanName", "pro"}}),
                          "subscriptionId");
}

TEST(DnsShield, UpgradeRaisesTheSlotsAndInvoicesThePriceDifference) {
  TestServer server;
  auto r = server.Post(kUpgrade, {{"subscriptionId", "dsr_alice_starter"}, {"newPlanName", "growth"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/dns_shield.upgrade_plan", r.body);
  const std::string message = r.body["message"];
  EXPECT_NE(message.find("Starter"), std::string::npos) << message;
  EXPECT_NE(message.find("Growth"), std::string::npos) << message;

  auto slots = server.Get(kSlots);
  EXPECT_EQ(SlotRecord(slots.body, "dsr_alice_starter"),
            json({{"id", "dsr_alice_starter"}, {"planType", "GROWTH"}, {"totalSlots", 100}, {"totalUsedSlots", 12},
                  {"availableSlots", 88}}));
  EXPECT_EQ(slots.body["data"]["totalAvailableSlots"], 88 + 63);

  // Part 8: Growth $999 - Starter $299, charged to the card on file: the wallet is untouched.
  const std::string url = r.body["invoiceUrl"];
  ASSERT_EQ(url.rfind(server.baseUrl() + "/_sim/invoices/", 0), 0u) << url;
  auto inv = server.Get(url.substr(server.baseUrl().size()), "");
  ASSERT_EQ(inv.status, 200) << inv.raw;
  EXPECT_EQ(inv.body["amount"], "700.00");
  EXPECT_EQ(inv.body["status"], "PAID");
  EXPECT_EQ(inv.body["paidWith"], "CARD");
  EXPECT_EQ(WalletCents(server), 25000);

  // And on to Pro, case-insensitively, by the external subscription id.
  auto pro = server.Post(kUpgrade, {{"subscriptionId", "dss_alice_starter"}, {"newPlanName", "PrO"}});
  ASSERT_EQ(pro.status, 200) << pro.raw;
  EXPECT_NE(pro.body["message"].get<std::string>().find("from Growth to Pro"), std::string::npos);
  EXPECT_EQ(SlotRecord(server.Get(kSlots).body, "dsr_alice_starter")["totalSlots"], 500);
  auto inv2 = server.Get(pro.body["invoiceUrl"].get<std::string>().substr(server.baseUrl().size()), "");
  EXPECT_EQ(inv2.body["amount"], "2000.00");
}

TEST(DnsShield, UpgradeErrors) {
  TestServer server;
  const json before = server.Get(kSlots).body;
  auto up = [&](json body, const std::string& key = kAliceKey) { return server.Post(kUpgrade, body, key); };
  // Unknown, or another account's: 404.
  EXPECT_ERROR_WITH_ID(server, up({{"subscriptionId", "dsr_nope"}, {"newPlanName", "pro"}}), 404);
  EXPECT_ERROR_WITH_ID(server, up({{"subscriptionId", "dsr_bob_starter"}, {"newPlanName", "pro"}}), 404);
  // Same plan, lower plan, unknown plan: 400 naming newPlanName.
  EXPECT_VALIDATION_ERROR(server, up({{"subscriptionId", "dsr_alice_growth"}, {"newPlanName", "Growth"}}), "newPlanName");
  EXPECT_VALIDATION_ERROR(server, up({{"subscriptionId", "dsr_alice_growth"}, {"newPlanName", "starter"}}), "newPlanName");
  EXPECT_VALIDATION_ERROR(server, up({{"subscriptionId", "dsr_alice_growth"}, {"newPlanName", "platinum"}}), "newPlanName");
  // Schema: both fields required strings.
  EXPECT_VALIDATION_ERROR(server, up({{"subscriptionId", "dsr_alice_growth"}}), "newPlanName");
  EXPECT_VALIDATION_ERROR(server, up({{"newPlanName", "pro"}}), "subscriptionId");
  EXPECT_VALIDATION_ERROR(server, up({{"subscriptionId", "dsr_alice_growth"}, {"newPlanName", 3}}), "newPlanName");
  EXPECT_ERROR_WITH_ID(server, up({{"subscriptionId", "dsr_alice_growth"}, {"newPlanName", "pro"}}, ""), 401);

  EXPECT_EQ(server.Get(kSlots).body, before);
  server.svc().store.Read([](const model::State& s) { EXPECT_TRUE(s.invoices.empty()); });
}

}  // namespace
}  // namespace emsim::testing
