// Part 4.6 subscriptions over HTTP: list, cancel, upgrade, and the events they emit.
#include "tests/support/billing_test_util.hpp"

namespace emsim::testing {
namespace {

json FindSub(const json& list, const std::string& subscription_id) {
  for (const auto& s : list)
    if (s["subscriptionId"] == subscription_id) return s;
  return nullptr;
}

json Internal(TestServer& server, const std::string& record_id) {
  return server.svc().store.Read([&](const model::State& s) { return json(*s.subscriptions.Find(record_id)); });
}

TEST(Subscriptions, ListAnswersTheAccountsSubscriptionsInPart2Shape) {
  TestServer server;
  auto r = server.Get("/v1/user/subscriptions");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/subscriptions.list", r.body);
  ASSERT_EQ(r.body["data"].size(), 2u);
  const json ent = r.body["data"][0];
  EXPECT_EQ(ent["subscriptionId"], "sub_alice_ent");
  EXPECT_EQ(ent["subscriptionStatus"], "ACTIVE");
  EXPECT_EQ(ent["plan"], "ENTERPRISE");
  EXPECT_EQ(ent["price"], 199);
  EXPECT_EQ(ent["totalMailboxQuantity"], 150);
  EXPECT_EQ(ent["periodStart"], "2025-12-12T10:15:00.000Z");
  EXPECT_FALSE(ent.contains("planKey"));           // internal
  EXPECT_FALSE(ent.contains("placementCredits"));  // internal
  EXPECT_EQ(r.body["data"][1]["subscriptionStatus"], "CANCELLED");

  // Bob sees only his own; the workspace header does not select subscriptions.
  auto bob = server.Get("/v1/user/subscriptions", kBobKey);
  ASSERT_EQ(bob.status, 200);
  EXPECT_TRUE(FindSub(bob.body["data"], "sub_alice_ent").is_null());
  EXPECT_FALSE(FindSub(bob.body["data"], "sub_bob_basic").is_null());
  auto labs = server.Get("/v1/user/subscriptions", kAliceKey, {{"x-workspace-key", "ws_labs"}});
  EXPECT_EQ(labs.body["data"], r.body["data"]);
}

TEST(Subscriptions, ListWithoutOrWithAWrongKeyIs401) {
  TestServer server;
  EXPECT_ERROR_WITH_ID(server, server.Get("/v1/user/subscriptions", ""), 401);
  EXPECT_ERROR_WITH_ID(server, server.Get("/v1/user/subscriptions", "emsim_test_nobody"), 401);
}

TEST(Subscriptions, CancelAnswersMessageAndNullDataWithoutStatusAndCancels) {
  TestServer server;
  auto r = server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_alice_ent"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/subscriptions.cancel", r.body);
  EXPECT_FALSE(r.body.contains("status"));  // Part 4.6
  EXPECT_TRUE(r.body["data"].is_null());
  EXPECT_FALSE(r.body["message"].get<std::string>().empty());

  auto list = server.Get("/v1/user/subscriptions");
  const json sub = FindSub(list.body["data"], "sub_alice_ent");
  EXPECT_EQ(sub["subscriptionStatus"], "CANCELLED");
  EXPECT_EQ(sub["planUpgradeCancelPossible"], false);
  // A cancelled subscription no longer counts towards purchased mailboxes.
  EXPECT_EQ(server.Get("/v1/mailbox/list").body["data"]["purchasedMailboxes"], 0);

  auto events = EventsOf(server, "subscription.status_changed");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_CONFORMS(server, "events/subscription.status_changed", events[0]);
  EXPECT_EQ(events[0]["data"]["subscriptionDetails"]["subscriptionStatus"], "CANCELLED");
  EXPECT_EQ(events[0]["data"]["subscriptionDetails"]["userId"], "usr_alice");
  EXPECT_EQ(events[0]["data"]["previousState"],
            json({{"subscriptionStatus", "ACTIVE"}, {"planUpgradeCancelPossible", true}}));
}

TEST(Subscriptions, CancellingTwiceIs400AndChangesNothing) {
  TestServer server;
  ASSERT_EQ(server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_alice_ent"}}).status, 200);
  const size_t events = EventCount(server);
  auto again = server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_alice_ent"}});
  EXPECT_VALIDATION_ERROR(server, again, "subscriptionId");
  EXPECT_NE(again.body["errors"][0]["msg"].get<std::string>().find("already cancelled"), std::string::npos);
  EXPECT_EQ(EventCount(server), events);
  // The fixture's cancelled subscription too.
  EXPECT_VALIDATION_ERROR(server, server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_alice_basic_old"}}),
                          "subscriptionId");
}

TEST(Subscriptions, CancelUnknownOrAnotherAccountsSubscriptionIs404) {
  TestServer server;
  EXPECT_ERROR_WITH_ID(server, server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_nope"}}), 404);
  EXPECT_ERROR_WITH_ID(server, server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_bob_basic"}}), 404);
  // The record id is not the external id (Part 4.6 takes the external one).
  EXPECT_ERROR_WITH_ID(server, server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "srec_alice_ent"}}), 404);
  auto bob = server.Get("/v1/user/subscriptions", kBobKey);
  EXPECT_EQ(FindSub(bob.body["data"], "sub_bob_basic")["subscriptionStatus"], "ACTIVE");
  EXPECT_EQ(EventCount(server), 0u);
}

TEST(Subscriptions, CancelValidatesItsBody) {
  TestServer server;
  EXPECT_VALIDATION_ERROR(server, server.Post("/v1/user/cancel-subscription", json::object()), "subscriptionId");
  EXPECT_VALIDATION_ERROR(server, server.Post("/v1/user/cancel-subscription", {{"subscriptionId", 7}}), "subscriptionId");
  EXPECT_VALIDATION_ERROR(server, server.Post("/v1/user/cancel-subscription", {{"subscriptionId", ""}}), "subscriptionId");
  EXPECT_ERROR_WITH_ID(server, server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_alice_ent"}}, ""), 401);
}

TEST(Subscriptions, UpgradeAnswersAnEmptyObjectAndChangesPlanPriceAndQuantity) {
  TestServer server;
  auto r = server.Post("/v2/subscriptions/upgrade", {{"uniquePlanKey", "growth_monthly"}, {"subscriptionId", "sub_alice_ent"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.raw, "{}");
  EXPECT_CONFORMS(server, "responses/subscriptions.upgrade", r.body);

  const json sub = FindSub(server.Get("/v1/user/subscriptions").body["data"], "sub_alice_ent");
  EXPECT_EQ(sub["plan"], "GROWTH");
  EXPECT_EQ(sub["price"], 99);
  EXPECT_EQ(sub["totalMailboxQuantity"], 60);
  EXPECT_EQ(sub["subscriptionStatus"], "ACTIVE");
  EXPECT_EQ(server.Get("/v1/mailbox/list").body["data"]["purchasedMailboxes"], 60);
  // Credits: 20 left + (30 growth allotment - 100 enterprise allotment), never below 0.
  const json internal = Internal(server, "srec_alice_ent");
  EXPECT_EQ(internal["planKey"], "growth_monthly");
  EXPECT_EQ(internal["placementCredits"], 0);

  auto events = EventsOf(server, "subscription.billing_changed");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_CONFORMS(server, "events/subscription.billing_changed", events[0]);
  EXPECT_EQ(events[0]["data"]["subscriptionDetails"]["plan"], "GROWTH");
  EXPECT_EQ(events[0]["data"]["previousState"],
            json({{"plan", "ENTERPRISE"}, {"price", 199}, {"totalMailboxQuantity", 150}}));
}

TEST(Subscriptions, UpgradeAddsTheAllotmentDifferenceToCredits) {
  TestServer server;
  auto r = server.Post("/v2/subscriptions/upgrade", {{"uniquePlanKey", "enterprise_yearly"}, {"subscriptionId", "sub_alice_ent"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(Internal(server, "srec_alice_ent")["placementCredits"], 20 + 1200 - 100);
  // Only the changed fields are in previousState: the plan name stays ENTERPRISE.
  auto events = EventsOf(server, "subscription.billing_changed");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["data"]["previousState"], json({{"price", 199}}));
}

TEST(Subscriptions, UpgradeAcceptsLookupKeyAndBothWhenTheyAgree) {
  TestServer server;
  ASSERT_EQ(server.Post("/v2/subscriptions/upgrade", {{"lookupKey", "basic_monthly"}, {"subscriptionId", "sub_alice_ent"}}).status,
            200);
  EXPECT_EQ(FindSub(server.Get("/v1/user/subscriptions").body["data"], "sub_alice_ent")["plan"], "BASIC");
  auto both = server.Post("/v2/subscriptions/upgrade",
                          {{"uniquePlanKey", "growth_yearly"}, {"lookupKey", "growth_yearly"}, {"subscriptionId", "sub_alice_ent"}});
  ASSERT_EQ(both.status, 200) << both.raw;
  const json sub = FindSub(server.Get("/v1/user/subscriptions").body["data"], "sub_alice_ent");
  EXPECT_EQ(sub["plan"], "GROWTH");
  EXPECT_EQ(sub["price"], 990);
}

TEST(Subscriptions, UpgradeErrorsAreClearAndChangeNothing) {
  TestServer server;
  const json before = server.Get("/v1/user/subscriptions").body;
  auto upgrade = [&](json body) { return server.Post("/v2/subscriptions/upgrade", body); };
  // Both plan names, different: 400 (DESIGN.md gap table).
  auto both = upgrade({{"uniquePlanKey", "growth_monthly"}, {"lookupKey", "basic_monthly"}, {"subscriptionId", "sub_alice_ent"}});
  EXPECT_VALIDATION_ERROR(server, both, "lookupKey");
  // Neither.
  EXPECT_VALIDATION_ERROR(server, upgrade({{"subscriptionId", "sub_alice_ent"}}), "uniquePlanKey");
  // Unknown plan key: 400 naming the field used.
  auto unknown_plan = upgrade({{"uniquePlanKey", "platinum_forever"}, {"subscriptionId", "sub_alice_ent"}});
  EXPECT_VALIDATION_ERROR(server, unknown_plan, "uniquePlanKey");
  EXPECT_NE(unknown_plan.body["errors"][0]["msg"].get<std::string>().find("platinum_forever"), std::string::npos);
  EXPECT_VALIDATION_ERROR(server, upgrade({{"lookupKey", "nope"}, {"subscriptionId", "sub_alice_ent"}}), "lookupKey");
  // Already on that plan.
  EXPECT_VALIDATION_ERROR(server, upgrade({{"uniquePlanKey", "enterprise_monthly"}, {"subscriptionId", "sub_alice_ent"}}),
                          "uniquePlanKey");
  // Cancelled subscription: 400.
  EXPECT_VALIDATION_ERROR(server, upgrade({{"uniquePlanKey", "growth_monthly"}, {"subscriptionId", "sub_alice_basic_old"}}),
                          "subscriptionId");
  // Unknown, or another account's: 404.
  EXPECT_ERROR_WITH_ID(server, upgrade({{"uniquePlanKey", "growth_monthly"}, {"subscriptionId", "sub_nope"}}), 404);
  EXPECT_ERROR_WITH_ID(server, upgrade({{"uniquePlanKey", "growth_monthly"}, {"subscriptionId", "sub_bob_basic"}}), 404);
  // Schema: subscriptionId required, keys must be strings.
  EXPECT_VALIDATION_ERROR(server, upgrade({{"uniquePlanKey", "growth_monthly"}}), "subscriptionId");
  EXPECT_VALIDATION_ERROR(server, upgrade({{"uniquePlanKey", 3}, {"subscriptionId", "sub_alice_ent"}}), "uniquePlanKey");

  EXPECT_EQ(server.Get("/v1/user/subscriptions").body, before);
  EXPECT_EQ(EventCount(server), 0u);
}

TEST(Subscriptions, CancelledAfterUpgradeCannotBeUpgradedAgain) {
  TestServer server;
  ASSERT_EQ(server.Post("/v1/user/cancel-subscription", {{"subscriptionId", "sub_bob_basic"}}, kBobKey).status, 200);
  auto r = server.Post("/v2/subscriptions/upgrade", {{"uniquePlanKey", "growth_monthly"}, {"subscriptionId", "sub_bob_basic"}},
                       kBobKey);
  EXPECT_VALIDATION_ERROR(server, r, "subscriptionId");
  EXPECT_NE(r.body["errors"][0]["msg"].get<std::string>().find("CANCELLED"), std::string::npos);
}

}  // namespace
}  // namespace emsim::testing
