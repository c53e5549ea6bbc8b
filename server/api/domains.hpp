#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply ListDomains(http::Ctx& ctx);         // domains.list              GET  /v1/domain/list
http::Reply AvailableDomains(http::Ctx& ctx);    // domains.available         POST /v1/domain/available
http::Reply BuyDomain(http::Ctx& ctx);           // domains.buy               POST /v1/domain/buy-domain
http::Reply DnsCheck(http::Ctx& ctx);            // domains.dns_check         POST /v1/domain/dns-check
http::Reply AddDmarc(http::Ctx& ctx);            // domains.add_dmarc         POST /v1/domain/add-dmarc
http::Reply EnableForwarding(http::Ctx& ctx);    // domains.enable_forwarding POST /v1/domain/enable-email-forwarding
http::Reply EnableCatchAll(http::Ctx& ctx);      // domains.enable_catch_all  POST /v1/domain/enable-catch-all-email

// /_sim control plane for domains (README): checkout pages and status transitions.
http::Reply SimGetCheckout(http::Ctx& ctx);       // GET  /_sim/checkout/:id
http::Reply SimCompleteCheckout(http::Ctx& ctx);  // POST /_sim/checkout/:id/complete
http::Reply SimTransitionDomain(http::Ctx& ctx);  // POST /_sim/domains/:id/transition
}  // namespace emsim::api
