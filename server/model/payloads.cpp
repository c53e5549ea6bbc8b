#include "model/payloads.hpp"

#include "model/domains.hpp"

namespace emsim::model {

json DomainDetails(const State& s, const Domain& d) {
  // Part 2: an allow-listed subset; internal relations are omitted.
  return {{"id", d.id},
          {"userId", [&] {
             const auto* a = s.accounts.Find(d.accountId);
             return a ? a->user.id : std::string();
           }()},
          {"workspaceId", d.workspaceId},
          {"domain", d.domain},
          {"status", d.status},
          {"purchaseType", d.purchaseType},
          {"serviceProvider", d.serviceProvider},
          {"registeredOn", FormatIso(d.registeredOn)},
          {"expireOn", FormatIso(d.expireOn)},
          {"isWarmedUp", d.isWarmedUp},
          {"healthScore", d.healthScore},
          {"healthErrorMessage", d.healthErrorMessage},
          {"healthLabel", d.healthLabel},
          {"assignedMailboxesCount", AssignedMailboxes(s, d.id)},
          {"createdAt", FormatIso(d.createdAt)},
          {"updatedAt", FormatIso(d.updatedAt)}};
}

json DomainObservable(const Domain& d) {
  return {{"status", d.status},
          {"forwardTo", d.forwardTo},
          {"forwardToAddedOnReseller", d.forwardToAddedOnReseller},
          {"dmarcEmail", d.dmarcEmail},
          {"dmarcEmailAddedToReseller", d.dmarcEmailAddedToReseller},
          {"forwardingEmail", d.forwardingEmail},
          {"forwardingEmailAdded", d.forwardingEmailAdded},
          {"catchAllEmail", d.catchAllEmail},
          {"catchAllEmailAdded", d.catchAllEmailAdded},
          {"nameServers", d.nameServers},
          {"spfRecord", d.dns.spf},
          {"dmarcRecords", d.dns.dmarc},
          {"dkimRecords", d.dns.dkim},
          {"mxRecords", d.dns.mx}};
}

json PreviousState(const json& before, const json& after) {
  json changed = json::object();
  for (const auto& [key, old_value] : before.items()) {
    if (!after.contains(key) || after[key] != old_value) changed[key] = old_value;
  }
  return changed;
}

namespace {
std::string UserIdOf(const State& s, const std::string& account_id) {
  const auto* a = s.accounts.Find(account_id);
  return a ? a->user.id : std::string();
}
}  // namespace

json SubscriptionRecord(const Subscription& sub) {
  // planKey and placementCredits are emsim's internal bookkeeping, not Part 2 fields.
  return {{"id", sub.id},
          {"subscriptionId", sub.subscriptionId},
          {"subscriptionStatus", sub.subscriptionStatus},
          {"plan", sub.plan},
          {"price", sub.price},
          {"totalMailboxQuantity", sub.totalMailboxQuantity},
          {"periodStart", FormatIso(sub.periodStart)},
          {"periodEnd", FormatIso(sub.periodEnd)},
          {"subscriptionCreationDate", FormatIso(sub.subscriptionCreationDate)},
          {"planUpgradeCancelPossible", sub.planUpgradeCancelPossible},
          {"paymentFailureMessage", sub.paymentFailureMessage},
          {"invoiceDetails", sub.invoiceDetails}};
}

json SubscriptionDetails(const State& s, const Subscription& sub) {
  json j = SubscriptionRecord(sub);
  j["userId"] = UserIdOf(s, sub.accountId);
  return j;
}

json MailboxDetails(const State& s, const Mailbox& m) {
  json j = MailboxRecord(s, m);
  j["workspaceId"] = m.workspaceId;
  return j;
}

json PlacementTestDetails(const State& s, const PlacementTest& t) {
  const PlacementCart* cart = s.placementCarts.Find(t.cartOrderId);
  return {{"orderId", t.id},
          {"mailboxEmail", t.mailboxEmail},
          {"status", t.status},
          {"cartOrderId", t.cartOrderId},
          {"testName", cart ? cart->testName : std::string()},
          {"placementType", cart ? cart->placementType : CompactString()},
          {"mailboxId", t.mailboxId},
          {"userId", UserIdOf(s, t.accountId)},
          {"workspaceId", t.workspaceId},
          {"createdAt", FormatIso(t.createdAt)},
          {"updatedAt", FormatIso(t.updatedAt)}};
}

json ExportDetails(const MailboxExport& x) {
  json results = json::array();
  for (const auto& r : x.results)
    results.push_back({{"app", r.app}, {"status", r.status}, {"rows", r.rows}, {"accountEmail", r.accountEmail},
                       {"error", r.error}});
  return {{"id", x.id},
          {"workspaceId", x.workspaceId},
          {"apps", x.apps},
          {"mailboxCount", x.mailboxIds.size()},
          {"status", x.status},
          {"createdAt", FormatIso(x.createdAt)},
          {"completedAt", x.completedAt ? json(FormatIso(x.completedAt)) : json(nullptr)},
          {"failureReason", x.failureReason},
          {"reconnectedAt", x.reconnectedAt ? json(FormatIso(x.reconnectedAt)) : json(nullptr)},
          {"results", std::move(results)}};
}

json WorkspaceDetails(const Workspace& w) {
  return {{"id", w.id}, {"name", w.name}, {"isDefault", w.isDefault}, {"createdAt", FormatIso(w.createdAt)}};
}

json InvitationDetails(const WorkspaceInvitation& i) {
  return {{"id", i.id}, {"email", i.email}, {"status", i.status}, {"createdAt", FormatIso(i.createdAt)}};
}

json ThirdPartyAccountDetails(const ThirdPartyAccount& t) {
  return {{"id", t.id},
          {"app", t.app},
          {"email", t.email},
          {"createdAt", FormatIso(t.createdAt)},
          {"updatedAt", FormatIso(t.updatedAt)}};
}

}  // namespace emsim::model
