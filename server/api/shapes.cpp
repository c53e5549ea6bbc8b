#include "api/shapes.hpp"

#include "model/domains.hpp"
#include "core/messages.hpp"
#include "core/text.hpp"

namespace emsim::api {

using model::FormatIso;

json OptionalTime(model::Millis t) { return t ? json(FormatIso(t)) : json(nullptr); }

json BillingRecord(const model::BillingDetails& b) {
  return {{"id", b.id},
          {"userId", b.userId},
          {"firstName", b.firstName},
          {"lastName", b.lastName},
          {"workspaceId", b.workspaceId},
          {"company", b.company},
          {"addressLineOne", b.addressLineOne},
          {"addressLineTwo", b.addressLineTwo},
          {"addressLineThree", b.addressLineThree},
          {"city", b.city},
          {"state", b.state},
          {"country", b.country},
          {"postalCode", b.postalCode},
          {"phoneCc", b.phoneCc},
          {"phone", b.phone},
          {"languagePreference", b.languagePreference}};
}

// Part 2: a Workspace's billingDetails is an object. Before any details are saved it is the same
// object with every field null except workspaceId (README "Gap decisions"), so a client reads
// the same keys either way and `id == null` says nothing was saved.
namespace {
json EmptyBillingRecord(const model::Workspace& w) {
  json b = json::object();
  for (const char* k : {"id", "userId", "firstName", "lastName", "company", "addressLineOne", "addressLineTwo",
                        "addressLineThree", "city", "state", "country", "postalCode", "phoneCc", "phone",
                        "languagePreference"})
    b[k] = nullptr;
  b["workspaceId"] = w.id;
  return b;
}
}  // namespace

json WorkspaceRecord(const model::Workspace& w, std::int64_t domain_count, std::int64_t mailbox_count) {
  return {{"id", w.id},
          {"name", w.name},
          {"domainCount", std::to_string(domain_count)},
          {"mailboxCount", std::to_string(mailbox_count)},
          {"billingDetails", w.billingDetails ? BillingRecord(*w.billingDetails) : EmptyBillingRecord(w)}};
}

json DomainListRecord(const model::State& s, const model::Domain& d) {
  return {{"id", d.id},
          {"domain", d.domain},
          {"status", d.status},
          {"createdAt", FormatIso(d.createdAt)},
          {"updatedAt", FormatIso(d.updatedAt)},
          {"forwardTo", d.forwardTo},
          {"forwardToAddedOnReseller", d.forwardToAddedOnReseller},
          {"dmarcEmail", d.dmarcEmail},
          {"dmarcEmailAddedToReseller", d.dmarcEmailAddedToReseller},
          {"forwardingEmail", d.forwardingEmail},
          {"forwardingEmailAdded", d.forwardingEmailAdded},
          {"catchAllEmail", d.catchAllEmail},
          {"catchAllEmailAdded", d.catchAllEmailAdded},
          {"nameServers", d.nameServers},
          {"assignedMailboxesCount", std::to_string(model::AssignedMailboxes(s, d.id))}};
}

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
          {"status", c.status},
          {"domainName", c.domainName},
          {"years", c.years},
          {"amount", model::FormatDecimal(c.amountCents)},
          {"currency", "USD"},
          {"accountId", c.accountId},
          {"workspaceId", c.workspaceId},
          {"paidWith", c.paidWith.empty() ? json(nullptr) : json(c.paidWith)},
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

std::string PlacementCheckoutUrl(const std::string& base_url, const std::string& cart_order_id) {
  return model::Concat({base_url, "/_sim/placement-checkouts/", cart_order_id});
}

// ---- the same records as text; keys in nlohmann's (sorted) order ------------------------------

void WriteBillingRecord(core::JsonOut& w, const model::BillingDetails& b) {
  w.BeginObject()
      .Key("addressLineOne").String(b.addressLineOne)
      .Key("addressLineThree").String(b.addressLineThree)
      .Key("addressLineTwo").String(b.addressLineTwo)
      .Key("city").String(b.city)
      .Key("company").String(b.company)
      .Key("country").String(b.country)
      .Key("firstName").String(b.firstName)
      .Key("id").String(b.id)
      .Key("languagePreference").String(b.languagePreference)
      .Key("lastName").String(b.lastName)
      .Key("phone").String(b.phone)
      .Key("phoneCc").String(b.phoneCc)
      .Key("postalCode").String(b.postalCode)
      .Key("state").String(b.state)
      .Key("userId").String(b.userId)
      .Key("workspaceId").String(b.workspaceId)
      .EndObject();
}

// EmptyBillingRecord as text.
namespace {
void WriteEmptyBillingRecord(core::JsonOut& w, const model::Workspace& ws) {
  w.BeginObject()
      .Key("addressLineOne").Null()
      .Key("addressLineThree").Null()
      .Key("addressLineTwo").Null()
      .Key("city").Null()
      .Key("company").Null()
      .Key("country").Null()
      .Key("firstName").Null()
      .Key("id").Null()
      .Key("languagePreference").Null()
      .Key("lastName").Null()
      .Key("phone").Null()
      .Key("phoneCc").Null()
      .Key("postalCode").Null()
      .Key("state").Null()
      .Key("userId").Null()
      .Key("workspaceId").String(ws.id)
      .EndObject();
}
}  // namespace

void WriteWorkspaceRecord(core::JsonOut& w, const model::Workspace& ws, std::int64_t domain_count, std::int64_t mailbox_count) {
  w.BeginObject().Key("billingDetails");
  if (ws.billingDetails) WriteBillingRecord(w, *ws.billingDetails);
  else WriteEmptyBillingRecord(w, ws);
  w.Key("domainCount").String(std::to_string(domain_count))
      .Key("id").String(ws.id)
      .Key("mailboxCount").String(std::to_string(mailbox_count))
      .Key("name").String(ws.name)
      .EndObject();
}

void WriteDomainListRecord(core::JsonOut& w, const model::State& s, const model::Domain& d) {
  w.BeginObject()
      .Key("assignedMailboxesCount").String(std::to_string(model::AssignedMailboxes(s, d.id)))
      .Key("catchAllEmail").String(d.catchAllEmail)
      .Key("catchAllEmailAdded").Bool(d.catchAllEmailAdded)
      .Key("createdAt").Time(d.createdAt)
      .Key("dmarcEmail").String(d.dmarcEmail)
      .Key("dmarcEmailAddedToReseller").Bool(d.dmarcEmailAddedToReseller)
      .Key("domain").String(d.domain)
      .Key("forwardTo").String(d.forwardTo)
      .Key("forwardToAddedOnReseller").Bool(d.forwardToAddedOnReseller)
      .Key("forwardingEmail").String(d.forwardingEmail)
      .Key("forwardingEmailAdded").Bool(d.forwardingEmailAdded)
      .Key("id").String(d.id)
      .Key("nameServers").Strings(d.nameServers)
      .Key("status").String(d.status)
      .Key("updatedAt").Time(d.updatedAt)
      .EndObject();
}

void WriteMailboxRecord(core::JsonOut& w, const model::State& s, const model::Mailbox& m) {
  const model::Domain* d = s.domains.Find(m.domainId);
  w.BeginObject()
      .Key("assignedOn").Time(m.assignedOn)
      .Key("createdAt").Time(m.createdAt)
      .Key("domain").String(d ? std::string_view(d->domain) : std::string_view())
      .Key("domainId").String(m.domainId)
      .Key("expireOn").Time(m.expireOn)
      .Key("firstName").String(m.firstName)
      .Key("id").String(m.id)
      .Key("lastName").String(m.lastName)
      .Key("profilePicture").String(m.profilePicture)
      .Key("status").String(m.status)
      .Key("username").String(m.username)
      .EndObject();
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
