#include "api/shapes.hpp"

#include "model/domains.hpp"
#include "core/messages.hpp"
#include "core/text.hpp"

namespace emsim::api {

using model::FormatIso;

json OptionalTime(model::Millis t) { return t ? json(FormatIso(t)) : json(nullptr); }

json AvailableDomainRecord(const model::AvailableDomain& a) {
  return {{"domainName", a.domainName},
          {"status", "AVAILABLE"},  // Part 2: the one value seen; taken names are not listed
          {"domainPrice", model::FormatDecimal(a.domainPriceCents)},
          {"renewPrice", model::FormatDecimal(a.renewPriceCents)}};
}

json DnsCheckRecord(const model::Domain& d) {
  return {{"id", d.id},
          {"domain", d.domain},
          {"spfRecord", d.dns.spf},
          {"dmarcRecords", d.dns.dmarc},
          {"dkimRecords", d.dns.dkim},
          {"mxRecords", d.dns.mx}};
}

json CheckoutRecord(const model::Checkout& c, const std::string& url) {
  return {{"id", c.id},
          {"url", url},
          {"purpose", c.purpose},
          {"status", c.status},
          {"domainName", c.domainName},
          {"years", c.years},
          {"amount", model::FormatDecimal(c.amountCents)},
          {"currency", "USD"},
          {"accountId", c.accountId},
          {"workspaceId", c.workspaceId},
          {"paidWith", c.paidWith == model::PaidWith::kUnpaid ? json(nullptr) : json(c.paidWith)},
          {"domainId", c.domainId},
          {"createdAt", model::FormatIso(c.createdAt)},
          {"paidAt", c.paidAt ? json(model::FormatIso(*c.paidAt)) : json(nullptr)}};
}

json DnsShieldSlotRecord(const model::DnsShieldSubscription& d) {
  return {{"id", d.id},
          {"planType", d.planType},
          {"totalSlots", d.totalSlots},
          {"totalUsedSlots", d.totalUsedSlots},
          {"availableSlots", d.totalSlots - d.totalUsedSlots}};  // Part 2: totalSlots - totalUsedSlots
}

std::string InvoiceUrl(const std::string& base_url, const std::string& invoice_id) {
  return model::Concat({base_url, "/_sim/invoices/", invoice_id});  // every purchase answer has one
}

std::string DomainCheckoutUrl(const std::string& base_url, const std::string& checkout_id) {
  return model::Concat({base_url, "/_sim/checkout/", checkout_id});  // Part 4.4 paymentLink
}

std::string PlacementCheckoutUrl(const std::string& base_url, const std::string& cart_order_id) {
  return model::Concat({base_url, "/_sim/placement-checkouts/", cart_order_id});
}

json WebhookEndpointRecord(const model::WebhookEndpoint& e, bool with_secret) {
  json j = {{"id", e.id},
            {"url", e.url},
            {"enabled_events", e.enabledEvents},
            {"status", e.status},
            {"createdAt", FormatIso(e.createdAt)},
            {"updatedAt", FormatIso(e.updatedAt)}};
  if (with_secret) j["secret"] = e.secret;  // Part 2: returned once at creation, never by listing
  return j;
}

json EmailSummaryRecord(const model::Email& e) {
  auto addresses = [](const std::vector<model::Address>& list) {
    json out = json::array();
    for (const auto& a : list) out.push_back({{"name", a.name}, {"address", a.address}});
    return out;
  };
  return {{"account", e.account},
          {"threadId", e.threadId},
          {"messageId", e.messageId},
          {"subject", e.subject},
          {"snippet", e.snippet},
          {"date", FormatIso(e.date)},
          {"from", addresses(e.from)},
          {"to", addresses(e.to)},
          {"cc", e.cc},
          {"size", e.size},
          {"labels", e.labels},
          {"folderPath", e.folderPath},
          {"isRead", e.isRead},
          {"isStarred", e.isStarred},
          {"hasAttachments", e.hasAttachments}};
}

http::Response FinishTextEnvelope(core::JsonOut& w) {
  w.Key("message").String(model::msg::kSuccess).Key("status").Int(200).EndObject();
  http::Response r;
  r.raw = std::move(w.str());
  return r;
}

}  // namespace emsim::api
