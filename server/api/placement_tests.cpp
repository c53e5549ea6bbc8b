#include "api/placement_tests.hpp"

#include "api/shapes.hpp"
#include "model/messages.hpp"
#include "model/placement_tests.hpp"
#include "model/wallet.hpp"

namespace emsim::api {

http::Reply PurchasePlacementTests(http::Ctx& ctx) {
  const json& b = ctx.req.body;  // schema: all three fields required (Part 4.7)
  model::PlacementRequest in{b.at("placementType").get<std::string>(), b.at("testName").get<std::string>(),
                             b.at("mailboxIds").get<std::vector<std::string>>()};
  auto r = ctx.svc.store.Write(
      [&](model::State& s) { return model::PurchasePlacementTests(s, ctx.caller, in, ctx.now); });
  if (!r) return r.error();
  const model::PlacementCart& cart = r->cart;
  json orders = json::array();
  for (const auto& t : r->orders)
    orders.push_back({{"orderId", t.id}, {"mailboxEmail", t.mailboxEmail}, {"status", t.status}});
  // walletBalance in whole dollars (gap decision); the cost is whole dollars, so
  // previousBalance - amountDeducted == currentBalance exactly.
  json data = {
      {"checkoutUrl", cart.checkoutSession ? PlacementCheckoutUrl(ctx.svc.baseUrl, cart.id) : std::string()},
      {"checkoutSession", cart.checkoutSession},
      {"walletUsed", cart.walletUsed},
      {"cartOrderId", cart.id},
      {"testName", cart.testName},
      {"placementType", cart.placementType},
      {"mailboxCount", static_cast<std::int64_t>(r->orders.size())},
      {"totalCost", model::WholeDollars(cart.totalCostCents)},
      {"currency", r->invoice.currency},
      {"invoice", {{"invoiceId", r->invoice.id},
                   {"invoiceUrl", InvoiceUrl(ctx.svc.baseUrl, r->invoice.id)},
                   {"status", r->invoice.status}}},
      {"walletBalance", {{"previousBalance", model::WholeDollars(r->walletBefore)},
                         {"amountDeducted", (r->walletBefore - r->walletAfter) / 100},
                         {"currentBalance", model::WholeDollars(r->walletAfter)}}},
      {"testOrders", std::move(orders)},
      {"estimatedCompletionTime", model::FormatIso(r->estimatedCompletion)}};
  ctx.svc.scheduler.Poke();  // real clock: the first step is due later, but wake the runner anyway
  return http::Envelope(cart.checkoutSession ? model::msg::kPlacementCheckout : model::msg::kPlacementPurchased,
                        std::move(data));
}

}  // namespace emsim::api
