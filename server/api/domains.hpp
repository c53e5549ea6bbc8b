#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply ListDomains(app::Ctx& ctx);         // domains.list              GET  /v1/domain/list
app::Reply AvailableDomains(app::Ctx& ctx);    // domains.available         POST /v1/domain/available
app::Reply BuyDomain(app::Ctx& ctx);           // domains.buy               POST /v1/domain/buy-domain
app::Reply DnsCheck(app::Ctx& ctx);            // domains.dns_check         POST /v1/domain/dns-check
app::Reply AddDmarc(app::Ctx& ctx);            // domains.add_dmarc         POST /v1/domain/add-dmarc
app::Reply EnableForwarding(app::Ctx& ctx);    // domains.enable_forwarding POST /v1/domain/enable-email-forwarding
app::Reply EnableCatchAll(app::Ctx& ctx);      // domains.enable_catch_all  POST /v1/domain/enable-catch-all-email

// /_sim control plane for domains (README): status transitions (the checkout: api/control/checkouts).
app::Reply SimTransitionDomain(app::Ctx& ctx);  // POST /_sim/domains/:id/transition
// From the public reference, not the spec (Part 4.11):
app::Reply RemoveUnusedDomains(app::Ctx& ctx);  // domains.remove_unused  DELETE /v2/domains
}  // namespace emsim::api
