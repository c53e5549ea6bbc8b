// /_sim/wallet, /_sim/invoices and the money records' place in reset and dump/load.
#include "tests/support/billing_test_util.hpp"
#include "tests/support/fixture_clock.hpp"

namespace emsim::testing {
namespace {

TEST(SimWallet, ReadsTheWalletOfTheKeysAccountInWholeDollars) {
  TestServer server;
  auto alice = server.Get("/_sim/wallet", kAliceKey);
  ASSERT_EQ(alice.status, 200) << alice.raw;
  EXPECT_EQ(alice.body, json({{"accountId", "acc_alice"}, {"balance", 250}, {"balanceCents", 25000}, {"currency", "USD"}}));
  EXPECT_EQ(server.Get("/_sim/wallet", kBobKey).body["balance"], 40);
}

TEST(SimWallet, MissingOrWrongKeyIs401InTheSpecShape) {
  TestServer server;
  auto none = server.Get("/_sim/wallet", "");
  EXPECT_ERROR_WITH_ID(server, none, 401);
  EXPECT_ERROR_WITH_ID(server, server.Get("/_sim/wallet", "emsim_test_nobody"), 401);
  EXPECT_ERROR_WITH_ID(server, server.Put("/_sim/wallet", {{"balance", 1}}, ""), 401);
  EXPECT_ERROR_WITH_ID(server, server.Put("/_sim/wallet", {{"balance", 1}}, "emsim_test_nobody"), 401);
  EXPECT_EQ(WalletCents(server), 25000);
}

TEST(SimWallet, SetsTheBalanceInWholeDollarsOrCents) {
  TestServer server;
  auto r = server.Put("/_sim/wallet", {{"balance", 1000}}, kBobKey);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["balance"], 1000);
  EXPECT_EQ(WalletCents(server, kBobKey), 100000);
  EXPECT_EQ(WalletCents(server), 25000);  // only Bob's
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balanceCents", 1234}}, kBobKey).status, 200);
  EXPECT_EQ(server.Get("/_sim/wallet", kBobKey).body["balance"], 12);
  EXPECT_EQ(WalletCents(server, kBobKey), 1234);
  // The public API sees it: a $2 test now costs from 12.34.
  auto buy = server.Post("/v2/placement-tests/purchase",
                         {{"placementType", "ONE_TIME"}, {"testName", "t"}, {"mailboxIds", {"mbx_lu_01_01"}}}, kBobKey);
  EXPECT_EQ(buy.body["data"]["walletBalance"], json({{"previousBalance", 12}, {"amountDeducted", 2}, {"currentBalance", 10}}));
}

TEST(SimWallet, RejectsBadBalancesAndChangesNothing) {
  TestServer server;
  EXPECT_VALIDATION_ERROR(server, server.Put("/_sim/wallet", {{"balance", -1}}, kAliceKey), "balance");
  EXPECT_VALIDATION_ERROR(server, server.Put("/_sim/wallet", {{"balance", 1.5}}, kAliceKey), "balance");
  EXPECT_VALIDATION_ERROR(server, server.Put("/_sim/wallet", {{"balance", "10"}}, kAliceKey), "balance");
  EXPECT_VALIDATION_ERROR(server, server.Put("/_sim/wallet", {{"balance", 2000000000}}, kAliceKey), "balance");
  EXPECT_VALIDATION_ERROR(server, server.Put("/_sim/wallet", {{"balance", 1}, {"balanceCents", 100}}, kAliceKey), "body");
  EXPECT_VALIDATION_ERROR(server, server.Put("/_sim/wallet", json::object(), kAliceKey), "body");
  EXPECT_EQ(WalletCents(server), 25000);
}

TEST(SimWallet, ResetRestoresTheFixtureWalletAndDumpLoadKeepsMoneyRecords) {
  TestServer server;
  auto buy = server.Post("/v2/placement-tests/purchase",
                         {{"placementType", "ONE_TIME"}, {"testName", "t"}, {"mailboxIds", {"mbx_nw_01_01"}}});
  ASSERT_EQ(buy.status, 200) << buy.raw;
  const std::string invoice_path = "/_sim/invoices/" + buy.body["data"]["invoice"]["invoiceId"].get<std::string>();
  const json dump = server.Get("/_sim/state?secrets=true", "").body;
  EXPECT_EQ(dump["placementCarts"].size(), 1u);
  EXPECT_EQ(dump["placementTests"].size(), 1u);
  EXPECT_EQ(dump["invoices"].size(), 1u);

  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(WalletCents(server), 25000);
  EXPECT_ERROR_WITH_ID(server, server.Get(invoice_path, ""), 404);

  ASSERT_EQ(server.Put("/_sim/state", dump).status, 200);
  EXPECT_EQ(WalletCents(server), 24800);
  EXPECT_EQ(server.Get(invoice_path, "").status, 200);
  // The pending step survived the dump too: the order still completes.
  server.Advance("16m");
  EXPECT_EQ(server.svc().store.Read([](const model::State& s) { return s.placementTests.begin()->status; }),
            model::PlacementTestStatus::kCompleted);
}

TEST(SimWallet, TheLedgerRecordsEveryMovementWithWhatWasPaidAndTheChainAddsUp) {
  TestServer server;
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balanceCents", 30000}}, kAliceKey).status, 200);
  auto buy = server.Post("/v2/placement-tests/purchase",
                         {{"placementType", "ONE_TIME"}, {"testName", "t"}, {"mailboxIds", {"mbx_nw_01_01", "mbx_nw_01_02"}}});
  ASSERT_EQ(buy.status, 200) << buy.raw;
  auto domain = server.Post("/v1/domain/buy-domain", {{"domainName", "brightpostmail.com"}, {"useWallet", true}});
  ASSERT_EQ(domain.status, 200) << domain.raw;
  // A MONTHLY purchase uses credits: no movement.
  ASSERT_EQ(server.Post("/v2/placement-tests/purchase",
                        {{"placementType", "MONTHLY"}, {"testName", "m"}, {"mailboxIds", {"mbx_nw_01_03"}}})
                .status,
            200);
  auto r = server.Get("/_sim/wallet/movements", kAliceKey);
  ASSERT_EQ(r.status, 200) << r.raw;
  const json& moves = r.body["movements"];
  ASSERT_EQ(moves.size(), 3u) << r.raw;
  EXPECT_EQ(moves[0]["reason"], "set");
  EXPECT_EQ(moves[0]["amountCents"], 5000);
  EXPECT_EQ(moves[0]["reference"], nullptr);
  EXPECT_EQ(moves[1]["reason"], "placement_tests");
  EXPECT_EQ(moves[1]["amountCents"], -400);
  EXPECT_EQ(moves[1]["reference"], buy.body["data"]["cartOrderId"]);
  EXPECT_EQ(moves[2]["reason"], "domain_purchase");
  EXPECT_EQ(moves[2]["amountCents"], -1299);
  EXPECT_EQ(moves[2]["createdAt"], FixtureTimeIso(0));
  std::int64_t balance = moves[0]["balanceCents"].get<std::int64_t>() - moves[0]["amountCents"].get<std::int64_t>();
  EXPECT_EQ(balance, 25000);  // the fixture's wallet
  for (const auto& m : moves) {
    balance += m["amountCents"].get<std::int64_t>();
    EXPECT_EQ(m["balanceCents"], balance);
  }
  EXPECT_EQ(r.body["balanceCents"], balance);
  EXPECT_EQ(WalletCents(server), balance);
  // Only the caller's account; `limit` keeps the newest.
  EXPECT_EQ(server.Get("/_sim/wallet/movements", kBobKey).body["movements"], json::array());
  auto last = server.Get("/_sim/wallet/movements?limit=1", kAliceKey);
  ASSERT_EQ(last.body["movements"].size(), 1u);
  EXPECT_EQ(last.body["movements"][0]["reason"], "domain_purchase");
  EXPECT_ERROR_WITH_ID(server, server.Get("/_sim/wallet/movements", "emsim_test_nobody"), 401);
  EXPECT_EQ(server.Get("/_sim/wallet/movements?limit=lots", kAliceKey).status, 400);
  // Dump and load keep the ledger; reset goes back to the fixture's, which has none.
  const json dump = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(dump["walletMovements"].size(), 3u);
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(server.Get("/_sim/wallet/movements", kAliceKey).body["movements"], json::array());
  ASSERT_EQ(server.Put("/_sim/state", dump, "").status, 200);
  EXPECT_EQ(server.Get("/_sim/wallet/movements", kAliceKey).body["movements"], moves);
}

}  // namespace
}  // namespace emsim::testing
