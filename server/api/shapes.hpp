#pragma once
// Records in the exact shapes of Part 2. Numeric-text fields (domainCount, mailboxCount,
// assignedMailboxesCount) are strings there, and so they are here.
#include "core/json_out.hpp"
#include "app/types.hpp"
#include "model/domain_purchase.hpp"
#include "core/json.hpp"
#include "model/payloads.hpp"
#include "model/state.hpp"

namespace emsim::api {

// The Part 2 mailbox and subscription records are built by the model (model/payloads), which
// also needs them for event payloads.
using model::MailboxRecord;
using model::SubscriptionRecord;

json BillingRecord(const model::BillingDetails& b);
json WorkspaceRecord(const model::Workspace& w, std::int64_t domain_count, std::int64_t mailbox_count);
json DomainListRecord(const model::State& s, const model::Domain& d);
json AvailableDomainRecord(const model::AvailableDomain& a);  // Part 2 "Available domain"
json DnsCheckRecord(const model::Domain& d);                   // Part 2 "DNS check result"
json CheckoutRecord(const model::Checkout& c, const std::string& url);  // GET /_sim/checkout/:id
json EmailSummaryRecord(const model::Email& e);  // Part 2 "Email message summary"
json OptionalTime(model::Millis t);  // 0 -> null
json DnsShieldSlotRecord(const model::DnsShieldSubscription& d);    // Part 2 DNS shield slot record
// Where emsim serves what it links to (invoices and placement checkouts live under /_sim).
std::string InvoiceUrl(const std::string& base_url, const std::string& invoice_id);
std::string PlacementCheckoutUrl(const std::string& base_url, const std::string& cart_order_id);
// Part 2 "Webhook endpoint" plus id and timestamps; the secret only when asked (at creation).
json WebhookEndpointRecord(const model::WebhookEndpoint& e, bool with_secret);

// The same records written straight as text (api/json_out.hpp) for the list endpoints: each
// gives exactly the bytes of the matching function above, dumped.
void WriteBillingRecord(core::JsonOut& w, const model::BillingDetails& b);
void WriteWorkspaceRecord(core::JsonOut& w, const model::Workspace& ws, std::int64_t domain_count, std::int64_t mailbox_count);
void WriteDomainListRecord(core::JsonOut& w, const model::State& s, const model::Domain& d);
void WriteMailboxRecord(core::JsonOut& w, const model::State& s, const model::Mailbox& m);
// Closes a text-written 200 envelope whose `data` is already written: adds message and status
// (the keys after `data` in nlohmann's sorted order) and answers the bytes as the response.
http::Response FinishTextEnvelope(core::JsonOut& w);

}  // namespace emsim::api
