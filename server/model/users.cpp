#include "model/users.hpp"

namespace emsim::model {

Result<UserDetailsView> UserDetails(const State& s, const Caller& caller) {
  UserDetailsView v;
  v.account = s.accounts.Find(caller.accountId);
  if (!v.account) return Error::Internal("caller's account is missing");
  const Subscription* newest = nullptr;
  for (const auto& sub : s.subscriptions) {
    if (sub.accountId != caller.accountId || sub.subscriptionStatus != SubscriptionStatus::kActive) continue;
    v.purchasedMailboxes += sub.totalMailboxQuantity;
    if (!newest || sub.subscriptionCreationDate >= newest->subscriptionCreationDate) newest = &sub;
  }
  if (newest) {
    v.activePlan = newest->plan;
    v.planEndsOn = newest->periodEnd;
  }
  bool first = true;
  for (const auto& w : s.workspaces) {
    if (w.accountId != caller.accountId) continue;
    v.assignedMailboxes += static_cast<std::int64_t>(IdsOf(s.mailboxesByWorkspace, w.id).size());
    if (first || w.createdAt < v.userCreatedAt) v.userCreatedAt = w.createdAt;
    first = false;
  }
  return v;
}

}  // namespace emsim::model
