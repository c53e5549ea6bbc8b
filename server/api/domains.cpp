#include "api/domains.hpp"

#include "api/query.hpp"
#include "api/shapes.hpp"
#include "model/domain_purchase.hpp"
#include "model/domains.hpp"
#include "core/messages.hpp"

namespace emsim::api {

namespace {

std::vector<std::string> StringList(const json& body, const char* key) {
  return body.contains(key) ? body[key].get<std::vector<std::string>>() : std::vector<std::string>{};
}

// add-dmarc, enable-email-forwarding, enable-catch-all-email share one shape (Part 4.4).
app::Reply ScheduleSetting(app::Ctx& ctx, model::DomainSetting setting, const char* message) {
  const json& b = ctx.req.body;  // shape checked by schemas/requests/domains.<op>.json
  model::SettingRequest in{StringList(b, "domainIds"), b.value("contains", std::string()), b.at("email").get<std::string>()};
  auto count = ctx.Write(
      [&](model::State& s) { return model::ScheduleDomainSetting(s, ctx.caller, setting, in, ctx.now); });
  if (!count) return count.error();
  // Part 4.4: data null; the change happens asynchronously.
  return app::Envelope(std::string(message) + " (" + std::to_string(*count) + " domain" + (*count == 1 ? "" : "s") + ")",
                        nullptr);
}

}  // namespace

app::Reply ListDomains(app::Ctx& ctx) {
  auto page_or = QueryInt(ctx.req, "page", 1, 1, kMaxPage);
  if (!page_or) return page_or.error();
  const std::int64_t page = *page_or;
  const std::string contains = ctx.req.Query("contains");
  ctx.ReadInSteps([&](const model::State& s) { return model::CatchUpDomainSearch(s, ctx.caller, contains, kIndexStep); });
  return ctx.Read([&](const model::State& s) {
    auto view = model::ListDomains(s, ctx.caller, contains, page);
    // Written as text (core/json_out.hpp); the same bytes as the Envelope of DomainListRecords.
    core::JsonOut w;
    w.BeginObject().Key("data").BeginObject().Key("currentPage").Int(view.page.currentPage).Key("domains").BeginArray();
    for (const auto* d : view.domains) WriteDomainListRecord(w, s, *d);
    w.EndArray()
        .Key("nextPage").Int(view.page.nextPage)
        .Key("totalPages").Int(view.page.totalPages)
        .Key("totalSearchedCount").Int(view.page.totalSearchedCount)
        .EndObject();
    return FinishTextEnvelope(w);
  });
}

app::Reply AvailableDomains(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  auto found = ctx.Read([&](const model::State& s) {
    return model::CheckAvailability(s, b.at("domainName").get<std::string>(), b.value("years", std::int64_t{1}));
  });
  if (!found) return found.error();
  json list = json::array();
  for (const auto& a : *found) list.push_back(AvailableDomainRecord(a));
  return app::Envelope(model::msg::kSuccess, {{"availableDomains", std::move(list)}});
}

app::Reply BuyDomain(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  const bool use_wallet = b.value("useWallet", false);
  auto bought = ctx.Write([&](model::State& s) -> model::Result<std::pair<model::Checkout, model::Cents>> {
    auto r = model::BuyDomain(s, ctx.caller, b.at("domainName").get<std::string>(), b.value("years", std::int64_t{1}),
                              use_wallet, ctx.now);
    if (!r) return r.error();
    return std::make_pair(*r->checkout, r->walletCents);
  });
  if (!bought) return bought.error();
  const auto& [checkout, wallet] = *bought;
  const std::string price = model::FormatDecimal(checkout.amountCents);
  std::string message;
  if (checkout.status == model::CheckoutStatus::kPaid) {
    message = "Domain " + checkout.domainName + " purchased for " + price +
              " from the wallet; it will be connected shortly";
  } else if (use_wallet) {
    message = "Wallet balance " + model::FormatDecimal(wallet) + " is less than the price " + price +
              "; complete the payment to buy " + checkout.domainName;
  } else {
    message = "Complete the payment of " + price + " to buy " + checkout.domainName;
  }
  // Part 4.4: exactly {message, paymentLink}, no status or data.
  return app::Json({{"message", std::move(message)}, {"paymentLink", DomainCheckoutUrl(ctx.svc.baseUrl, checkout.id)}});
}

app::Reply DnsCheck(app::Ctx& ctx) {
  const auto ids = StringList(ctx.req.body, "domainIds");
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto found = model::FindWorkspaceDomains(s, ctx.caller, ids);
    if (!found) return found.error();
    json data = json::array();
    for (const auto* d : *found) data.push_back(DnsCheckRecord(*d));
    return app::Envelope(model::msg::kDnsChecked, std::move(data));
  });
}

app::Reply AddDmarc(app::Ctx& ctx) {
  return ScheduleSetting(ctx, model::DomainSetting::kDmarc, model::msg::kDmarcScheduled);
}
app::Reply EnableForwarding(app::Ctx& ctx) {
  return ScheduleSetting(ctx, model::DomainSetting::kForwarding, model::msg::kForwardingScheduled);
}
app::Reply EnableCatchAll(app::Ctx& ctx) {
  return ScheduleSetting(ctx, model::DomainSetting::kCatchAll, model::msg::kCatchAllScheduled);
}

// ---- /_sim ---------------------------------------------------------------------------------------

app::Reply SimTransitionDomain(app::Ctx& ctx) {
  const std::string& id = ctx.req.params.at("id");
  const std::string status = ctx.req.body.at("status");
  return ctx.Write([&](model::State& s) -> app::Reply {
    auto t = model::TransitionDomain(s, id, status, ctx.now);
    if (!t) return t.error();
    return app::Json({{"domain", DomainListRecord(s, *s.domains.Find(id))},
                       {"previousStatus", t->previousStatus},
                       {"eventIds", t->eventIds}});
  });
}

app::Reply RemoveUnusedDomains(app::Ctx& ctx) {
  const auto ids = ctx.req.body.at("ids").get<std::vector<std::string>>();
  auto done = ctx.Write([&](model::State& s) { return model::RemoveUnusedDomains(s, ctx.caller, ids); });
  if (!done) return done.error();
  // Gap decision: the reference's 200 body is not shown past status and message; data names
  // the removed ids.
  return app::Envelope("Domains removed successfully", {{"removedDomainIds", *done}});
}

}  // namespace emsim::api
