#include "model/subscriptions.hpp"

#include <algorithm>

#include "model/payloads.hpp"

namespace emsim::model {

std::vector<const Subscription*> ListSubscriptions(const State& s, const std::string& account_id) {
  std::vector<const Subscription*> out;
  for (const auto& sub : s.subscriptions)
    if (sub.accountId == account_id) out.push_back(&sub);
  return out;
}

Result<Subscription*> FindSubscription(State& s, const std::string& account_id, const std::string& subscription_id) {
  // Read-only, then the one found by its id: only that row is noted as changed (model/table.hpp).
  for (const auto& sub : s.subscriptions)
    if (sub.subscriptionId == subscription_id && sub.accountId == account_id) return s.subscriptions.Edit(sub.id);
  return Error::NotFound("Subscription " + subscription_id + " not found");
}

const Plan* FindPlan(const State& s, const std::string& key) {
  for (const auto& p : s.plans)
    if (p.key == key) return &p;
  return nullptr;
}

Status CancelSubscription(State& s, const std::string& account_id, const std::string& subscription_id, Millis now) {
  auto found = FindSubscription(s, account_id, subscription_id);
  if (!found) return found.error();
  Subscription& sub = **found;
  if (sub.subscriptionStatus == SubscriptionStatus::kCancelled)
    return Error::Validation("subscriptionId", "Subscription " + subscription_id + " is already cancelled");
  if (!sub.planUpgradeCancelPossible)
    return Error::Validation("subscriptionId", "Subscription " + subscription_id +
                                                   " cannot be cancelled (planUpgradeCancelPossible is false)");
  json previous = {{"subscriptionStatus", sub.subscriptionStatus},
                   {"planUpgradeCancelPossible", sub.planUpgradeCancelPossible}};
  sub.subscriptionStatus = SubscriptionStatus::kCancelled;
  sub.planUpgradeCancelPossible = false;
  s.Emit("subscription.status_changed", account_id,
         {{"subscriptionDetails", SubscriptionDetails(s, sub)}, {"previousState", std::move(previous)}}, now);
  return Ok{};
}

Status UpgradeSubscription(State& s, const std::string& account_id, const UpgradeRequest& request, Millis now) {
  // Part 4.6 names the plan field uniquePlanKey; one sample calls it lookupKey (DESIGN.md gap table).
  if (!request.uniquePlanKey && !request.lookupKey)
    return Error::Validation("uniquePlanKey", "uniquePlanKey is required (lookupKey is accepted as another name for it)");
  if (request.uniquePlanKey && request.lookupKey && *request.uniquePlanKey != *request.lookupKey)
    return Error::Validation("lookupKey", "uniquePlanKey and lookupKey name different plans (" + *request.uniquePlanKey +
                                              ", " + *request.lookupKey + "): send one of them");
  const std::string plan_field = request.uniquePlanKey ? "uniquePlanKey" : "lookupKey";
  const std::string& key = request.uniquePlanKey ? *request.uniquePlanKey : *request.lookupKey;

  auto found = FindSubscription(s, account_id, request.subscriptionId);
  if (!found) return found.error();
  Subscription& sub = **found;
  const Plan* plan = FindPlan(s, key);
  if (!plan) {
    std::string known;
    for (const auto& p : s.plans) known += (known.empty() ? "" : ", ") + p.key;
    return Error::Validation(plan_field, plan_field + " " + key + " is not a known plan (known: " + known + ")");
  }
  if (sub.subscriptionStatus != SubscriptionStatus::kActive)
    return Error::Validation("subscriptionId", "Subscription " + request.subscriptionId + " is " +
                                                   std::string(core::NameOf(sub.subscriptionStatus)) + " and cannot be upgraded");
  if (!sub.planUpgradeCancelPossible)
    return Error::Validation("subscriptionId", "Subscription " + request.subscriptionId +
                                                   " cannot be upgraded (planUpgradeCancelPossible is false)");
  if (sub.planKey == plan->key)
    return Error::Validation(plan_field, "Subscription " + request.subscriptionId + " is already on plan " + key);

  // Only the Part 2 fields that change go into previousState; planKey and credits are internal.
  json previous = json::object();
  if (sub.plan != plan->plan) previous["plan"] = sub.plan;
  if (sub.price != plan->price) previous["price"] = sub.price;
  if (sub.totalMailboxQuantity != plan->totalMailboxQuantity) previous["totalMailboxQuantity"] = sub.totalMailboxQuantity;

  const Plan* old_plan = FindPlan(s, sub.planKey);
  const std::int64_t old_allotment = old_plan ? old_plan->placementCredits : 0;
  sub.placementCredits = std::max<std::int64_t>(0, sub.placementCredits + plan->placementCredits - old_allotment);
  sub.plan = plan->plan;
  sub.planKey = plan->key;
  sub.price = plan->price;
  sub.totalMailboxQuantity = plan->totalMailboxQuantity;
  s.Emit("subscription.billing_changed", account_id,
         {{"subscriptionDetails", SubscriptionDetails(s, sub)}, {"previousState", std::move(previous)}}, now);
  return Ok{};
}

}  // namespace emsim::model
