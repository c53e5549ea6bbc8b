#pragma once
// Part 4.6 subscriptions: list, cancel, upgrade. Subscriptions belong to the account (the
// workspace headers do not select them). `subscriptionId` in requests is the external id.
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

// The account's subscriptions in creation order (fixture order, then newer ones).
std::vector<const Subscription*> ListSubscriptions(const State& s, const std::string& account_id);

// The account's subscription with this external id; unknown or another account's: 404, so a
// caller cannot probe other accounts' ids.
Result<Subscription*> FindSubscription(State& s, const std::string& account_id, const std::string& subscription_id);

// ACTIVE -> CANCELLED (and planUpgradeCancelPossible -> false, as on the fixture's cancelled
// records); emits subscription.status_changed. Already CANCELLED, or an ACTIVE subscription whose
// planUpgradeCancelPossible is false: 400 naming subscriptionId.
Status CancelSubscription(State& s, const std::string& account_id, const std::string& subscription_id, Millis now);

struct UpgradeRequest {
  std::string subscriptionId;
  std::optional<std::string> uniquePlanKey, lookupKey;  // gap decision: either name is accepted
};

// Moves the subscription to the plan (State::plans, by key): plan, planKey, price and
// totalMailboxQuantity take the plan's values; placementCredits change by the difference of the
// two plans' allotments, never below 0. Emits subscription.billing_changed.
// Errors: neither key: 400 uniquePlanKey; both and different: 400 lookupKey; unknown subscription:
// 404; unknown plan: 400 naming the field used; CANCELLED, not changeable, or already on the plan:
// 400 naming subscriptionId (or the plan field).
Status UpgradeSubscription(State& s, const std::string& account_id, const UpgradeRequest& request, Millis now);

const Plan* FindPlan(const State& s, const std::string& key);

}  // namespace emsim::model
