#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply DnsShieldAvailableSlots(http::Ctx& ctx);  // dns_shield.available_slots  GET  /v2/dns-shield/available-slots
http::Reply DnsShieldUpgradePlan(http::Ctx& ctx);     // dns_shield.upgrade_plan      POST /v2/dns-shield/upgrade-plan
}  // namespace emsim::api
