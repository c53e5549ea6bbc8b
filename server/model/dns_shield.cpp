#include "model/dns_shield.hpp"

#include <algorithm>

#include "model/invoices.hpp"
#include "core/text.hpp"

namespace emsim::model {

const std::vector<ShieldPlan>& ShieldPlans() {
  static const std::vector<ShieldPlan> kPlans = {
      {"STARTER", "Starter", 299, 30},
      {"GROWTH", "Growth", 999, 100},
      {"PRO", "Pro", 2999, 500},
  };
  return kPlans;
}

const ShieldPlan* FindShieldPlan(const std::string& name) {
  const std::string upper = ToUpper(name);
  for (const auto& p : ShieldPlans())
    if (upper == p.planType) return &p;
  return nullptr;
}

std::vector<const DnsShieldSubscription*> ActiveShieldSubscriptions(const State& s, const std::string& account_id) {
  std::vector<const DnsShieldSubscription*> out;
  for (const auto& d : s.dnsShield)
    if (d.accountId == account_id && d.status == SubscriptionStatus::kActive) out.push_back(&d);
  return out;
}

Result<ShieldUpgrade> UpgradeShieldPlan(State& s, const std::string& account_id, const std::string& subscription_id,
                                        const std::string& new_plan_name, Millis now) {
  // Read-only, then the one found by its id: only that row is noted as changed (model/table.hpp).
  const DnsShieldSubscription* found = nullptr;
  for (const auto& d : s.dnsShield)
    if (d.accountId == account_id && (d.id == subscription_id || d.subscriptionId == subscription_id)) found = &d;
  DnsShieldSubscription* sub = found ? s.dnsShield.Edit(found->id) : nullptr;
  if (!sub) return Error::NotFound("DNS shield subscription " + subscription_id + " not found");
  const ShieldPlan* to = FindShieldPlan(new_plan_name);
  if (!to) return Error::Validation("newPlanName", "newPlanName must be starter, growth or pro (got " + new_plan_name + ")");
  if (sub->status != SubscriptionStatus::kActive)
    return Error::Validation("subscriptionId", "DNS shield subscription " + subscription_id + " is " +
                                                   std::string(core::NameOf(sub->status)) +
                                                   " and cannot be upgraded");
  const ShieldPlan* from = FindShieldPlan(sub->planType);
  if (!from) return Error::Internal("DNS shield subscription " + subscription_id + " has unknown plan " + sub->planType);
  if (to->priceDollars <= from->priceDollars)
    return Error::Validation("newPlanName", std::string("newPlanName must be a higher plan than the current ") +
                                                from->name + (to == from ? " (it is the same plan)" : ""));
  ShieldUpgrade up;
  up.oldPlan = from->name;
  up.newPlan = to->name;
  up.invoice = IssueInvoice(s,
                            {account_id,
                             std::string("DNS shield lifetime plan upgrade ") + from->name + " -> " + to->name,
                             (to->priceDollars - from->priceDollars) * 100, PaidWith::kCard},
                            now);
  sub->planType = to->planType;
  sub->totalSlots = std::max(sub->totalSlots, to->maxDomains);
  return up;
}

}  // namespace emsim::model
