#include "model/domains.hpp"

#include <algorithm>

#include <set>

#include "core/messages.hpp"
#include "model/payloads.hpp"
#include "core/text.hpp"

namespace emsim::model {

DomainListView ListDomains(const State& s, const Caller& caller, const std::string& contains, std::int64_t page) {
  const std::string needle = ToLower(contains);
  DomainListView view;
  auto it = s.domainsByWorkspace.find(caller.workspaceId);
  if (it == s.domainsByWorkspace.end()) {
    view.page = Paginate(0, page);
    return view;
  }
  const auto& ids = it->second;  // the workspace's domains in creation order (State index)
  if (needle.empty()) {
    view.page = Paginate(static_cast<std::int64_t>(ids.size()), page);
    for (auto i = view.page.begin; i < view.page.end; ++i) view.domains.push_back(s.domains.Find(ids[static_cast<size_t>(i)]));
    return view;
  }
  if (const auto at = s.domainSearch.MatchesAt(s, caller.workspaceId, needle)) {
    // The index's answer is exact (model/text_search.hpp): positions in the workspace's ids, in
    // order; only the page's domains are looked up.
    view.page = Paginate(static_cast<std::int64_t>(at->size()), page);
    for (auto i = view.page.begin; i < view.page.end; ++i)
      if (const Domain* d = s.domains.Find(ids[(*at)[static_cast<size_t>(i)]])) view.domains.push_back(d);
    return view;
  }
  // A needle too short for the index, or one most domains may match: the rows in table order (the
  // creation order of the workspace's ids too), contiguously.
  std::vector<const Domain*> matching;
  for (const Domain& d : s.domains)
    if (d.workspaceId == caller.workspaceId && ContainsFolded(d.domain, needle)) matching.push_back(&d);
  view.page = Paginate(static_cast<std::int64_t>(matching.size()), page);
  view.domains.assign(matching.begin() + view.page.begin, matching.begin() + view.page.end);
  return view;
}

std::int64_t AssignedMailboxes(const State& s, const std::string& domain_id) {
  return static_cast<std::int64_t>(IdsOf(s.mailboxesByDomain, domain_id).size());
}

// ---- changes and their events -----------------------------------------------------------------

namespace {
bool IsConnectionStatus(const json& status) { return status == "PENDING" || status == "CONNECTED"; }
}  // namespace

std::vector<std::string> ChangeDomain(State& s, Domain& d, Millis now, const std::function<void(Domain&)>& change) {
  const json before = DomainObservable(d);
  change(d);
  const json after = DomainObservable(d);
  json previous = PreviousState(before, after);
  std::vector<std::string> emitted;
  if (previous.empty()) return emitted;
  d.updatedAt = now;
  const json details = DomainDetails(s, d);
  // Part 6 domain.updated: "fires when a domain's status, configuration or DNS state changes".
  emitted.push_back(s.Emit("domain.updated", d.accountId, {{"domainDetails", details}, {"previousState", previous}}, now).id);
  if (previous.contains("status") && (IsConnectionStatus(previous["status"]) || IsConnectionStatus(after["status"]))) {
    emitted.push_back(s.Emit("domain.connection_status_changed", d.accountId,
                             {{"domainDetails", details}, {"previousState", previous}}, now)
                          .id);
  }
  return emitted;
}

Result<TransitionResult> TransitionDomain(State& s, const std::string& domain_id, const std::string& status,
                                          Millis now) {
  const auto to = core::ParseEnum<DomainStatus>(status);
  if (!to) return Error::Validation("status", msg::kDomainStatusValues);
  Domain* d = s.domains.Edit(domain_id);
  if (!d) return Error::NotFound("Domain " + domain_id + " not found");
  TransitionResult r;
  r.previousStatus = d->status;
  r.eventIds = ChangeDomain(s, *d, now, [&](Domain& x) { x.status = *to; });
  return r;
}

// ---- dns-check ---------------------------------------------------------------------------------

Result<std::vector<const Domain*>> FindWorkspaceDomains(const State& s, const Caller& caller,
                                                        const std::vector<std::string>& ids) {
  std::vector<const Domain*> found;
  std::set<std::string> seen;
  std::string missing;
  for (const auto& id : ids) {
    if (!seen.insert(id).second) continue;
    const Domain* d = s.domains.Find(id);
    // Another workspace's domain is "not found" too, so a caller cannot probe foreign ids.
    if (!d || d->workspaceId != caller.workspaceId) {
      missing += (missing.empty() ? "" : ", ") + id;
      continue;
    }
    found.push_back(d);
  }
  if (!missing.empty()) return Error::NotFound("Domain not found in this workspace: " + missing);
  return found;
}

// ---- settings ----------------------------------------------------------------------------------

const char* JobKind(DomainSetting setting) {
  switch (setting) {
    case DomainSetting::kDmarc: return "domains.apply_dmarc";
    case DomainSetting::kForwarding: return "domains.apply_forwarding";
    case DomainSetting::kCatchAll: return "domains.apply_catch_all";
  }
  return "";
}

namespace {
Millis SettingDelay(const State& s, DomainSetting setting) {
  switch (setting) {
    case DomainSetting::kDmarc: return s.TimingMs("dmarcSeconds", 30 * kSecond);
    case DomainSetting::kForwarding: return s.TimingMs("forwardingSeconds", 60 * kSecond);
    case DomainSetting::kCatchAll: return s.TimingMs("catchAllSeconds", 60 * kSecond);
  }
  return 0;
}
}  // namespace

Result<std::int64_t> ScheduleDomainSetting(State& s, const Caller& caller, DomainSetting setting,
                                           const SettingRequest& request, Millis now) {
  auto named = FindWorkspaceDomains(s, caller, request.domainIds);
  if (!named) return named.error();
  // Union of the named domains and the keyword's matches, in the workspace's (creation) order.
  std::set<std::string> selected;
  for (const Domain* d : *named) selected.insert(d->id);
  const std::string needle = ToLower(request.contains);
  json ids = json::array();
  for (const auto& d : s.domains) {
    if (d.workspaceId != caller.workspaceId) continue;
    if (selected.count(d.id) || (!needle.empty() && ContainsFolded(d.domain, needle))) ids.push_back(d.id);
  }
  if (ids.empty()) {
    std::string why = msg::kNoDomainSelected;
    if (!request.contains.empty()) why += " (contains '" + request.contains + "' matched no domain of this workspace)";
    return Error::Validation("domainIds", why);
  }
  const std::int64_t count = static_cast<std::int64_t>(ids.size());
  s.Schedule(now + SettingDelay(s, setting), JobKind(setting), {{"domainIds", std::move(ids)}, {"email", request.email}});
  return count;
}

void ApplyDomainSetting(State& s, DomainSetting setting, const json& args, Millis now) {
  const std::string email = args.at("email").get<std::string>();
  for (const auto& id : args.at("domainIds")) {
    Domain* d = s.domains.Edit(id.get<std::string>());
    if (!d) continue;  // a state loaded since the job was scheduled may no longer hold it
    ChangeDomain(s, *d, now, [&](Domain& x) {
      switch (setting) {
        case DomainSetting::kDmarc:
          x.dmarcEmail = email;
          x.dmarcEmailAddedToReseller = true;
          x.dns.dmarc = true;  // the DMARC record now exists: dns-check reports it
          break;
        case DomainSetting::kForwarding:
          // Gap decision (README): email forwarding is forwardingEmail/forwardingEmailAdded;
          // forwardTo is the domain's web redirect (a URL), which no Part 4 operation sets.
          x.forwardingEmail = email;
          x.forwardingEmailAdded = true;
          break;
        case DomainSetting::kCatchAll:
          x.catchAllEmail = email;
          x.catchAllEmailAdded = true;
          break;
      }
    });
  }
}

Result<std::vector<std::string>> RemoveUnusedDomains(State& s, const Caller& caller, const std::vector<std::string>& ids) {
  const State& read = s;
  std::vector<std::string> targets;
  for (const auto& id : ids) {
    const Domain* d = read.domains.Find(id);
    if (!d || d->workspaceId != caller.workspaceId) return Error::NotFound("Domain " + id + " not found");
    if (auto it = read.mailboxesByDomain.find(id); it != read.mailboxesByDomain.end() && !it->second.empty())
      return Error::Validation("ids", "domain " + d->domain + " holds " + std::to_string(it->second.size()) +
                                          " mailboxes; only unused domains can be removed");
    if (std::find(targets.begin(), targets.end(), id) == targets.end()) targets.push_back(id);
  }
  for (const auto& id : targets) s.RemoveDomain(id);
  return targets;
}

size_t CatchUpDomainSearch(const State& s, const Caller& caller, const std::string& contains, size_t most) {
  return s.domainSearch.CatchUp(s, caller.workspaceId, contains, most);
}

}  // namespace emsim::model
