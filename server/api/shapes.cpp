#include "api/shapes.hpp"

#include "model/domains.hpp"

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

json WorkspaceRecord(const model::Workspace& w, std::int64_t domain_count, std::int64_t mailbox_count) {
  return {{"id", w.id},
          {"name", w.name},
          {"domainCount", std::to_string(domain_count)},
          {"mailboxCount", std::to_string(mailbox_count)},
          {"billingDetails", w.billingDetails ? BillingRecord(*w.billingDetails) : json(nullptr)}};
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

json MailboxRecord(const model::State& s, const model::Mailbox& m) {
  const model::Domain* d = s.domains.Find(m.domainId);
  return {{"id", m.id},
          {"username", m.username},
          {"firstName", m.firstName},
          {"lastName", m.lastName},
          {"status", m.status},
          {"profilePicture", m.profilePicture},
          {"domain", d ? d->domain : std::string()},
          {"domainId", m.domainId},
          {"assignedOn", FormatIso(m.assignedOn)},
          {"expireOn", FormatIso(m.expireOn)},
          {"createdAt", FormatIso(m.createdAt)}};
}

}  // namespace emsim::api
