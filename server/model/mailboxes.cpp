#include "model/mailboxes.hpp"

#include <unordered_map>

#include "core/text.hpp"

namespace emsim::model {

std::string MailboxAddress(const State& s, const Mailbox& m) {
  const Domain* d = s.domains.Find(m.domainId);
  // In one allocation: a placement purchase calls this per mailbox under the write lock.
  return Concat({m.username, "@", d ? std::string_view(d->domain) : std::string_view()});
}

namespace {

const std::vector<std::string>& IdsOf(const std::unordered_map<std::string, std::vector<std::string>>& index,
                                      const std::string& key) {
  static const std::vector<std::string> kNone;
  auto it = index.find(key);
  return it == index.end() ? kNone : it->second;
}

}  // namespace

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
  } else {
    // A filter reads every mailbox of the workspace; the buffers are reused, so matching
    // allocates nothing per mailbox.
    std::vector<const Mailbox*> matching;
    std::string address, name;
    const Domain* domain = nullptr;
    // Rows in table order (the creation order of the index too), read contiguously: an id lookup
    // per mailbox costs a cache miss each at 100k.
    for (const Mailbox& row : s.mailboxes) {
      if (row.workspaceId != caller.workspaceId) continue;
      const Mailbox* m = &row;
      if (!domain || domain->id != m->domainId) domain = s.domains.Find(m->domainId);
      address.assign(m->username).append("@").append(domain ? domain->domain : std::string());
      name.assign(m->firstName).append(" ").append(m->lastName);
      if (ContainsFolded(address, needle) || ContainsFolded(name, needle)) matching.push_back(m);
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

}  // namespace emsim::model
