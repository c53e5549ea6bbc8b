#include "model/tenants.hpp"

#include <map>

namespace emsim::model {
namespace {

bool TagInUse(const State& s, const std::string& tag) {
  for (const auto& t : s.tenants)
    if (t.tag == tag) return true;
  const std::string prefix = tag + "-";
  for (const auto& d : s.domains)
    if (d.domain.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

// "jane@example.com" -> "jane@<tag>-example.com" when example.com is one of the cloned domains.
std::string MapAddress(const std::string& address, const std::map<std::string, std::string>& domain_names) {
  const auto at = address.rfind('@');
  if (at == std::string::npos) return address;
  auto it = domain_names.find(address.substr(at + 1));
  return it == domain_names.end() ? address : address.substr(0, at + 1) + it->second;
}

// Copies every row of `from` owned by account `tpl_id` as a row of `account_id` with a fresh id
// (drawn first, so the id sequence is the same as row by row); `adjust(original, copy)` sets what
// else differs and `add` stores the copy (a mutator that keeps the State's indexes).
template <class T, class Adjust, class Add>
void CloneOwnedRows(const Table<T>& from, const std::string& tpl_id, const std::string& account_id, IdGenerator& ids,
                    Adjust adjust, Add add) {
  for (const auto& row : from) {
    if (row.accountId != tpl_id) continue;
    T c = row;
    c.id = ids.Uuid4();
    c.accountId = account_id;
    adjust(row, c);
    add(std::move(c));
  }
}

}  // namespace

Result<TenantInfo> CreateTenant(State& s, const State& fixture, const std::string& template_id, Millis now,
                                const std::string& shard) {
  const Account* tpl = template_id.empty() ? (fixture.accounts.empty() ? nullptr : &*fixture.accounts.begin())
                                           : fixture.accounts.Find(template_id);
  if (!tpl) {
    std::string known;
    for (const auto& a : fixture.accounts) known += (known.empty() ? "" : ", ") + a.id;
    return Error::Validation("template", "template must name an account of the loaded fixtures (" + known + ")");
  }
  std::string tag;
  do tag = "t" + s.ids.Token(6);
  while (TagInUse(s, tag) || s.accounts.Contains(tpl->id + "_" + tag));
  const std::string suffix = "_" + tag;

  Account account = *tpl;
  account.id = tpl->id + suffix;
  account.apiKey = "emsim_" + shard + "_" + tag + "_" + s.ids.Token(12);
  account.user.id = tpl->user.id + suffix;
  if (auto at = tpl->user.email.rfind('@'); at != std::string::npos)
    account.user.email = tpl->user.email.substr(0, at) + "+" + tag + tpl->user.email.substr(at);
  s.AddAccount(account);
  // The clone's records keep the fixture's timestamps, so every tenant looks the same.
  s.tenants.Insert({account.id, tpl->id, tag, now});

  TenantInfo info{account.id, account.apiKey, tag, account.user.id, account.user.email, {}};
  std::map<std::string, std::string> workspace_ids, domain_ids, domain_names;
  for (const auto& w : fixture.workspaces) {
    if (w.accountId != tpl->id) continue;
    Workspace c = w;
    c.id = w.id + suffix;
    c.accountId = account.id;
    if (c.billingDetails) {
      c.billingDetails->id = s.ids.Uuid4();
      c.billingDetails->userId = account.user.id;
      c.billingDetails->workspaceId = c.id;
    }
    workspace_ids[w.id] = c.id;
    info.workspaces.push_back({c.id, c.name, c.isDefault});
    s.workspaces.Insert(std::move(c));
  }
  CloneOwnedRows(
      fixture.domains, tpl->id, account.id, s.ids,
      [&](const Domain& d, Domain& c) {
        c.workspaceId = workspace_ids.at(d.workspaceId);
        c.domain = tag + "-" + d.domain;
        domain_ids[d.id] = c.id;
        domain_names[d.domain] = c.domain;
      },
      [&](Domain c) { s.AddDomain(std::move(c)); });
  CloneOwnedRows(
      fixture.mailboxes, tpl->id, account.id, s.ids,
      [&](const Mailbox& m, Mailbox& c) {
        c.workspaceId = workspace_ids.at(m.workspaceId);
        c.domainId = domain_ids.at(m.domainId);
      },
      [&](Mailbox c) { s.AddMailbox(std::move(c)); });
  CloneOwnedRows(
      fixture.subscriptions, tpl->id, account.id, s.ids,
      [&](const Subscription& sub, Subscription& c) { c.subscriptionId = sub.subscriptionId + suffix; },
      [&](Subscription c) { s.subscriptions.Insert(std::move(c)); });
  CloneOwnedRows(
      fixture.dnsShield, tpl->id, account.id, s.ids,
      [&](const DnsShieldSubscription& d, DnsShieldSubscription& c) { c.subscriptionId = d.subscriptionId + suffix; },
      [&](DnsShieldSubscription c) { s.dnsShield.Insert(std::move(c)); });
  CloneOwnedRows(
      fixture.emails, tpl->id, account.id, s.ids,
      [&](const Email& e, Email& c) {
        c.workspaceId = workspace_ids.at(e.workspaceId);
        c.account = MapAddress(e.account, domain_names);
        c.threadId = e.threadId + suffix;
        // "<local@host>" -> "<local.tag@host>": message ids stay unique across tenants.
        const auto at = e.messageId.rfind('@');
        c.messageId = at == std::string::npos ? e.messageId + "." + tag
                                              : e.messageId.substr(0, at) + "." + tag + e.messageId.substr(at);
        for (auto& a : c.from) a.address = MapAddress(a.address, domain_names);
        for (auto& a : c.to) a.address = MapAddress(a.address, domain_names);
        for (auto& a : c.cc) a = MapAddress(a, domain_names);
      },
      [&](Email c) { s.emails.Insert(std::move(c)); });
  return info;
}

}  // namespace emsim::model
