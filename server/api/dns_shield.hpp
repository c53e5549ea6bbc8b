#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply DnsShieldAvailableSlots(app::Ctx& ctx);  // dns_shield.available_slots  GET  /v2/dns-shield/available-slots
app::Reply DnsShieldUpgradePlan(app::Ctx& ctx);     // dns_shield.upgrade_plan      POST /v2/dns-shield/upgrade-plan
}  // namespace emsim::api
