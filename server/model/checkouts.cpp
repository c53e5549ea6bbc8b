#include "model/checkouts.hpp"

#include "model/domain_purchase.hpp"
#include "model/placement_tests.hpp"
#include "model/wallet.hpp"

namespace emsim::model {

PaidWith PayFromWallet(State& s, Account& account, Cents amount, std::string_view reason, Millis now, bool use_wallet) {
  return use_wallet && TryDebitWallet(s, account, amount, reason, now) ? PaidWith::kWallet : PaidWith::kUnpaid;
}

void MarkPaid(Checkout& c, PaidWith how, Millis now) {
  c.status = CheckoutStatus::kPaid;
  c.paidWith = how;
  c.paidAt = now;
}

void MarkPaid(PlacementCart& cart, Millis now) {
  cart.status = CartStatus::kPaid;
  cart.paidAt = now;
}

void MarkPaid(Invoice& invoice, PaidWith how, Millis now) {
  invoice.status = InvoiceStatus::kPaid;
  invoice.paidWith = how;
  invoice.paidAt = now;
}

namespace {

// Paying a checkout twice is the client's mistake, named like every path parameter (Part 7).
Error AlreadyPaid(const std::string& what, const std::string& id, std::optional<Millis> paid_at) {
  return Error::Validation("id", what + " " + id + " was already paid (" + FormatIso(paid_at.value_or(0)) + ")",
                           "path");
}

}  // namespace

Result<const Checkout*> FindDomainCheckout(const State& s, const std::string& id) {
  const Checkout* c = s.checkouts.Find(id);
  if (!c) return Error::NotFound("Checkout " + id + " not found");
  return c;
}

Result<const Checkout*> CompleteDomainCheckout(State& s, const std::string& id, Millis now) {
  Checkout* c = s.checkouts.Edit(id);
  if (!c) return Error::NotFound("Checkout " + id + " not found");
  if (c->status != CheckoutStatus::kPending) return AlreadyPaid("Checkout", id, c->paidAt);
  if (c->purpose == kCheckoutForWallet) {  // wallet.add_balance: paying it credits the wallet
    Account* account = s.accounts.Edit(c->accountId);
    if (!account) return Error::Internal("checkout's account is missing");
    MarkPaid(*c, PaidWith::kCheckout, now);
    CreditWalletTopUp(s, *account, *c, now);
    return c;
  }
  if (IsTaken(s, c->domainName))
    return Error::Validation("domainName", c->domainName + " has been registered since this checkout was opened; "
                                           "it can no longer be bought");
  if (!s.workspaces.Contains(c->workspaceId)) return Error::Internal("checkout's workspace is missing");
  MarkPaid(*c, PaidWith::kCheckout, now);
  c->domainId = CreateBoughtDomain(s, *c, now).id;
  return c;
}

Result<const PlacementCart*> FindPlacementCheckout(const State& s, const std::string& cart_order_id) {
  const PlacementCart* cart = s.placementCarts.Find(cart_order_id);
  // A cart paid at once (wallet, credits) never had a checkout.
  if (!cart || !cart->checkoutSession) return Error::NotFound("Placement checkout " + cart_order_id + " not found");
  return cart;
}

Result<PlacementCart> CompletePlacementCheckout(State& s, const std::string& cart_order_id, Millis now) {
  auto found = FindPlacementCheckout(s, cart_order_id);
  if (!found) return found.error();
  PlacementCart& cart = *s.placementCarts.Edit(cart_order_id);
  if (cart.status != CartStatus::kAwaitingPayment) return AlreadyPaid("Placement checkout", cart_order_id, cart.paidAt);
  MarkPaid(cart, now);
  if (Invoice* inv = s.invoices.Edit(cart.invoiceId)) MarkPaid(*inv, PaidWith::kCheckout, now);
  StartPaidPlacementTests(s, cart, now);
  return cart;
}

}  // namespace emsim::model
