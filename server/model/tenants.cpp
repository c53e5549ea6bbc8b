#include "model/tenants.hpp"

#include "core/json_limits.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

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

// The clone itself: the account (its key given) and every record the template owns in `fixture`.
TenantInfo CloneTemplate(State& s, const State& fixture, const Account* tpl, const std::string& tag,
                         const std::string& api_key);

}  // namespace

Result<TenantInfo> CreateTenant(State& s, const State& fixture, const std::string& template_id, Millis now,
                                const std::optional<OwnClockStart>& clock, const std::string& shard) {
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
  const std::string api_key = "emsim_" + shard + "_" + tag + "_" + s.ids.Token(12);
  Tenant t;
  t.id = tpl->id + "_" + tag;
  t.templateId = tpl->id;
  t.tag = tag;
  t.createdAt = now;
  t.idsCounter = s.ids.counter();  // a reset clones again from here: the same ids
  if (clock) {
    t.clock = "own";
    t.clockMode = t.clockStartMode = clock->mode;
    t.clockStartMs = t.clockNow = clock->now;
    t.clockOffset = clock->now - clock->wall;
  }
  // The clone's records keep the fixture's timestamps, so every tenant looks the same.
  s.tenants.Insert(std::move(t));
  return CloneTemplate(s, fixture, tpl, tag, api_key);
}

namespace {

TenantInfo CloneTemplate(State& s, const State& fixture, const Account* tpl, const std::string& tag,
                         const std::string& api_key) {
  const std::string suffix = "_" + tag;
  Account account = *tpl;
  account.id = tpl->id + suffix;
  account.apiKey = api_key;
  account.user.id = tpl->user.id + suffix;
  if (auto at = tpl->user.email.rfind('@'); at != std::string::npos)
    account.user.email = tpl->user.email.substr(0, at) + "+" + tag + tpl->user.email.substr(at);
  s.AddAccount(account);

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
  s.ForgetEmailOrder();
  return info;
}

// Removes every row of `table` owned by `account_id`, in one pass (one reindex).
template <class T>
void EraseOwned(Table<T>& table, const std::string& account_id) {
  std::vector<std::string> ids;
  // Iteration notes nothing; EraseAll notes each removed id, so a durable copy deletes those rows
  // instead of rewriting the whole table.
  for (const auto& row : table)
    if (row.accountId == account_id) ids.push_back(row.id);
  if (ids.empty()) return;
  table.EraseAll(ids);
}

// Removes the log entries of `account_id`; they count as dropped (State::trimmed), so the ids
// counted from a log's length (notifications, wallet movements) never repeat.
template <class L>
bool EraseLogEntries(L& log, std::uint64_t& trimmed, const std::string& account_id) {
  const size_t before = log.size();
  std::erase_if(log, [&](const auto& e) { return e.accountId == account_id; });
  trimmed += before - log.size();
  return before != log.size();
}

// Everything `account_id` owns, and the account itself; its Tenant row stays.
void RemoveAccountData(State& s, const std::string& account_id) {
  // Jobs: those on its own clock, and on the instance clock those that name its records (a
  // shared-clock tenant's, or one a /_sim call without its key scheduled).
  std::set<std::string> names = {account_id};
  const State& read = s;  // const iteration: reading a table must not mark it changed
  auto name_ids_of = [&](const auto& rows) {
    for (const auto& r : rows)
      if (r.accountId == account_id) names.insert(r.id);
  };
  name_ids_of(read.events);
  name_ids_of(read.domains);
  name_ids_of(read.mailboxes);
  name_ids_of(read.exports);
  name_ids_of(read.placementCarts);
  name_ids_of(read.webhookEndpoints);
  auto names_one = [&](const json& v, auto&& self) -> bool {
    if (v.is_string()) return names.count(v.get<std::string>()) != 0;
    if (v.is_structured())
      for (const auto& x : v)
        if (self(x, self)) return true;
    return false;
  };
  for (auto it = s.jobs.begin(); it != s.jobs.end();) {
    const Job& job = it->second;
    if (job.clock == account_id || (job.clock.empty() && names_one(job.args.Parse(), names_one))) it = s.EraseJob(it);
    else ++it;
  }
  s.waitingJobs.erase(account_id);
  s.RequeueClock(account_id);

  // Request faults made with its key (the faults are in creation order; the others keep theirs).
  if (const Account* a = s.accounts.Find(account_id)) {
    const std::string key = a->apiKey;
    std::erase_if(s.faults, [&](const Fault& f) { return f.apiKey && *f.apiKey == key; });
    s.accountByApiKey.erase(key);
  }
  // Records, children first so no index names a removed parent.
  for (const auto& m : read.mailboxes)
    if (m.accountId == account_id) {
      s.mailboxesByDomain.erase(m.domainId);
      s.mailboxesByName.erase(State::MailboxNameKey(m.domainId, m.username));
      s.mailboxesByWorkspace.erase(m.workspaceId);
      s.activeMailboxesByWorkspace.erase(m.workspaceId);
      s.mailboxSearch.Forget(m.workspaceId);
    }
  EraseOwned(s.mailboxes, account_id);
  for (const auto& d : read.domains)
    if (d.accountId == account_id) {
      s.domainsByWorkspace.erase(d.workspaceId);
      s.domainSearch.Forget(d.workspaceId);
      s.UnindexDomainName(d.domain);
    }
  EraseOwned(s.domains, account_id);
  EraseOwned(s.placementTests, account_id);
  EraseOwned(s.placementCarts, account_id);
  EraseOwned(s.exports, account_id);
  EraseOwned(s.emails, account_id);
  s.ForgetEmailOrder();
  EraseOwned(s.invoices, account_id);
  EraseOwned(s.checkouts, account_id);
  EraseOwned(s.subscriptions, account_id);
  EraseOwned(s.dnsShield, account_id);
  EraseOwned(s.thirdPartyAccounts, account_id);
  bool endpoints = false;
  for (const auto& e : read.webhookEndpoints) endpoints = endpoints || e.accountId == account_id;
  EraseOwned(s.webhookEndpoints, account_id);
  if (endpoints) s.IndexWebhookEndpointsByPath();
  EraseOwned(s.workspaces, account_id);
  s.accounts.Erase(account_id);

  bool logs = EraseLogEntries(s.events, s.trimmed.events, account_id);
  if (logs) {
    s.eventIndex.clear();
    for (size_t i = 0; i < s.events.size(); ++i) s.eventIndex[s.events[i].id] = s.trimmed.events + i;
  }
  logs = EraseLogEntries(s.deliveries, s.trimmed.deliveries, account_id) || logs;
  logs = EraseLogEntries(s.notifications, s.trimmed.notifications, account_id) || logs;
  logs = EraseLogEntries(s.walletMovements, s.trimmed.walletMovements, account_id) || logs;
  // The logs are append-only for a durable copy; this one write rewrites them (runtime/persist).
  if (logs) s.logsRewritten = true;
}

Tenant* FindTenant(State& s, const std::string& account_id) { return s.tenants.Edit(account_id); }

// A fixture account is refused by name (a 400: POST /_sim/reset is what resets the fixtures); any
// other id is a 404.
Error NoSuchTenant(const State& s, const std::string& account_id) {
  if (s.accounts.Contains(account_id))
    return Error::Validation("accountId", "account " + SafeText(account_id, 100) +
                                              " is a fixture account, not a tenant: POST /_sim/reset resets the fixtures",
                             "path");
  return Error::NotFound("no tenant " + SafeText(account_id, 100) + " (GET /_sim/tenants lists them)");
}

}  // namespace

const Tenant* OwnClockTenant(const State& s, const std::string& account_id) {
  if (s.tenants.empty() || account_id.empty()) return nullptr;
  const Tenant* t = s.tenants.Find(account_id);
  return t && t->OwnClock() ? t : nullptr;
}

Millis OwnClockNow(const Tenant& t, Millis wall) { return t.clockMode == "manual" ? t.clockNow : wall + t.clockOffset; }

bool SetOwnClock(State& s, const std::string& account_id, Millis now, Millis wall) {
  Tenant* t = FindTenant(s, account_id);
  if (!t || !t->OwnClock() || now < OwnClockNow(*t, wall) || now > kMaxTimeMs) return false;
  if (t->clockMode == "manual") t->clockNow = now;
  else t->clockOffset = now - wall;
  s.RequeueClock(account_id);
  return true;
}

void SetOwnClockMode(State& s, const std::string& account_id, const std::string& mode, Millis wall) {
  Tenant* t = FindTenant(s, account_id);
  if (!t || !t->OwnClock() || t->clockMode == mode) return;
  const Millis now = OwnClockNow(*t, wall);
  t->clockMode = mode;
  t->clockNow = now;
  t->clockOffset = now - wall;
  s.RequeueClock(account_id);
}

Result<TenantInfo> ResetTenant(State& s, const State& fixture, const std::string& account_id, Millis wall) {
  Tenant* found = FindTenant(s, account_id);
  if (!found) return NoSuchTenant(s, account_id);
  const Account* tpl = fixture.accounts.Find(found->templateId);
  const Account* current = s.accounts.Find(account_id);
  if (!tpl || !current)
    return Error::Validation("accountId", "tenant " + account_id + " cannot be reset: its template " + found->templateId +
                                              " is not among the loaded fixtures (delete it and create another)",
                             "path");
  const std::string api_key = current->apiKey;
  RemoveAccountData(s, account_id);
  Tenant* t = FindTenant(s, account_id);
  if (t->OwnClock()) {
    t->clockMode = t->clockStartMode;
    t->clockNow = t->clockStartMs;
    t->clockOffset = t->clockStartMs - wall;
  }
  // The same ids as at creation: the clone draws them from the generator as it stood then.
  const std::uint64_t seed = s.ids.seed(), counter = s.ids.counter();
  s.ids.Restore(seed, t->idsCounter);
  const std::string tag = t->tag;
  TenantInfo info = CloneTemplate(s, fixture, tpl, tag, api_key);
  s.ids.Restore(seed, counter);
  return info;
}

Result<bool> DeleteTenant(State& s, const std::string& account_id) {
  if (!FindTenant(s, account_id)) return NoSuchTenant(s, account_id);
  RemoveAccountData(s, account_id);
  s.tenants.Erase(account_id);
  s.waitingJobs.erase(account_id);
  s.RequeueClock(account_id);
  return true;
}

}  // namespace emsim::model
