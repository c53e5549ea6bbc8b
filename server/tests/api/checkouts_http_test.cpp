// The checkout routes of the control plane (api/control/checkouts.cpp) over HTTP, on a state dump
// written by emsim before the one checkout flow: PUT /_sim/state takes it, and its checkouts and
// invoices answer with the fields and words they always had.
#include <fstream>

#include "tests/support/billing_test_util.hpp"

namespace emsim::testing {
namespace {

json DumpFromBefore() {
  std::ifstream in(std::string(EMSIM_SOURCE_DIR) + "/server/tests/model/data/state-before-one-checkout.json");
  return json::parse(in);
}

TEST(SimCheckouts, AnOldDumpLoadsAndItsCheckoutsAnswerAsBefore) {
  TestServer server;
  const json before = DumpFromBefore();
  auto put = server.Put("/_sim/state", before);
  ASSERT_EQ(put.status, 200) << put.raw;
  auto dump = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(dump.status, 200);
  EXPECT_EQ(dump.body, before);

  auto domain = server.Get("/_sim/checkout/chk_34fa0a8b-6c8a-429b-a90a-4ab3e9d32b16", "");
  ASSERT_EQ(domain.status, 200) << domain.raw;
  EXPECT_EQ(domain.body["status"], "PENDING");
  EXPECT_EQ(domain.body["paidWith"], nullptr);
  EXPECT_EQ(server.Get("/_sim/checkout/chk_c373b2e3-022d-4079-b243-4d5c4e19eda9", "").body["paidWith"], "WALLET");

  const std::string cart = "/_sim/placement-checkouts/a26da93c-23c8-4250-8380-0488a247a14e";
  auto open = server.Get(cart, "");
  ASSERT_EQ(open.status, 200) << open.raw;
  EXPECT_EQ(open.body["status"], "AWAITING_PAYMENT");
  auto invoice = server.Get("/_sim/invoices/" + open.body["invoiceId"].get<std::string>(), "");
  EXPECT_EQ(invoice.body["status"], "OPEN");
  EXPECT_EQ(invoice.body["paidWith"], nullptr);
  EXPECT_EQ(server.Get("/_sim/invoices/4f2ea426-fa5c-4a2f-9b29-a7ea1191668f", "").body["paidWith"], "CARD");

  // Completed now, with the same answers as a checkout opened by this build.
  auto paid = server.Post(cart + "/complete", json::object(), "");
  ASSERT_EQ(paid.status, 200) << paid.raw;
  EXPECT_EQ(paid.body["status"], "PAID");
  invoice = server.Get("/_sim/invoices/" + open.body["invoiceId"].get<std::string>(), "");
  EXPECT_EQ(invoice.body["status"], "PAID");
  EXPECT_EQ(invoice.body["paidWith"], "CHECKOUT");
  auto again = server.Post(cart + "/complete", json::object(), "");
  EXPECT_EQ(again.status, 400) << again.raw;
  EXPECT_EQ(again.body["errors"][0]["param"], "id");
  auto domain_paid = server.Post("/_sim/checkout/chk_34fa0a8b-6c8a-429b-a90a-4ab3e9d32b16/complete", json::object(), "");
  ASSERT_EQ(domain_paid.status, 200) << domain_paid.raw;
  EXPECT_EQ(domain_paid.body["checkout"]["paidWith"], "CHECKOUT");
  EXPECT_EQ(domain_paid.body["domain"]["domain"], "leftopen.com");
  EXPECT_EQ(domain_paid.body["domain"]["status"], "PENDING");
}

}  // namespace
}  // namespace emsim::testing
