// The operations taken from the public reference, not the spec (Part 4.11 names them only), over
// HTTP against the default fixture: paths, payloads, state, events, Part 7 errors, dump/load.
#include "tests/support/billing_test_util.hpp"

namespace emsim::testing {
namespace {

// A body-carrying request with any method (TestServer's Put/Delete take no key or no body).
HttpResult RefSend(TestServer& server, const std::string& method, const std::string& path, const json& body,
                   const std::string& key = kAliceKey) {
  return server.Send(method, path, body.dump(), key, {});
}

json RefMailbox(TestServer& server, const std::string& id, const std::string& key = kAliceKey) {
  auto r = server.Get("/v1/mailbox/details?id=" + id, key);
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body["data"]["mailbox"];
}

TEST(PublicReferenceHttp, WalletBalanceReadsTheAccountsWalletAndAutoRechargeSettings) {
  TestServer server;
  auto r = server.Get("/v2/wallet/balance");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body, json({{"message", "Wallet balance fetched successfully"},
                          {"walletBalance", 250},
                          {"autoRechargeEnabled", false},
                          {"autoRechargeDetails", {{"amount", 50}, {"threshold", 20}}}}));
  EXPECT_EQ(server.Get("/v2/wallet/balance", kBobKey).body["walletBalance"], 40);
  EXPECT_ERROR_WITH_ID(server, server.Get("/v2/wallet/balance", ""), 401);

  auto on = server.Post("/v2/wallet/enable-auto-recharge", {{"enable", true}, {"threshold", 25}, {"minimumRechargeAmount", 100}});
  ASSERT_EQ(on.status, 200) << on.raw;
  EXPECT_EQ(on.body["message"], "Auto-recharge enabled successfully");
  auto after = server.Get("/v2/wallet/balance").body;
  EXPECT_EQ(after["autoRechargeEnabled"], true);
  EXPECT_EQ(after["autoRechargeDetails"], json({{"amount", 100}, {"threshold", 25}}));
  EXPECT_EQ(server.Get("/v2/wallet/balance", kBobKey).body["autoRechargeEnabled"], false);  // Alice's only
}

TEST(PublicReferenceHttp, AddBalanceOpensAPaymentLinkAndCompletingItCreditsTheWallet) {
  TestServer server;
  auto r = server.Post("/v2/wallet/balance", {{"amount", 100.25}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["message"], "Checkout session created successfully");
  const std::string link = r.body["paymentLink"];
  const std::string path = link.substr(link.find("/_sim/checkout/"));
  EXPECT_EQ(WalletCents(server), 25000);  // nothing before completion

  auto checkout = server.Get(path, "");
  ASSERT_EQ(checkout.status, 200) << checkout.raw;
  EXPECT_EQ(checkout.body["purpose"], "wallet_topup");
  EXPECT_EQ(checkout.body["amount"], "100.25");
  EXPECT_EQ(checkout.body["status"], "PENDING");
  EXPECT_EQ(checkout.body["workspaceId"], "ws_northwind");  // the account's default: the wallet ignores workspaces

  auto done = server.Post(path + "/complete", json::object(), "");
  ASSERT_EQ(done.status, 200) << done.raw;
  EXPECT_EQ(done.body["wallet"]["balanceCents"], 35025);
  EXPECT_EQ(done.body["checkout"]["paidWith"], "CHECKOUT");
  EXPECT_EQ(WalletCents(server), 35025);
  EXPECT_EQ(server.Get("/v2/wallet/balance").body["walletBalance"], 350);
  auto moves = server.Get("/_sim/wallet/movements", kAliceKey);
  ASSERT_EQ(moves.status, 200) << moves.raw;
  EXPECT_NE(moves.raw.find("wallet_topup"), std::string::npos) << moves.raw;
  EXPECT_EQ(server.Post(path + "/complete", json::object(), "").status, 400);  // once
  EXPECT_EQ(WalletCents(server), 35025);
}

TEST(PublicReferenceHttp, AddBalanceAndAutoRechargeRefuseBadInputAndChangeNothing) {
  TestServer server;
  auto checkouts = [&] { return server.svc().store.Read([](const model::State& s) { return s.checkouts.size(); }); };
  const size_t before = checkouts();
  EXPECT_VALIDATION_ERROR(server, server.Post("/v2/wallet/balance", {{"amount", "100"}}), "amount");
  EXPECT_VALIDATION_ERROR(server, server.Post("/v2/wallet/balance", {{"amount", 0}}), "amount");
  EXPECT_VALIDATION_ERROR(server, server.Post("/v2/wallet/balance", {{"amount", 1.005}}), "amount");
  EXPECT_EQ(server.Post("/v2/wallet/balance", json::object()).status, 400);
  EXPECT_VALIDATION_ERROR(server, server.Post("/v2/wallet/enable-auto-recharge", {{"enable", "yes"}}), "enable");
  EXPECT_VALIDATION_ERROR(server, server.Post("/v2/wallet/enable-auto-recharge", {{"enable", true}, {"threshold", -1}}), "threshold");
  EXPECT_EQ(server.Post("/v2/wallet/enable-auto-recharge", json::object()).status, 400);
  EXPECT_EQ(server.Get("/v2/wallet/balance").body["autoRechargeEnabled"], false);
  EXPECT_EQ(checkouts(), before);
  EXPECT_EQ(WalletCents(server), 25000);
}

TEST(PublicReferenceHttp, APurchaseThatDropsTheWalletBelowTheThresholdRechargesIt) {
  TestServer server;
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balanceCents", 2300}}, kAliceKey).status, 200);
  ASSERT_EQ(server.Post("/v2/wallet/enable-auto-recharge", {{"enable", true}}).status, 200);  // defaults: $20, $50
  auto buy = server.Post("/v2/placement-tests/purchase",
                         {{"placementType", "ONE_TIME"}, {"testName", "t"}, {"mailboxIds", {"mbx_nw_01_01", "mbx_nw_01_02"}}});
  ASSERT_EQ(buy.status, 200) << buy.raw;
  // The purchase answers the balance it left; the recharge follows as its own movement.
  EXPECT_EQ(buy.body["data"]["walletBalance"]["currentBalance"], 19);
  server.Advance("1s");
  EXPECT_EQ(WalletCents(server), 1900 + 5000);
  auto moves = server.Get("/_sim/wallet/movements", kAliceKey);
  EXPECT_NE(moves.raw.find("auto_recharge"), std::string::npos) << moves.raw;
}

TEST(PublicReferenceHttp, UserDetailsComeFromTheAccount) {
  TestServer server;
  auto r = server.Get("/v2/users");
  ASSERT_EQ(r.status, 200) << r.raw;
  const json& d = r.body["data"];
  EXPECT_EQ(d["id"], "usr_alice");
  EXPECT_EQ(d["email"], "alice@northwind-outreach.com");
  EXPECT_EQ(d["firstName"], "Alice");
  EXPECT_EQ(d["activePlan"], "ENTERPRISE");
  EXPECT_EQ(d["planEndsOn"], "2026-01-12T10:15:00.000Z");
  EXPECT_EQ(d["purchasedMailboxes"], 150);
  EXPECT_EQ(d["walletBalance"], 250.0);
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balanceCents", 10050}}, kAliceKey).status, 200);
  EXPECT_EQ(server.Get("/v2/users").body["data"]["walletBalance"], 100.5);
  EXPECT_ERROR_WITH_ID(server, server.Get("/v2/users", "emsim_test_nobody"), 401);
}

TEST(PublicReferenceHttp, WorkspacesAreCreatedAndRenamedAndListed) {
  TestServer server;
  auto made = server.Post("/v2/workspaces", {{"name", "Outbound EU"}});
  ASSERT_EQ(made.status, 200) << made.raw;
  const std::string id = made.body["data"]["id"];
  EXPECT_EQ(made.body["data"]["name"], "Outbound EU");
  auto list = server.Get("/v1/workspace/list");
  EXPECT_NE(list.raw.find("Outbound EU"), std::string::npos);
  // The new workspace is selectable by x-workspace-key at once, and empty.
  auto empty = server.Get("/v1/domain/list", kAliceKey, {{"x-workspace-key", id}});
  EXPECT_EQ(empty.status, 200) << empty.raw;

  auto renamed = RefSend(server, "PUT", "/v2/workspaces", {{"id", id}, {"name", "Outbound Europe"}});
  ASSERT_EQ(renamed.status, 200) << renamed.raw;
  EXPECT_EQ(renamed.body["data"]["name"], "Outbound Europe");
  EXPECT_NE(server.Get("/v1/workspace/list").raw.find("Outbound Europe"), std::string::npos);

  EXPECT_VALIDATION_ERROR(server, server.Post("/v2/workspaces", {{"name", "northwind outreach"}}), "name");
  EXPECT_VALIDATION_ERROR(server, server.Post("/v2/workspaces", {{"name", 5}}), "name");
  EXPECT_EQ(server.Post("/v2/workspaces", json::object()).status, 400);
  EXPECT_ERROR_WITH_ID(server, RefSend(server, "PUT", "/v2/workspaces", {{"id", "ws_lumen"}, {"name", "Mine"}}), 404);
  EXPECT_ERROR_WITH_ID(server, RefSend(server, "PUT", "/v2/workspaces", {{"id", "ws_nope"}, {"name", "Mine"}}), 404);
  EXPECT_EQ(server.Get("/v1/workspace/list", kBobKey).raw.find("Mine"), std::string::npos);
}

TEST(PublicReferenceHttp, ANewWorkspaceTakesBillingDetailsAsBillingAddOrUpdateDoes) {
  TestServer server;
  const json billing = {{"firstName", "Ann"}, {"lastName", "Lee"}, {"company", "Lee Ltd"}, {"addressLineOne", "1 Main St"},
                        {"city", "Austin"}, {"state", "TX"}, {"country", "US"}, {"postalCode", "73301"},
                        {"phoneCc", "+1"}, {"phone", "5125550100"}};
  auto made = server.Post("/v2/workspaces", {{"name", "Billed"}, {"billingDetails", billing}});
  ASSERT_EQ(made.status, 200) << made.raw;
  EXPECT_EQ(made.body["data"]["billingDetails"]["company"], "Lee Ltd");
  EXPECT_EQ(made.body["data"]["billingDetails"]["workspaceId"], made.body["data"]["id"]);
  // The same country check as Part 4.1; nothing is created when the details are refused.
  json bad = billing;
  bad["country"] = "Texas";
  EXPECT_EQ(server.Post("/v2/workspaces", {{"name", "Billed 2"}, {"billingDetails", bad}}).status, 400);
  bad = billing;
  bad.erase("company");
  EXPECT_EQ(server.Post("/v2/workspaces", {{"name", "Billed 2"}, {"billingDetails", bad}}).status, 400);
  EXPECT_EQ(server.Get("/v1/workspace/list").raw.find("Billed 2"), std::string::npos);
}

TEST(PublicReferenceHttp, AssignedMailboxesAppearInProgressAndBecomeActive) {
  TestServer server;
  const json body = {{"dom_nw_01", {{{"firstName", "Nora"}, {"lastName", "Kim"}, {"mailboxUsername", "nora"}, {"domainName", "northwindreach.com"}}}}};
  auto r = server.Post("/v1/mailbox/assign-new", body);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body, json({{"status", 200}, {"message", "Mailboxes will be assigned shortly"}, {"data", nullptr}}));
  auto list = server.Get("/v1/mailbox/list?contains=nora");
  ASSERT_EQ(list.status, 200) << list.raw;
  const json& mb = list.body["data"]["domains"][0]["mailboxes"][0];
  EXPECT_EQ(mb["username"], "nora");
  EXPECT_EQ(mb["status"], "IN_PROGRESS");
  EXPECT_EQ(mb["removeOnNextRenewal"], false);
  server.Advance("5m");
  EXPECT_EQ(RefMailbox(server, mb["id"])["status"], "ACTIVE");
  auto events = EventsOf(server, "mailbox.updated");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["data"]["previousState"], json({{"status", "IN_PROGRESS"}}));

  // The same name again, a name of another domain, another account's domain: refused, nothing made.
  EXPECT_VALIDATION_ERROR(server, server.Post("/v1/mailbox/assign-new", body), "dom_nw_01[0].mailboxUsername");
  json wrong = body;
  wrong["dom_nw_01"][0]["domainName"] = "getnorthwind.com";
  wrong["dom_nw_01"][0]["mailboxUsername"] = "nora2";
  EXPECT_VALIDATION_ERROR(server, server.Post("/v1/mailbox/assign-new", wrong), "dom_nw_01[0].domainName");
  EXPECT_ERROR_WITH_ID(server, server.Post("/v1/mailbox/assign-new", {{"dom_lu_01", body["dom_nw_01"]}}), 404);
  EXPECT_EQ(server.Post("/v1/mailbox/assign-new", {{"dom_nw_01", {{{"firstName", "N"}}}}}).status, 400);
  EXPECT_EQ(server.Post("/v1/mailbox/assign-new", {{"dom_nw_01", "x"}}).status, 400);
  EXPECT_EQ(server.Get("/v1/mailbox/list?contains=nora2").body["data"]["totalSearchedCount"], 0);
}

TEST(PublicReferenceHttp, UpdateMailboxChangesNamesAndScheduledRemovalMarksThem) {
  TestServer server;
  auto r = RefSend(server, "PUT", "/v2/mailboxes",
                   {{"mailboxData", {{{"mailboxId", "mbx_nw_01_01"}, {"firstName", "Dan"}, {"lastName", "Brooks"}, {"username", "dan"}}}}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const json mb = RefMailbox(server, "mbx_nw_01_01");
  EXPECT_EQ(mb["username"], "dan");
  EXPECT_EQ(mb["firstName"], "Dan");
  auto events = EventsOf(server, "mailbox.updated");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["data"]["previousState"], json({{"firstName", "Daniel"}, {"username", "partnerships"}}));

  EXPECT_VALIDATION_ERROR(server, RefSend(server, "PUT", "/v2/mailboxes",
      {{"mailboxData", {{{"mailboxId", "mbx_nw_01_01"}, {"firstName", "D"}, {"lastName", "B"}, {"username", "team"}}}}}),
      "mailboxData[0].username");
  EXPECT_VALIDATION_ERROR(server, RefSend(server, "PUT", "/v2/mailboxes",
      {{"mailboxData", {{{"mailboxId", "mbx_nw_01_01"}, {"firstName", "D"}, {"lastName", "B"}, {"username", ".bad"}}}}}),
      "mailboxData[0].username");
  EXPECT_ERROR_WITH_ID(server, RefSend(server, "PUT", "/v2/mailboxes",
      {{"mailboxData", {{{"mailboxId", "mbx_lu_01_01"}, {"firstName", "D"}, {"lastName", "B"}, {"username", "x"}}}}}), 404);
  EXPECT_EQ(RefSend(server, "PUT", "/v2/mailboxes", {{"mailboxData", json::array()}}).status, 400);
  EXPECT_EQ(RefMailbox(server, "mbx_nw_01_01")["username"], "dan");

  auto mark = RefSend(server, "PUT", "/v2/mailboxes/scheduled-removal", {{"mailboxIds", {"mbx_nw_01_02"}}, {"remove", true}});
  ASSERT_EQ(mark.status, 200) << mark.raw;
  EXPECT_EQ(mark.body, json({{"message", "Mailbox will be removed on next renewal"}, {"data", nullptr}}));
  EXPECT_EQ(RefMailbox(server, "mbx_nw_01_02")["removeOnNextRenewal"], true);
  EXPECT_EQ(RefMailbox(server, "mbx_nw_01_03")["removeOnNextRenewal"], false);
  EXPECT_ERROR_WITH_ID(server, RefSend(server, "PUT", "/v2/mailboxes/scheduled-removal", {{"mailboxIds", {"mbx_nw_01_03", "mbx_lu_01_01"}}, {"remove", true}}), 404);
  EXPECT_EQ(RefMailbox(server, "mbx_nw_01_03")["removeOnNextRenewal"], false);
  EXPECT_VALIDATION_ERROR(server, RefSend(server, "PUT", "/v2/mailboxes/scheduled-removal", {{"remove", "yes"}}), "remove");
  ASSERT_EQ(RefSend(server, "PUT", "/v2/mailboxes/scheduled-removal", {{"mailboxIds", {"mbx_nw_01_02"}}, {"remove", false}}).status, 200);
  EXPECT_EQ(RefMailbox(server, "mbx_nw_01_02")["removeOnNextRenewal"], false);
}

TEST(PublicReferenceHttp, RemoveUnusedDomainsRemovesOnlyEmptyDomainsOfTheWorkspace) {
  TestServer server;
  EXPECT_VALIDATION_ERROR(server, RefSend(server, "DELETE", "/v2/domains", {{"ids", {"dom_nw_14", "dom_nw_01"}}}), "ids");
  EXPECT_ERROR_WITH_ID(server, RefSend(server, "DELETE", "/v2/domains", {{"ids", {"dom_lu_01"}}}), 404);
  EXPECT_EQ(RefSend(server, "DELETE", "/v2/domains", {{"ids", "dom_nw_14"}}).status, 400);
  EXPECT_NE(server.Get("/v1/domain/list").raw.find("northwind-growth.com"), std::string::npos);
  auto r = RefSend(server, "DELETE", "/v2/domains", {{"ids", {"dom_nw_14"}}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["data"]["removedDomainIds"], json({"dom_nw_14"}));
  EXPECT_EQ(server.Get("/v1/domain/list").raw.find("northwind-growth.com"), std::string::npos);
  server.Advance("2h");  // its pending lifecycle jobs find nothing to do
}

TEST(PublicReferenceHttp, TheNewFieldsSurviveAStateDumpAndLoad) {
  TestServer server;
  ASSERT_EQ(server.Post("/v2/wallet/enable-auto-recharge", {{"enable", true}, {"threshold", 30}}).status, 200);
  auto top = server.Post("/v2/wallet/balance", {{"amount", 10}});
  ASSERT_EQ(top.status, 200);
  ASSERT_EQ(RefSend(server, "PUT", "/v2/mailboxes/scheduled-removal", {{"mailboxIds", {"mbx_nw_01_02"}}, {"remove", true}}).status, 200);
  ASSERT_EQ(server.Post("/v2/workspaces", {{"name", "Kept"}}).status, 200);
  const json dump = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(server.Get("/v2/wallet/balance").body["autoRechargeEnabled"], false);
  auto loaded = server.Put("/_sim/state", dump);
  ASSERT_EQ(loaded.status, 200) << loaded.raw;
  EXPECT_EQ(server.Get("/v2/wallet/balance").body["autoRechargeDetails"]["threshold"], 30);
  EXPECT_EQ(RefMailbox(server, "mbx_nw_01_02")["removeOnNextRenewal"], true);
  EXPECT_NE(server.Get("/v1/workspace/list").raw.find("Kept"), std::string::npos);
  const std::string link = top.body["paymentLink"];
  auto done = server.Post(link.substr(link.find("/_sim/checkout/")) + "/complete", json::object(), "");
  ASSERT_EQ(done.status, 200) << done.raw;
  EXPECT_EQ(WalletCents(server), 26000);
}

}  // namespace
}  // namespace emsim::testing
