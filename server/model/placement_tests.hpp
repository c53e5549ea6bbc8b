#pragma once
// Part 4.7 placement tests: one purchase (a cart) runs one test order per mailbox.
//
// Payment (Part 4.7, Part 8, DESIGN.md gap table):
//   MONTHLY   1 credit per mailbox from the account's ACTIVE subscriptions, those whose period
//             ends first used first (ties: creation order), split across subscriptions when
//             needed; not enough credits in total: 400 naming placementType. totalCost 0, no
//             wallet change, a $0 invoice PAID with CREDITS.
//   ONE_TIME  $2 per mailbox from the account wallet, debited atomically with its check. Too
//             small a wallet: nothing deducted, the cart waits for payment at a checkout
//             (AWAITING_PAYMENT, invoice OPEN) until it is completed (model/checkouts.hpp).
//
// Test order statuses (model/statuses.hpp): AWAITING_PAYMENT (checkout not paid) -> PENDING
// (paid, queued) -> RUNNING after `placementTestRunningSeconds` -> COMPLETED after a further
// `placementTestCompletedSeconds`. Each change emits placement_test.status_changed.
#include <string>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

inline constexpr Cents kOneTimePlacementCentsPerMailbox = 200;  // Part 8: 2 dollars per mailbox
inline constexpr const char* kPlacementAdvanceJob = "placement_tests.advance";

struct PlacementRequest {
  std::string placementType, testName;
  std::vector<std::string> mailboxIds;
};

// What the purchase's answer shows (Part 4.7), copied out of the records: the answer is written
// after the store's lock is released. These fields only: copying the whole cart, invoice and
// orders was a visible share of the purchase under the write lock.
struct PlacementReceipt {
  // CompactStrings as in the records: a copy is two words (and a count), not an allocation.
  struct Order {
    CompactString id, mailboxEmail;
    PlacementTestStatus status = PlacementTestStatus::kPending;
  };
  CompactString cartOrderId;
  std::string testName;
  CompactString placementType;
  bool checkoutSession = false, walletUsed = false;
  Cents totalCostCents = 0;
  CompactString invoiceId, currency;
  InvoiceStatus invoiceStatus = InvoiceStatus::kOpen;
  std::vector<Order> orders;
  Cents walletBefore = 0, walletAfter = 0;
  Millis estimatedCompletion = 0;
};

// Validates everything before changing anything: placementType MONTHLY|ONE_TIME (400
// placementType), mailboxIds each once and each a mailbox of the caller's workspace (400
// mailboxIds naming the offenders), then pays and creates the orders.
Result<PlacementReceipt> PurchasePlacementTests(State& s, const Caller& caller, const PlacementRequest& request,
                                                Millis now);

// What a cart's completed checkout starts (model/checkouts.hpp): its AWAITING_PAYMENT orders move
// to PENDING and their first step is scheduled.
void StartPaidPlacementTests(State& s, const PlacementCart& cart, Millis now);

// The scheduler job (args {cartOrderId, status}): moves the cart's orders one step to `status`
// (RUNNING or COMPLETED), emits an event per order, and schedules the next step.
void AdvancePlacementTests(State& s, const json& args, Millis now);

}  // namespace emsim::model
