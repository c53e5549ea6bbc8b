#pragma once
// The one checkout flow: a payment a client completes or abandons, whatever it pays for.
//
// A purchase pays at once when it can (the wallet, MONTHLY credits) or opens a checkout whose link
// stands in for the payment page. Completing the checkout (POST <link>/complete) is the client
// paying: the record goes from open to paid once, PaidWith::kCheckout, its invoice with it, and
// what was bought is delivered. A checkout never completed is abandoned: nothing was deducted,
// nothing expires, it stays open.
//
// Three purchases go through it, each keeping its record, its route and its JSON (DESIGN.md: the
// control plane's paths and fields are a contract, and state dumps keep loading):
//   domains.buy               State::checkouts       /_sim/checkout/:id             Part 4.4 paymentLink
//   wallet.add_balance        State::checkouts       /_sim/checkout/:id             paymentLink (public reference)
//   placement_tests.purchase  State::placementCarts  /_sim/placement-checkouts/:id  Part 4.7 checkoutUrl
// Invoices (model/invoices.hpp) record what was charged, paid with the same PaidWith.
#include <string>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Pays `amount` from the account's wallet when `use_wallet` and the balance covers it, the check
// and the debit in one step (the caller holds the store's write lock): kWallet. Otherwise nothing
// moves and the answer is kUnpaid: the purchase opens a checkout.
PaidWith PayFromWallet(State& s, Account& account, Cents amount, std::string_view reason, Millis now,
                       bool use_wallet = true);

// The one transition of every record that waits for a payment: open -> paid, at `now`.
void MarkPaid(Checkout& c, PaidWith how, Millis now);
void MarkPaid(PlacementCart& cart, Millis now);
void MarkPaid(Invoice& invoice, PaidWith how, Millis now);

// GET /_sim/checkout/:id. Unknown id: 404.
Result<const Checkout*> FindDomainCheckout(const State& s, const std::string& id);
// POST /_sim/checkout/:id/complete: pays an open domain checkout, and the domain is created as a
// wallet purchase creates it (model/domain_purchase.hpp); a wallet top-up checkout credits the
// wallet instead (model/wallet.hpp). Unknown id: 404. Already paid: 400
// naming id. Name taken in the meantime: 400 naming domainName (the checkout stays open).
Result<const Checkout*> CompleteDomainCheckout(State& s, const std::string& id, Millis now);

// GET /_sim/placement-checkouts/:id. Unknown cart, or one paid without a checkout: 404.
Result<const PlacementCart*> FindPlacementCheckout(const State& s, const std::string& cart_order_id);
// POST /_sim/placement-checkouts/:id/complete: pays an AWAITING_PAYMENT cart and its invoice;
// its orders start (model/placement_tests.hpp). Errors as FindPlacementCheckout; already paid:
// 400 naming id.
Result<PlacementCart> CompletePlacementCheckout(State& s, const std::string& cart_order_id, Millis now);

}  // namespace emsim::model
