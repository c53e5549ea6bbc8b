#pragma once
// The statuses of the records in model/state.hpp (and how a payment was made): enums, each with one
// table of its wire names (core/enum_names.hpp), in the order error messages list them. The model
// compares the values; API answers, event payloads, state dumps and fixtures write and read the
// names through the tables, so each name is spelled here and nowhere else.
#include <span>

#include "core/enum_names.hpp"

namespace emsim::model {

// Part 2 domain status: a bought domain moves PENDING -> CONNECTED -> ACTIVE.
enum class DomainStatus { kActive, kConnected, kPending };
inline constexpr core::EnumName<DomainStatus> kDomainStatusNames[] = {
    {DomainStatus::kActive, "ACTIVE"}, {DomainStatus::kConnected, "CONNECTED"}, {DomainStatus::kPending, "PENDING"}};
constexpr std::span<const core::EnumName<DomainStatus>> EnumNames(DomainStatus) { return kDomainStatusNames; }
EMSIM_ENUM_JSON(DomainStatus)

// Part 2 mailbox status; only ACTIVE mailboxes count as active in the list totals.
enum class MailboxStatus { kActive, kInProgress, kInactive };
inline constexpr core::EnumName<MailboxStatus> kMailboxStatusNames[] = {{MailboxStatus::kActive, "ACTIVE"},
                                                                        {MailboxStatus::kInProgress, "IN_PROGRESS"},
                                                                        {MailboxStatus::kInactive, "INACTIVE"}};
constexpr std::span<const core::EnumName<MailboxStatus>> EnumNames(MailboxStatus) { return kMailboxStatusNames; }
EMSIM_ENUM_JSON(MailboxStatus)

// Part 2 subscription status; a cancelled subscription cannot be upgraded.
enum class SubscriptionStatus { kActive, kCancelled };
inline constexpr core::EnumName<SubscriptionStatus> kSubscriptionStatusNames[] = {
    {SubscriptionStatus::kActive, "ACTIVE"}, {SubscriptionStatus::kCancelled, "CANCELLED"}};
constexpr std::span<const core::EnumName<SubscriptionStatus>> EnumNames(SubscriptionStatus) {
  return kSubscriptionStatusNames;
}
EMSIM_ENUM_JSON(SubscriptionStatus)

// The checkout flow (model/checkouts.hpp): how a purchase was paid, one vocabulary for every
// record that says it. kUnpaid is "" on the wire: the state dump has always written it so.
enum class PaidWith { kUnpaid, kWallet, kCredits, kCard, kCheckout };
inline constexpr core::EnumName<PaidWith> kPaidWithNames[] = {{PaidWith::kUnpaid, ""},
                                                              {PaidWith::kWallet, "WALLET"},
                                                              {PaidWith::kCredits, "CREDITS"},
                                                              {PaidWith::kCard, "CARD"},
                                                              {PaidWith::kCheckout, "CHECKOUT"}};
constexpr std::span<const core::EnumName<PaidWith>> EnumNames(PaidWith) { return kPaidWithNames; }
EMSIM_ENUM_JSON(PaidWith)

// The status of each record that waits for a payment, in the words its JSON has always used; each
// goes from its first value to kPaid, once (model/checkouts.hpp).
// A domain purchase's checkout (GET /_sim/checkout/:id): PENDING until paid.
enum class CheckoutStatus { kPending, kPaid };
inline constexpr core::EnumName<CheckoutStatus> kCheckoutStatusNames[] = {{CheckoutStatus::kPending, "PENDING"},
                                                                          {CheckoutStatus::kPaid, "PAID"}};
constexpr std::span<const core::EnumName<CheckoutStatus>> EnumNames(CheckoutStatus) { return kCheckoutStatusNames; }
EMSIM_ENUM_JSON(CheckoutStatus)

// A placement cart (GET /_sim/placement-checkouts/:id): AWAITING_PAYMENT (ONE_TIME with too small a
// wallet) until its checkout is completed.
enum class CartStatus { kAwaitingPayment, kPaid };
inline constexpr core::EnumName<CartStatus> kCartStatusNames[] = {{CartStatus::kAwaitingPayment, "AWAITING_PAYMENT"},
                                                                  {CartStatus::kPaid, "PAID"}};
constexpr std::span<const core::EnumName<CartStatus>> EnumNames(CartStatus) { return kCartStatusNames; }
EMSIM_ENUM_JSON(CartStatus)

// An invoice (GET /_sim/invoices/:id): OPEN until paid.
enum class InvoiceStatus { kOpen, kPaid };
inline constexpr core::EnumName<InvoiceStatus> kInvoiceStatusNames[] = {{InvoiceStatus::kOpen, "OPEN"},
                                                                        {InvoiceStatus::kPaid, "PAID"}};
constexpr std::span<const core::EnumName<InvoiceStatus>> EnumNames(InvoiceStatus) { return kInvoiceStatusNames; }
EMSIM_ENUM_JSON(InvoiceStatus)

// A placement test order (gap decision; Part 3 shows none): AWAITING_PAYMENT (checkout not paid) ->
// PENDING (paid, queued) -> RUNNING -> COMPLETED, moved by the scheduler.
enum class PlacementTestStatus { kAwaitingPayment, kPending, kRunning, kCompleted };
inline constexpr core::EnumName<PlacementTestStatus> kPlacementTestStatusNames[] = {
    {PlacementTestStatus::kAwaitingPayment, "AWAITING_PAYMENT"},
    {PlacementTestStatus::kPending, "PENDING"},
    {PlacementTestStatus::kRunning, "RUNNING"},
    {PlacementTestStatus::kCompleted, "COMPLETED"}};
constexpr std::span<const core::EnumName<PlacementTestStatus>> EnumNames(PlacementTestStatus) {
  return kPlacementTestStatusNames;
}
EMSIM_ENUM_JSON(PlacementTestStatus)

// An export of mailboxes (Part 4.5) STARTED -> COMPLETED | FAILED; each app's result is one of the two.
enum class ExportStatus { kStarted, kCompleted, kFailed };
inline constexpr core::EnumName<ExportStatus> kExportStatusNames[] = {
    {ExportStatus::kStarted, "STARTED"}, {ExportStatus::kCompleted, "COMPLETED"}, {ExportStatus::kFailed, "FAILED"}};
constexpr std::span<const core::EnumName<ExportStatus>> EnumNames(ExportStatus) { return kExportStatusNames; }
EMSIM_ENUM_JSON(ExportStatus)

// A webhook delivery attempt (GET /_sim/deliveries): made (succeeded | failed) or dropped (its
// endpoint was disabled) are recorded; scheduled | in_flight are the attempts still to be made,
// shown from their jobs.
enum class DeliveryStatus { kSucceeded, kFailed, kDropped, kScheduled, kInFlight };
inline constexpr core::EnumName<DeliveryStatus> kDeliveryStatusNames[] = {{DeliveryStatus::kSucceeded, "succeeded"},
                                                                          {DeliveryStatus::kFailed, "failed"},
                                                                          {DeliveryStatus::kDropped, "dropped"},
                                                                          {DeliveryStatus::kScheduled, "scheduled"},
                                                                          {DeliveryStatus::kInFlight, "in_flight"}};
constexpr std::span<const core::EnumName<DeliveryStatus>> EnumNames(DeliveryStatus) { return kDeliveryStatusNames; }
EMSIM_ENUM_JSON(DeliveryStatus)

// Part 3 webhook endpoint status: disabled after 20 failures in a row, or by PATCH.
enum class WebhookEndpointStatus { kActive, kDisabled };
inline constexpr core::EnumName<WebhookEndpointStatus> kWebhookEndpointStatusNames[] = {
    {WebhookEndpointStatus::kActive, "active"}, {WebhookEndpointStatus::kDisabled, "disabled"}};
constexpr std::span<const core::EnumName<WebhookEndpointStatus>> EnumNames(WebhookEndpointStatus) {
  return kWebhookEndpointStatusNames;
}
EMSIM_ENUM_JSON(WebhookEndpointStatus)

}  // namespace emsim::model
