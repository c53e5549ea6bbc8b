#include "model/mailboxes.hpp"

#include <unordered_map>

#include "model/text.hpp"

namespace emsim::model {

std::string MailboxAddress(const State& s, const Mailbox& m) {
  const Domain* d = s.domains.Find(m.domainId);
  return m.username + "@" + (d ? d->domain : std::string());
}

MailboxListView ListMailboxes(const State& s, const Caller& caller, const std::string& contains, std::int64_t page) {
  const std::string needle = ToLower(contains);
  MailboxListView view;
  std::int64_t account_assigned = 0;
  std::vector<const Mailbox*> matching;
  for (const auto& m : s.mailboxes) {
    if (m.accountId != caller.accountId) continue;
    ++account_assigned;
    if (m.workspaceId != caller.workspaceId) continue;
    ++view.totalAssignedMailboxes;
    if (m.status == "ACTIVE") ++view.totalActiveMailboxes;
    if (!needle.empty() && !ContainsFolded(MailboxAddress(s, m), needle) &&
        !ContainsFolded(m.firstName + " " + m.lastName, needle))
      continue;
    matching.push_back(&m);
  }
  for (const auto& sub : s.subscriptions)
    if (sub.accountId == caller.accountId && sub.subscriptionStatus == "ACTIVE")
      view.purchasedMailboxes += sub.totalMailboxQuantity;
  view.availableMailboxes = std::max<std::int64_t>(0, view.purchasedMailboxes - account_assigned);
  view.page = Paginate(static_cast<std::int64_t>(matching.size()), page);
  std::unordered_map<std::string, size_t> group_of;  // domain id -> index in view.domains
  for (auto i = view.page.begin; i < view.page.end; ++i) {
    const Mailbox* m = matching[static_cast<size_t>(i)];
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
