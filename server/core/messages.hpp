#pragma once
// Message texts are named constants (STYLE.md habit 5), so tests and docs can refer to them.
namespace emsim::model::msg {

// Part 5 / Part 7: "a missing or invalid API key yields 401 with message text about an invalid API key"
inline constexpr const char* kInvalidApiKey = "Invalid API key: send a valid key in the x-auth-service header";
inline constexpr const char* kValidationFailed = "Validation failed";
inline constexpr const char* kInternalError = "Internal server error";
// In place of an answer whose change the data file (--data-dir) refused.
inline constexpr const char* kNotDurable =
    "The change this request made could not be written to the data file, so it was not made; emsim's log says why";
inline constexpr const char* kRouteNotFound = "Route not found";
inline constexpr const char* kMethodNotAllowed = "Method not allowed";
inline constexpr const char* kPayloadTooLarge = "Request body too large";
inline constexpr const char* kUnsupportedMediaType = "Content-Type must be application/json";
inline constexpr const char* kYamlMediaType = "Content-Type must be application/yaml or text/yaml";
inline constexpr const char* kMalformedJson = "Malformed JSON body";
inline constexpr const char* kBillingSaved = "Billing details added successfully";
inline constexpr const char* kSuccess = "Success";
inline constexpr const char* kExportStarted = "Mailbox export started";
inline constexpr const char* kExportSelectsNothing = "No mailbox matches the selection (ids, excludeIds, tagIds, contains, status)";
inline constexpr const char* kThirdPartyAccountUpdated = "Third-party account updated";
// The one duration grammar (model::ParseDuration): flags, /_sim bodies, scenario files, fixtures.
inline constexpr const char* kDurationGrammar =
    "a duration like 90, 90s, 1500ms, 15m, 1.5h, 2h30m, 1d or PT2H30M (at most 100 years)";

// Part 4.4 domains
inline constexpr const char* kYearsRange = "must be a whole number of years from 1 to 10";
inline constexpr const char* kDomainStatusValues = "must be one of ACTIVE, CONNECTED, PENDING";
inline constexpr const char* kNoDomainSelected = "select at least one domain with domainIds or contains";
inline constexpr const char* kDmarcScheduled = "The DMARC record will be added shortly";
inline constexpr const char* kForwardingScheduled = "Email forwarding will be enabled shortly";
inline constexpr const char* kCatchAllScheduled = "Catch-all forwarding will be enabled shortly";
inline constexpr const char* kDnsChecked = "DNS records checked";
// Part 4.10 webhooks
inline constexpr const char* kWebhookEndpointCreated = "Webhook endpoint created";
inline constexpr const char* kWebhookEndpointUpdated = "Webhook endpoint updated";
inline constexpr const char* kWebhookEndpointNotFound = "Webhook endpoint not found";
inline constexpr const char* kWebhookUrlHttps =
    "url must use https (http is accepted only for loopback hosts: localhost, 127.0.0.0/8, [::1])";
inline constexpr const char* kWebhookUrlHttpsStrict = "url must use https (emsim runs with --strict-webhook-urls)";
inline constexpr const char* kEnabledEventsEmpty = "enabled_events must name at least one event type";
inline constexpr const char* kSinkNotFound = "Sink not found";

// ---- subscriptions, placement tests, DNS shield, wallet (Parts 4.6-4.8) ----
inline constexpr const char* kSubscriptionCancelled = "Subscription cancelled successfully";
inline constexpr const char* kPlacementPurchased = "Placement tests purchased successfully";
inline constexpr const char* kPlacementCheckout =
    "Wallet balance too low for this purchase: nothing was deducted; complete the payment at checkoutUrl";
inline constexpr const char* kInvoiceNotFound = "Invoice not found";

}  // namespace emsim::model::msg
