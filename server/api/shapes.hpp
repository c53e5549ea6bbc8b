#pragma once
// Records in the exact shapes of Part 2 that only the API answers (those that events embed too,
// or that lists write as text, are in model/records and model/payloads).
#include "core/json_out.hpp"
#include "app/types.hpp"
#include "model/domain_purchase.hpp"
#include "core/json.hpp"
#include "model/payloads.hpp"
#include "model/records.hpp"
#include "model/state.hpp"

namespace emsim::api {

using model::DomainListRecord;
using model::MailboxRecord;
using model::SubscriptionRecord;
using model::WorkspaceRecord;
using model::WriteDomainListRecord;
using model::WriteMailboxRecord;
using model::WriteWorkspaceRecord;

json AvailableDomainRecord(const model::AvailableDomain& a);  // Part 2 "Available domain"
json DnsCheckRecord(const model::Domain& d);                   // Part 2 "DNS check result"
json CheckoutRecord(const model::Checkout& c, const std::string& url);  // GET /_sim/checkout/:id
json EmailSummaryRecord(const model::Email& e);  // Part 2 "Email message summary"
json OptionalTime(model::Millis t);  // 0 -> null
json DnsShieldSlotRecord(const model::DnsShieldSubscription& d);    // Part 2 DNS shield slot record
// Where emsim serves what it links to (invoices and placement checkouts live under /_sim).
std::string InvoiceUrl(const std::string& base_url, const std::string& invoice_id);
// The links of the two checkouts (model/checkouts.hpp): a domain purchase's, a placement cart's.
std::string DomainCheckoutUrl(const std::string& base_url, const std::string& checkout_id);
std::string PlacementCheckoutUrl(const std::string& base_url, const std::string& cart_order_id);
// Part 2 "Webhook endpoint" plus id and timestamps; the secret only when asked (at creation).
json WebhookEndpointRecord(const model::WebhookEndpoint& e, bool with_secret);

// Closes a text-written 200 envelope whose `data` is already written: adds message and status
// (the keys after `data` in nlohmann's sorted order) and answers the bytes as the response.
http::Response FinishTextEnvelope(core::JsonOut& w);

}  // namespace emsim::api
