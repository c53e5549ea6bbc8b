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

}  // namespace

Result<TenantInfo> CreateTenant(State& s, const State& fixture, const std::string& template_id, Millis now) {
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
  account.apiKey = "emsim_test_" + tag + "_" + s.ids.Token(12);
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
  for (const auto& d : fixture.domains) {
    if (d.accountId != tpl->id) continue;
    Domain c = d;
    c.id = s.ids.Uuid4();
    c.accountId = account.id;
    c.workspaceId = workspace_ids.at(d.workspaceId);
    c.domain = tag + "-" + d.domain;
    domain_ids[d.id] = c.id;
    domain_names[d.domain] = c.domain;
    s.AddDomain(std::move(c));
  }
  for (const auto& m : fixture.mailboxes) {
    if (m.accountId != tpl->id) continue;
    Mailbox c = m;
    c.id = s.ids.Uuid4();
    c.accountId = account.id;
    c.workspaceId = workspace_ids.at(m.workspaceId);
    c.domainId = domain_ids.at(m.domainId);
    s.AddMailbox(std::move(c));
  }
  for (const auto& sub : fixture.subscriptions) {
    if (sub.accountId != tpl->id) continue;
    Subscription c = sub;
    c.id = s.ids.Uuid4();
    c.accountId = account.id;
    c.subscriptionId = sub.subscriptionId + suffix;
    s.subscriptions.Insert(std::move(c));
  }
  for (const auto& d : fixture.dnsShield) {
    if (d.accountId != tpl->id) continue;
    DnsShieldSubscription c = d;
    c.id = s.ids.Uuid4();
    c.accountId = account.id;
    c.subscriptionId = d.subscriptionId + suffix;
    s.dnsShield.Insert(std::move(c));
  }
  for (const auto& e : fixture.emails) {
    if (e.accountId != tpl->id) continue;
    Email c = e;
    c.id = s.ids.Uuid4();
    c.accountId = account.id;
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
    s.emails.Insert(std::move(c));
  }
  return info;
}

}  // namespace emsim::model
