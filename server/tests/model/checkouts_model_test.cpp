// The one checkout flow (model/checkouts.hpp) and the status tables (model/statuses.hpp), tested
// on a state dump written by emsim before both existed: such dumps must keep loading, dump back to
// the same document, and their open checkouts must still complete. No sockets.
#include <gtest/gtest.h>

#include <fstream>

#include "model/checkouts.hpp"
#include "model/invoices.hpp"

namespace emsim::model {
namespace {

// GET /_sim/state?secrets=true of an emsim built before the one checkout flow (manual clock; two
// domain purchases paid (wallet, checkout) and one left open; placement carts paid with credits,
// the wallet and a checkout, and one left open; a DNS shield upgrade paid by card; exports
// STARTED and COMPLETED; deliveries succeeded, failed and dropped).
json DumpFromBefore() {
  std::ifstream in(std::string(EMSIM_SOURCE_DIR) + "/server/tests/model/data/state-before-one-checkout.json");
  json j = json::parse(in);
  j.erase("clock");  // the control plane's part of the dump, not State's
  return j;
}

constexpr const char* kOpenDomainCheckout = "chk_34fa0a8b-6c8a-429b-a90a-4ab3e9d32b16";
constexpr const char* kOpenCart = "a26da93c-23c8-4250-8380-0488a247a14e";
constexpr const char* kOpenCartInvoice = "d7fcd02d-97e1-40df-97e6-09875b839a97";
constexpr const char* kCardInvoice = "4f2ea426-fa5c-4a2f-9b29-a7ea1191668f";
constexpr Millis kLater = 1767258200000;

TEST(CheckoutsModel, AStateDumpWrittenBeforeTheOneCheckoutFlowLoadsAndDumpsTheSame) {
  const json before = DumpFromBefore();
  State s = LoadState(before);
  EXPECT_EQ(DumpState(s), before);

  // The words of the dump became the enums' values.
  EXPECT_EQ(s.checkouts.Find(kOpenDomainCheckout)->status, CheckoutStatus::kPending);
  EXPECT_EQ(s.checkouts.Find(kOpenDomainCheckout)->paidWith, PaidWith::kUnpaid);
  EXPECT_EQ(s.placementCarts.Find(kOpenCart)->status, CartStatus::kAwaitingPayment);
  EXPECT_EQ(s.invoices.Find(kOpenCartInvoice)->status, InvoiceStatus::kOpen);
  EXPECT_EQ(s.invoices.Find(kCardInvoice)->paidWith, PaidWith::kCard);
  std::map<PaidWith, int> paid_with;
  for (const auto& inv : s.invoices) ++paid_with[inv.paidWith];
  EXPECT_EQ(paid_with, (std::map<PaidWith, int>{{PaidWith::kUnpaid, 1}, {PaidWith::kWallet, 1},
                                                {PaidWith::kCredits, 2}, {PaidWith::kCard, 1},
                                                {PaidWith::kCheckout, 1}}));
  std::map<DeliveryStatus, int> outcomes;
  for (const auto& d : s.deliveries) ++outcomes[d.status];
  EXPECT_EQ(outcomes, (std::map<DeliveryStatus, int>{
                          {DeliveryStatus::kSucceeded, 4}, {DeliveryStatus::kFailed, 3}, {DeliveryStatus::kDropped, 3}}));
  std::vector<ExportStatus> exports;
  for (const auto& x : s.exports) exports.push_back(x.status);
  EXPECT_EQ(exports, (std::vector<ExportStatus>{ExportStatus::kCompleted, ExportStatus::kStarted}));
}

TEST(CheckoutsModel, TheOpenCheckoutsOfAnOldDumpCompleteOnceEach) {
  State s = LoadState(DumpFromBefore());
  const size_t domains = s.domains.size();

  auto domain = CompleteDomainCheckout(s, kOpenDomainCheckout, kLater);
  ASSERT_TRUE(domain.ok()) << domain.error().message;
  EXPECT_EQ((*domain)->status, CheckoutStatus::kPaid);
  EXPECT_EQ((*domain)->paidWith, PaidWith::kCheckout);
  EXPECT_EQ((*domain)->paidAt, kLater);
  ASSERT_TRUE((*domain)->domainId);
  EXPECT_EQ(s.domains.Find(*(*domain)->domainId)->domain, "leftopen.com");
  EXPECT_EQ(s.domains.size(), domains + 1);

  auto cart = CompletePlacementCheckout(s, kOpenCart, kLater);
  ASSERT_TRUE(cart.ok()) << cart.error().message;
  EXPECT_EQ(cart->status, CartStatus::kPaid);
  const Invoice& invoice = *s.invoices.Find(kOpenCartInvoice);
  EXPECT_EQ(invoice.status, InvoiceStatus::kPaid);
  EXPECT_EQ(invoice.paidWith, PaidWith::kCheckout);
  EXPECT_EQ(s.placementTests.Find(cart->orderIds.at(0))->status, PlacementTestStatus::kPending);

  // Paid twice: the client's mistake, the same 400 from both flows, naming the id in the path;
  // nothing changes.
  const json paid = DumpState(s);
  for (const auto& again : {CompleteDomainCheckout(s, kOpenDomainCheckout, kLater + 1).error(),
                            CompletePlacementCheckout(s, kOpenCart, kLater + 1).error()}) {
    EXPECT_EQ(again.code, ErrorCode::kValidation);
    ASSERT_EQ(again.errors.size(), 1u);
    EXPECT_EQ(again.errors[0].param, "id");
    EXPECT_EQ(again.errors[0].location, "path");
    EXPECT_NE(again.errors[0].msg.find("was already paid (2026-01-01T09:03:20.000Z)"), std::string::npos)
        << again.errors[0].msg;
  }
  EXPECT_EQ(DumpState(s), paid);
  // A cart paid at once never had a checkout.
  EXPECT_EQ(CompletePlacementCheckout(s, "3ea7e73b-9a85-4de2-8df3-d35eb08c1dc5", kLater).error().code,
            ErrorCode::kNotFound);
  EXPECT_EQ(FindDomainCheckout(s, "chk_nope").error().code, ErrorCode::kNotFound);
}

TEST(CheckoutsModel, AStatusNoTableNamesIsRefusedWhenAStateLoads) {
  json dump = DumpFromBefore();
  dump["invoices"][0]["status"] = "SETTLED";
  try {
    LoadState(dump);
    FAIL() << "a dump with an unknown invoice status loaded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("SETTLED"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("OPEN or PAID"), std::string::npos) << e.what();
  }
  dump = DumpFromBefore();
  dump["checkouts"][0]["paidWith"] = "CASH";
  EXPECT_THROW(LoadState(dump), std::exception);
}

TEST(CheckoutsModel, AWalletPaysOnlyWhenAllowedAndLargeEnough) {
  State s;
  Account a;
  a.walletCents = 500;
  EXPECT_EQ(PayFromWallet(s, a, 300, "domain_purchase", 0, /*use_wallet=*/false), PaidWith::kUnpaid);
  EXPECT_EQ(a.walletCents, 500);
  EXPECT_EQ(PayFromWallet(s, a, 600, "domain_purchase", 0), PaidWith::kUnpaid);  // too small: a checkout opens, nothing moves
  EXPECT_EQ(a.walletCents, 500);
  EXPECT_EQ(s.walletMovements.size(), 0u);
  EXPECT_EQ(PayFromWallet(s, a, 500, "domain_purchase", 0), PaidWith::kWallet);
  EXPECT_EQ(a.walletCents, 0);
  EXPECT_EQ(s.walletMovements.size(), 1u);
}

}  // namespace
}  // namespace emsim::model
