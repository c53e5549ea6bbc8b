#include "model/records.hpp"

#include "model/domains.hpp"

namespace emsim::model {

namespace {

// Part 2: a Workspace's billingDetails is an object. Before any details are saved it is the same
// object with every field null except workspaceId (README "Gap decisions"), so a client reads
// the same keys either way and `id == null` says nothing was saved.
template <class W>
void WriteBillingRecord(W& w, const Workspace& ws) {
  const BillingDetails* b = ws.billingDetails ? &*ws.billingDetails : nullptr;
  auto text = [&](core::PlainKey key, auto field) {
    w.Key(key);
    b ? w.String(b->*field) : w.Null();
  };
  using B = BillingDetails;
  w.BeginObject();
  text("addressLineOne", &B::addressLineOne);
  text("addressLineThree", &B::addressLineThree);
  text("addressLineTwo", &B::addressLineTwo);
  text("city", &B::city);
  text("company", &B::company);
  text("country", &B::country);
  text("firstName", &B::firstName);
  text("id", &B::id);
  text("languagePreference", &B::languagePreference);
  text("lastName", &B::lastName);
  text("phone", &B::phone);
  text("phoneCc", &B::phoneCc);
  text("postalCode", &B::postalCode);
  text("state", &B::state);
  text("userId", &B::userId);
  w.Key("workspaceId").String(b ? b->workspaceId : ws.id);
  w.EndObject();
}

}  // namespace

template <class W>
void WriteWorkspaceRecord(W& w, const Workspace& ws, std::int64_t domain_count, std::int64_t mailbox_count) {
  w.BeginObject().Key("billingDetails");
  WriteBillingRecord(w, ws);
  w.Key("domainCount").String(std::to_string(domain_count))
      .Key("id").String(ws.id)
      .Key("mailboxCount").String(std::to_string(mailbox_count))
      .Key("name").String(ws.name)
      .EndObject();
}

template <class W>
void WriteDomainListRecord(W& w, const State& s, const Domain& d) {
  w.BeginObject()
      .Key("assignedMailboxesCount").String(std::to_string(AssignedMailboxes(s, d.id)))
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
      .Key("status").String(core::NameOf(d.status))
      .Key("updatedAt").Time(d.updatedAt)
      .EndObject();
}

template <class W>
void WriteMailboxRecord(W& w, const State& s, const Mailbox& m) {
  const Domain* d = s.domains.Find(m.domainId);
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
      .Key("removeOnNextRenewal").Bool(m.removeOnNextRenewal)
      .Key("status").String(core::NameOf(m.status))
      .Key("username").String(m.username)
      .EndObject();
}

template void WriteWorkspaceRecord(core::JsonOut&, const Workspace&, std::int64_t, std::int64_t);
template void WriteWorkspaceRecord(core::JsonBuild&, const Workspace&, std::int64_t, std::int64_t);
template void WriteDomainListRecord(core::JsonOut&, const State&, const Domain&);
template void WriteDomainListRecord(core::JsonBuild&, const State&, const Domain&);
template void WriteMailboxRecord(core::JsonOut&, const State&, const Mailbox&);
template void WriteMailboxRecord(core::JsonBuild&, const State&, const Mailbox&);

json WorkspaceRecord(const Workspace& ws, std::int64_t domain_count, std::int64_t mailbox_count) {
  return core::BuildJson([&](auto& w) { WriteWorkspaceRecord(w, ws, domain_count, mailbox_count); });
}

json DomainListRecord(const State& s, const Domain& d) {
  return core::BuildJson([&](auto& w) { WriteDomainListRecord(w, s, d); });
}

json MailboxRecord(const State& s, const Mailbox& m) {
  return core::BuildJson([&](auto& w) { WriteMailboxRecord(w, s, m); });
}

}  // namespace emsim::model
