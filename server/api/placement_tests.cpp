#include "api/placement_tests.hpp"

#include "core/json_out.hpp"
#include "api/shapes.hpp"
#include "core/messages.hpp"
#include "model/placement_tests.hpp"
#include "model/wallet.hpp"

namespace emsim::api {

app::Reply PurchasePlacementTests(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // schema: all three fields required (Part 4.7)
  model::PlacementRequest in{b.at("placementType").get<std::string>(), b.at("testName").get<std::string>(),
                             b.at("mailboxIds").get<std::vector<std::string>>()};
  auto r = ctx.Write(
      [&](model::State& s) { return model::PurchasePlacementTests(s, ctx.caller, in, ctx.now); });
  if (!r) return r.error();
  // Written as text (core/json_out.hpp), keys in nlohmann's order, so the bytes are those of the
  // Envelope document (pinned by a test): this is the hottest write endpoint.
  // walletBalance in whole dollars (gap decision); the cost is whole dollars, so
  // previousBalance - amountDeducted == currentBalance exactly.
  core::JsonOut w;
  w.BeginObject().Key("data").BeginObject();
  w.Key("cartOrderId").String(r->cartOrderId);
  w.Key("checkoutSession").Bool(r->checkoutSession);
  w.Key("checkoutUrl").String(r->checkoutSession ? PlacementCheckoutUrl(ctx.svc.baseUrl, r->cartOrderId) : std::string());
  w.Key("currency").String(r->currency);
  w.Key("estimatedCompletionTime").Time(r->estimatedCompletion);
  w.Key("invoice").BeginObject();
  w.Key("invoiceId").String(r->invoiceId);
  w.Key("invoiceUrl").String(InvoiceUrl(ctx.svc.baseUrl, r->invoiceId));
  w.Key("status").String(core::NameOf(r->invoiceStatus));
  w.EndObject();
  w.Key("mailboxCount").Int(static_cast<std::int64_t>(r->orders.size()));
  w.Key("placementType").String(r->placementType);
  w.Key("testName").String(r->testName);
  w.Key("testOrders").BeginArray();
  for (const auto& t : r->orders)
    w.BeginObject().Key("mailboxEmail").String(t.mailboxEmail).Key("orderId").String(t.id).Key("status").String(core::NameOf(t.status)).EndObject();
  w.EndArray();
  w.Key("totalCost").Int(model::WholeDollars(r->totalCostCents));
  w.Key("walletBalance").BeginObject();
  w.Key("amountDeducted").Int((r->walletBefore - r->walletAfter) / 100);
  w.Key("currentBalance").Int(model::WholeDollars(r->walletAfter));
  w.Key("previousBalance").Int(model::WholeDollars(r->walletBefore));
  w.EndObject();
  w.Key("walletUsed").Bool(r->walletUsed);
  w.EndObject();
  w.Key("message").String(r->checkoutSession ? model::msg::kPlacementCheckout : model::msg::kPlacementPurchased);
  w.Key("status").Int(200).EndObject();
  http::Response out;
  out.raw = std::move(w.str());
  return out;
}

}  // namespace emsim::api
