#include "api/dns_shield.hpp"

#include "api/shapes.hpp"
#include "model/dns_shield.hpp"
#include "core/messages.hpp"

namespace emsim::api {

app::Reply DnsShieldAvailableSlots(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) {
    json subs = json::array();
    std::int64_t total = 0;
    for (const auto* d : model::ActiveShieldSubscriptions(s, ctx.caller.accountId)) {
      subs.push_back(DnsShieldSlotRecord(*d));
      total += subs.back()["availableSlots"].get<std::int64_t>();  // Part 4.8: the sum of the records'
    }
    return app::Envelope(model::msg::kSuccess, {{"totalAvailableSlots", total}, {"subscriptions", std::move(subs)}});
  });
}

app::Reply DnsShieldUpgradePlan(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // schema: subscriptionId, newPlanName required strings
  auto up = ctx.Write([&](model::State& s) {
    return model::UpgradeShieldPlan(s, ctx.caller.accountId, b.at("subscriptionId"), b.at("newPlanName"), ctx.now);
  });
  if (!up) return up.error();
  // Part 4.8: {message, invoiceUrl}; the message states the old and new plan names.
  return app::Json({{"message", "DNS shield plan upgraded from " + up->oldPlan + " to " + up->newPlan},
                     {"invoiceUrl", InvoiceUrl(ctx.svc.baseUrl, up->invoice.id)}});
}

}  // namespace emsim::api
