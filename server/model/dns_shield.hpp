#pragma once
// Part 4.8 DNS shield: lifetime-deal plans protecting a fixed number of domains (Part 8).
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct ShieldPlan {
  const char* planType;  // STARTER | GROWTH | PRO (Part 2 planType)
  const char* name;      // as Part 8 writes it
  std::int64_t priceDollars;
  std::int64_t maxDomains;
};

// Part 8, in ascending order: Starter $299 / 30 domains, Growth $999 / 100, Pro $2,999 / 500.
const std::vector<ShieldPlan>& ShieldPlans();
// By planType or name, case-insensitive ("growth", "GROWTH", "Growth"); null when unknown.
const ShieldPlan* FindShieldPlan(const std::string& name);

// The account's ACTIVE DNS shield subscriptions, in creation order.
std::vector<const DnsShieldSubscription*> ActiveShieldSubscriptions(const State& s, const std::string& account_id);

struct ShieldUpgrade {
  std::string oldPlan, newPlan;  // Part 8 names ("Starter", "Growth")
  Invoice invoice;
};

// Gap decisions (README): `subscriptionId` is the slot record's `id` (the only id
// available-slots shows) or its external subscriptionId. Unknown or another account's: 404.
// Not ACTIVE: 400 subscriptionId. Unknown plan name, the same plan or a lower one: 400
// newPlanName. Success: planType and the new plan's slot limit (totalSlots never shrinks); the
// one-time payment is the price difference of the two plans, charged to the payment method on
// file and invoiced (PAID, CARD); the wallet is not touched (Part 4.8 shows no wallet fields).
Result<ShieldUpgrade> UpgradeShieldPlan(State& s, const std::string& account_id, const std::string& subscription_id,
                                        const std::string& new_plan_name, Millis now);

}  // namespace emsim::model
