#include "api/control/checkouts.hpp"

#include <utility>

#include "api/control/checkout_page.hpp"
#include "api/shapes.hpp"
#include "core/enum_names.hpp"
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

// ---- the HTML page (checkout_page.hpp): same records, same model calls --------------------------

constexpr std::string_view kDomainCheckoutPath = "/_sim/checkout/";
constexpr std::string_view kPlacementCheckoutPath = "/_sim/placement-checkouts/";

bool WantsCheckoutPage(const app::Ctx& ctx) { return PrefersHtml(ctx.req.Header("accept")); }

std::string AccountLine(const model::State& s, const std::string& account_id) {
  const model::Account* a = s.accounts.Find(account_id);
  if (!a) return account_id;
  std::string name = a->user.firstName + (a->user.lastName.empty() ? "" : " " + a->user.lastName);
  std::string out = a->user.email.empty() ? account_id : a->user.email + " (" + account_id + ")";
  return name.empty() ? out : name + ", " + out;
}

std::string Dollars(model::Cents c) { return "$" + model::FormatDecimal(c) + " USD"; }

std::string PaidNote(model::PaidWith how, std::optional<model::Millis> at) {
  const std::string with = how == model::PaidWith::kWallet ? "from the wallet" : "at this checkout";
  return "paid " + with + " on " + model::FormatIso(at.value_or(0));
}

CheckoutView DomainCheckoutView(const model::State& s, const model::Checkout& c) {
  CheckoutView v;
  v.pagePath = std::string(kDomainCheckoutPath) + c.id;
  v.amount = Dollars(c.amountCents);
  v.open = c.status == model::CheckoutStatus::kPending;
  if (c.purpose == model::kCheckoutForWallet) {
    v.title = "Wallet top-up";
    v.rows = {{"Account", AccountLine(s, c.accountId)}, {"Buys", "wallet credit of " + Dollars(c.amountCents)}};
    v.deliveredNote = "The wallet was credited " + Dollars(c.amountCents) + ".";
  } else {
    v.title = "Domain purchase";
    v.rows = {{"Account", AccountLine(s, c.accountId)},
              {"Buys", c.domainName + " for " + std::to_string(c.years) + (c.years == 1 ? " year" : " years")},
              {"Workspace", c.workspaceId}};
    v.deliveredNote = "The domain " + c.domainName + " is being registered (PENDING).";
  }
  v.rows.emplace_back("Checkout", c.id);
  v.rows.emplace_back("Status", std::string(core::NameOf(c.status)));
  if (!v.open) v.paidNote = PaidNote(c.paidWith, c.paidAt);
  return v;
}

CheckoutView PlacementCheckoutView(const model::State& s, const model::PlacementCart& c) {
  CheckoutView v;
  v.title = "Inbox placement test";
  v.pagePath = std::string(kPlacementCheckoutPath) + c.id;
  v.amount = Dollars(c.totalCostCents);
  v.open = c.status == model::CartStatus::kAwaitingPayment;
  const size_t n = c.orderIds.size();
  v.rows = {{"Account", AccountLine(s, c.accountId)},
            {"Buys", c.placementType + " placement test \"" + c.testName + "\" of " + std::to_string(n) +
                         (n == 1 ? " mailbox" : " mailboxes")},
            {"Invoice", c.invoiceId},
            {"Checkout", c.id},
            {"Status", std::string(core::NameOf(c.status))}};
  v.deliveredNote = "The invoice is paid and the " + std::to_string(n) + " test " + (n == 1 ? "order" : "orders") +
                    " started (PENDING).";
  if (!v.open) v.paidNote = PaidNote(model::PaidWith::kCheckout, c.paidAt);
  return v;
}

CheckoutNotice NoticeOf(const app::Request& req) {
  if (req.Query("paid") == "1") return CheckoutNotice::kPaid;
  if (req.Query("declined") == "1") return CheckoutNotice::kDeclined;
  return CheckoutNotice::kNone;
}

// A completion asked for by the page's form: the page again, by a 303 (post/redirect/get),
// when it was paid or had been already; the page with the error otherwise (nothing changed).
template <class ViewOf>
http::Response CompletionPageAnswer(const model::State& s, const std::string& id, const model::Error& err,
                                    std::string_view base_path, ViewOf view_of) {
  if (err.code == model::ErrorCode::kNotFound) return UnknownCheckoutPage(err.message);
  if (!err.errors.empty() && err.errors.front().param == "id") return SeeOther(std::string(base_path) + id);
  auto v = view_of(s, id);
  if (!v) return UnknownCheckoutPage(err.message);
  return CheckoutPage(*v, CheckoutNotice::kError, err.message, err.code == model::ErrorCode::kValidation ? 400 : 500);
}

}  // namespace

app::Reply SimGetCheckout(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto c = model::FindDomainCheckout(s, ctx.req.params.at("id"));
    if (WantsCheckoutPage(ctx)) {
      if (!c) return UnknownCheckoutPage(c.error().message);
      return CheckoutPage(DomainCheckoutView(s, **c), NoticeOf(ctx.req));
    }
    if (!c) return c.error();
    return app::Json(CheckoutRecord(**c, DomainCheckoutUrl(ctx.svc.baseUrl, (*c)->id)));
  });
}

app::Reply SimCompleteCheckout(app::Ctx& ctx) {
  return ctx.Write([&](model::State& s) -> app::Reply {
    // Paid on the clock of the checkout's account (a tenant's own, if it has one).
    if (const model::Checkout* k = s.checkouts.Find(ctx.req.params.at("id"))) ctx.UseClockOf(s, k->accountId);
    auto c = model::CompleteDomainCheckout(s, ctx.req.params.at("id"), ctx.now);
    if (WantsCheckoutPage(ctx)) {
      if (c) return SeeOther(std::string(kDomainCheckoutPath) + (*c)->id + "?paid=1");
      return CompletionPageAnswer(s, ctx.req.params.at("id"), c.error(), kDomainCheckoutPath,
                                  [](const model::State& st, const std::string& id) -> std::optional<CheckoutView> {
                                    const model::Checkout* found = st.checkouts.Find(id);
                                    if (!found) return std::nullopt;
                                    return DomainCheckoutView(st, *found);
                                  });
    }
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
    if (WantsCheckoutPage(ctx)) {
      if (!c) return UnknownCheckoutPage(c.error().message);
      return CheckoutPage(PlacementCheckoutView(s, **c), NoticeOf(ctx.req));
    }
    if (!c) return c.error();
    return app::Json(PlacementCheckoutJson(ctx.svc.baseUrl, **c));
  });
}

app::Reply SimCompletePlacementCheckout(app::Ctx& ctx) {
  auto done = ctx.Write([&](model::State& s) {
    if (auto cart = model::FindPlacementCheckout(s, ctx.req.params.at("id"))) ctx.UseClockOf(s, (*cart)->accountId);
    return model::CompletePlacementCheckout(s, ctx.req.params.at("id"), ctx.now);
  });
  if (WantsCheckoutPage(ctx)) {
    if (done) return SeeOther(std::string(kPlacementCheckoutPath) + done->id + "?paid=1");
    return ctx.Read([&](const model::State& s) -> app::Reply {
      return CompletionPageAnswer(s, ctx.req.params.at("id"), done.error(), kPlacementCheckoutPath,
                                  [](const model::State& st, const std::string& id) -> std::optional<CheckoutView> {
                                    auto found = model::FindPlacementCheckout(st, id);
                                    if (!found) return std::nullopt;
                                    return PlacementCheckoutView(st, **found);
                                  });
    });
  }
  if (!done) return done.error();
  return app::Json(PlacementCheckoutJson(ctx.svc.baseUrl, *done));
}

}  // namespace emsim::api
