#include "api/control/checkouts.hpp"

#include <utility>

#include "api/shapes.hpp"
#include "model/checkouts.hpp"
#include "model/wallet.hpp"

namespace emsim::api {

namespace {

json PlacementCheckoutJson(const std::string& base_url, const model::PlacementCart& c) {
  return {{"cartOrderId", c.id},
          {"status", c.status},
          {"testName", c.testName},
          {"placementType", c.placementType},
          {"mailboxCount", static_cast<std::int64_t>(c.orderIds.size())},
          {"amount", model::FormatDecimal(c.totalCostCents)},
          {"amountCents", c.totalCostCents},
          {"invoiceId", c.invoiceId},
          {"invoiceUrl", InvoiceUrl(base_url, c.invoiceId)},
          {"completeUrl", PlacementCheckoutUrl(base_url, c.id) + "/complete"}};
}

}  // namespace

app::Reply SimGetCheckout(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto c = model::FindDomainCheckout(s, ctx.req.params.at("id"));
    if (!c) return c.error();
    return app::Json(CheckoutRecord(**c, DomainCheckoutUrl(ctx.svc.baseUrl, (*c)->id)));
  });
}

app::Reply SimCompleteCheckout(app::Ctx& ctx) {
  return ctx.Write([&](model::State& s) -> app::Reply {
    // Paid on the clock of the checkout's account (a tenant's own, if it has one).
    if (const model::Checkout* k = std::as_const(s).checkouts.Find(ctx.req.params.at("id"))) ctx.UseClockOf(s, k->accountId);
    auto c = model::CompleteDomainCheckout(s, ctx.req.params.at("id"), ctx.now);
    if (!c) return c.error();
    json checkout = CheckoutRecord(**c, DomainCheckoutUrl(ctx.svc.baseUrl, (*c)->id));
    if ((*c)->purpose == model::kCheckoutForWallet) {  // a wallet top-up: the wallet it credited
      const model::Account& a = *s.accounts.Find((*c)->accountId);
      return app::Json({{"checkout", std::move(checkout)},
                        {"wallet", {{"accountId", a.id}, {"balance", model::WholeDollars(a.walletCents)},
                                    {"balanceCents", a.walletCents}, {"currency", "USD"}}}});
    }
    return app::Json({{"checkout", std::move(checkout)},
                      {"domain", DomainListRecord(s, *s.domains.Find(*(*c)->domainId))}});
  });
}

app::Reply SimGetPlacementCheckout(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto c = model::FindPlacementCheckout(s, ctx.req.params.at("id"));
    if (!c) return c.error();
    return app::Json(PlacementCheckoutJson(ctx.svc.baseUrl, **c));
  });
}

app::Reply SimCompletePlacementCheckout(app::Ctx& ctx) {
  auto done = ctx.Write([&](model::State& s) {
    if (auto cart = model::FindPlacementCheckout(s, ctx.req.params.at("id"))) ctx.UseClockOf(s, (*cart)->accountId);
    return model::CompletePlacementCheckout(s, ctx.req.params.at("id"), ctx.now);
  });
  if (!done) return done.error();
  return app::Json(PlacementCheckoutJson(ctx.svc.baseUrl, *done));
}

}  // namespace emsim::api
