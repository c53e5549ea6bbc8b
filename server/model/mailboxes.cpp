#include "model/mailboxes.hpp"

#include <algorithm>
#include <unordered_map>

#include "core/text.hpp"
#include "model/payloads.hpp"

namespace emsim::model {

std::string MailboxAddress(const State& s, const Mailbox& m) {
  const Domain* d = s.domains.Find(m.domainId);
  // In one allocation: a placement purchase calls this per mailbox under the write lock.
  return Concat({m.username, "@", d ? std::string_view(d->domain) : std::string_view()});
}


MailboxListView ListMailboxes(const State& s, const Caller& caller, const std::string& contains, std::int64_t page) {
  const std::string needle = ToLower(contains);
  MailboxListView view;
  // Counters from the indexes (State keeps them current): no scan of the state per request.
  const auto& in_workspace = IdsOf(s.mailboxesByWorkspace, caller.workspaceId);
  view.totalAssignedMailboxes = static_cast<std::int64_t>(in_workspace.size());
  if (auto it = s.activeMailboxesByWorkspace.find(caller.workspaceId); it != s.activeMailboxesByWorkspace.end())
    view.totalActiveMailboxes = it->second;
  std::int64_t account_assigned = 0;
  for (const auto& w : s.workspaces)
    if (w.accountId == caller.accountId) account_assigned += static_cast<std::int64_t>(IdsOf(s.mailboxesByWorkspace, w.id).size());
  for (const auto& sub : s.subscriptions)
    if (sub.accountId == caller.accountId && sub.subscriptionStatus == SubscriptionStatus::kActive)
      view.purchasedMailboxes += sub.totalMailboxQuantity;
  view.availableMailboxes = std::max<std::int64_t>(0, view.purchasedMailboxes - account_assigned);

  std::vector<const Mailbox*> page_rows;
  if (needle.empty()) {
    // No filter: the page is a slice of the workspace's ids.
    view.page = Paginate(view.totalAssignedMailboxes, page);
    for (auto i = view.page.begin; i < view.page.end; ++i) page_rows.push_back(s.mailboxes.Find(in_workspace[static_cast<size_t>(i)]));
  } else if (const auto at = s.mailboxSearch.MatchesAt(s, caller.workspaceId, needle)) {
    // The index's answer is exact (model/text_search.hpp): positions in the workspace's ids, in
    // order. Only the page's mailboxes are looked up: a needle thousands share ("gen-00" among
    // generated mailboxes) looked each of them up by id and checked it again, a cache miss apiece.
    view.page = Paginate(static_cast<std::int64_t>(at->size()), page);
    for (auto i = view.page.begin; i < view.page.end; ++i)
      if (const Mailbox* m = s.mailboxes.Find(in_workspace[(*at)[static_cast<size_t>(i)]])) page_rows.push_back(m);
  } else {
    // A needle too short for the index, or one most mailboxes may match: the rows in table order
    // (the creation order of the workspace's ids too), contiguously; an id lookup per mailbox
    // costs a cache miss each at 100k.
    std::vector<const Mailbox*> matching;
    std::string address, name;  // reused: matching allocates nothing per mailbox
    const Domain* domain = nullptr;
    for (const Mailbox& m : s.mailboxes) {
      if (m.workspaceId != caller.workspaceId) continue;
      // The address starts with the username: a needle found there is found without looking the
      // domain up.
      if (ContainsFolded(m.username, needle)) {
        matching.push_back(&m);
        continue;
      }
      MailboxSearchTexts(s, m, address, name, domain);
      if (ContainsFolded(address, needle) || ContainsFolded(name, needle)) matching.push_back(&m);
    }
    view.page = Paginate(static_cast<std::int64_t>(matching.size()), page);
    page_rows.assign(matching.begin() + view.page.begin, matching.begin() + view.page.end);
  }
  std::unordered_map<std::string, size_t> group_of;  // domain id -> index in view.domains
  for (const Mailbox* m : page_rows) {
    auto [it, added] = group_of.emplace(m->domainId, view.domains.size());
    if (added) view.domains.push_back({s.domains.Find(m->domainId), {}});
    view.domains[it->second].mailboxes.push_back(m);
  }
  return view;
}

Result<const Mailbox*> FindMailbox(const State& s, const Caller& caller, const std::string& id) {
  const Mailbox* m = s.mailboxes.Find(id);
  if (!m || m->workspaceId != caller.workspaceId) return Error::NotFound("Mailbox " + id + " not found");
  return m;
}

bool ValidMailboxUsername(std::string_view u) {
  if (u.empty() || u.size() > 64) return false;
  auto symbol = [](char c) { return c == '.' || c == '_' || c == '-'; };
  for (size_t i = 0; i < u.size(); ++i) {
    const char c = u[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && !symbol(c)) return false;
    if (symbol(c) && (i == 0 || i + 1 == u.size() || symbol(u[i - 1]))) return false;
  }
  return true;
}

namespace {

// Is `username` taken on the domain by a mailbox other than `except_id`? Case-insensitive.
bool UsernameTaken(const State& s, const std::string& domain_id, const std::string& folded,
                   const std::string& except_id) {
  const auto& same_name = IdsOf(s.mailboxesByName, State::MailboxNameKey(domain_id, folded));
  return std::any_of(same_name.begin(), same_name.end(), [&](const std::string& id) { return id != except_id; });
}

// mailbox.updated (Part 6) with the fields that changed, when any did.
void EmitMailboxChange(State& s, const Mailbox& m, const json& before, Millis now) {
  json after = MailboxDetails(s, m);
  json previous = PreviousState(before, after);
  if (previous.empty()) return;
  s.Emit("mailbox.updated", m.accountId, {{"mailboxDetails", std::move(after)}, {"previousState", std::move(previous)}},
         now);
}

}  // namespace

Result<std::vector<std::string>> AssignMailboxes(State& s, const Caller& caller, const std::vector<AssignRequest>& in,
                                                 Millis now) {
  // Checks first, so a refused request changes nothing.
  std::int64_t wanted = 0;
  for (const auto& req : in) {
    const Domain* d = static_cast<const State&>(s).domains.Find(req.domainId);
    if (!d || d->workspaceId != caller.workspaceId) return Error::NotFound("Domain " + req.domainId + " not found");
    if (req.mailboxes.empty())
      return Error::Validation(req.domainId, "give at least one mailbox for domain " + d->domain);
    if (d->status != DomainStatus::kActive)
      return Error::Validation(req.domainId, "domain " + d->domain + " is " + std::string(core::NameOf(d->status)) +
                                                 "; mailboxes can be assigned to ACTIVE domains only");
    std::vector<std::string> seen;
    for (size_t i = 0; i < req.mailboxes.size(); ++i) {
      const auto& m = req.mailboxes[i];
      const std::string at = req.domainId + "[" + std::to_string(i) + "].";
      if (ToLower(m.domainName) != ToLower(d->domain))
        return Error::Validation(at + "domainName", "domainName " + m.domainName + " is not the name of domain " +
                                                        req.domainId + " (" + d->domain + ")");
      if (!ValidMailboxUsername(m.mailboxUsername))
        return Error::Validation(at + "mailboxUsername",
                                 "mailboxUsername must be 1 to 64 letters, digits and . _ - (not first, last or "
                                 "twice in a row)");
      const std::string folded = ToLower(m.mailboxUsername);
      if (UsernameTaken(s, d->id, folded, "") || std::find(seen.begin(), seen.end(), folded) != seen.end())
        return Error::Validation(at + "mailboxUsername", m.mailboxUsername + "@" + d->domain + " already exists");
      seen.push_back(folded);
    }
    wanted += static_cast<std::int64_t>(req.mailboxes.size());
  }
  const MailboxListView counts = ListMailboxes(s, caller, "", 1);
  if (wanted > counts.availableMailboxes)
    return Error::Validation("body", "not enough mailbox slots: " + std::to_string(wanted) + " asked, " +
                                         std::to_string(counts.availableMailboxes) + " available");
  std::vector<std::string> created;
  for (const auto& req : in) {
    for (const auto& m : req.mailboxes) {
      Mailbox mb;
      mb.id = "mbx_" + s.ids.Uuid4();
      mb.accountId = caller.accountId;
      mb.workspaceId = caller.workspaceId;
      mb.domainId = req.domainId;
      mb.username = m.mailboxUsername;
      mb.firstName = m.firstName;
      mb.lastName = m.lastName;
      mb.status = MailboxStatus::kInProgress;
      mb.assignedOn = mb.createdAt = now;
      mb.expireOn = now + 30 * kDay;  // gap decision: a monthly slot
      created.push_back(s.AddMailbox(std::move(mb)).id);
    }
  }
  s.Schedule(now + s.TimingMs("mailboxActivationSeconds", 300 * kSecond), kMailboxActivateJob,
             {{"mailboxIds", created}});
  return created;
}

void ActivateAssignedMailboxes(State& s, const json& args, Millis now) {
  for (const auto& id : args.at("mailboxIds")) {
    Mailbox* m = s.mailboxes.Edit(id.get<std::string>());
    if (!m || m->status != MailboxStatus::kInProgress) continue;
    const json before = MailboxDetails(s, *m);
    s.SetMailboxStatus(*m, MailboxStatus::kActive);
    EmitMailboxChange(s, *m, before, now);
  }
}

Status UpdateMailboxes(State& s, const Caller& caller, const std::vector<MailboxUpdate>& in, Millis now) {
  const State& read = s;
  // (domain id, folded username) each update will hold, to refuse two updates taking one name.
  std::vector<std::pair<std::string, std::string>> claimed;
  for (size_t i = 0; i < in.size(); ++i) {
    const auto& u = in[i];
    const std::string at = "mailboxData[" + std::to_string(i) + "].";
    const Mailbox* m = read.mailboxes.Find(u.mailboxId);
    if (!m || m->workspaceId != caller.workspaceId) return Error::NotFound("Mailbox " + u.mailboxId + " not found");
    if (!ValidMailboxUsername(u.username))
      return Error::Validation(at + "username",
                               "username must be 1 to 64 letters, digits and . _ - (not first, last or twice in a row)");
    if (u.firstName.empty()) return Error::Validation(at + "firstName", "firstName must not be empty");
    if (u.lastName.empty()) return Error::Validation(at + "lastName", "lastName must not be empty");
    for (size_t k = 0; k < i; ++k)
      if (in[k].mailboxId == u.mailboxId)
        return Error::Validation(at + "mailboxId", "mailbox " + u.mailboxId + " is listed twice");
    std::pair<std::string, std::string> key{m->domainId, ToLower(u.username)};
    bool taken = std::find(claimed.begin(), claimed.end(), key) != claimed.end();
    // Taken by a mailbox this request does not rename away from it.
    for (const auto& id : IdsOf(s.mailboxesByName, State::MailboxNameKey(m->domainId, key.second))) {
      const Mailbox* other = read.mailboxes.Find(id);
      if (!other || other->id == m->id || ToLower(other->username) != key.second) continue;
      const auto renamed = std::find_if(in.begin(), in.end(), [&](const MailboxUpdate& x) { return x.mailboxId == other->id; });
      if (renamed == in.end() || ToLower(renamed->username) == key.second) taken = true;
    }
    if (taken) {
      const Domain* d = read.domains.Find(m->domainId);
      return Error::Validation(at + "username", u.username + "@" + (d ? d->domain : "") + " already exists");
    }
    claimed.push_back(std::move(key));
  }
  for (const auto& u : in) {
    Mailbox* m = s.mailboxes.Edit(u.mailboxId);
    const json before = MailboxDetails(s, *m);
    m->firstName = u.firstName;
    m->lastName = u.lastName;
    s.RenameMailbox(*m, u.username);
    if (u.removeProfilePicture)
      m->profilePicture.reset();
    else if (u.profilePicture && !u.profilePicture->empty())
      m->profilePicture = u.profilePicture;
    EmitMailboxChange(s, *m, before, now);
  }
  return Ok{};
}

Result<std::int64_t> ScheduleMailboxRemoval(State& s, const Caller& caller, const std::vector<std::string>& ids,
                                            bool remove, Millis now) {
  const State& read = s;
  std::vector<std::string> targets;
  if (ids.empty()) {
    for (const auto& id : IdsOf(s.mailboxesByWorkspace, caller.workspaceId)) {
      const Mailbox* m = read.mailboxes.Find(id);
      if (m && m->status == MailboxStatus::kActive) targets.push_back(id);
    }
  } else {
    for (const auto& id : ids) {
      const Mailbox* m = read.mailboxes.Find(id);
      if (!m || m->workspaceId != caller.workspaceId) return Error::NotFound("Mailbox " + id + " not found");
      if (std::find(targets.begin(), targets.end(), id) == targets.end()) targets.push_back(id);
    }
  }
  std::int64_t changed = 0;
  for (const auto& id : targets) {
    if (read.mailboxes.Find(id)->removeOnNextRenewal == remove) continue;
    Mailbox* m = s.mailboxes.Edit(id);
    const json before = MailboxDetails(s, *m);
    m->removeOnNextRenewal = remove;
    EmitMailboxChange(s, *m, before, now);
    ++changed;
  }
  return changed;
}

size_t CatchUpMailboxSearch(const State& s, const Caller& caller, const std::string& contains, size_t most) {
  return s.mailboxSearch.CatchUp(s, caller.workspaceId, contains, most);
}

}  // namespace emsim::model
