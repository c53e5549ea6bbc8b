#include "api/control/billing.hpp"

#include "api/query.hpp"
#include "api/shapes.hpp"
#include "model/invoices.hpp"
#include "model/wallet.hpp"

namespace emsim::api {

namespace {

// /_sim routes skip the pipeline's auth (Access::kControl); the wallet is the account's, so the
// key in x-auth-service is resolved here, with Part 7's 401 when missing or wrong.
model::Result<model::Caller> CallerOf(const model::State& s, const app::Ctx& ctx) {
  return model::Authenticate(s, ctx.req.Header("x-auth-service"), "", false);
}

json WalletJson(const model::Account& a) {
  return {{"accountId", a.id},
          {"balance", model::WholeDollars(a.walletCents)},  // DESIGN.md: whole dollars
          {"balanceCents", a.walletCents},
          {"currency", "USD"}};
}

json InvoiceJson(const std::string& base_url, const model::Invoice& inv) {
  return {{"invoiceId", inv.id},
          {"invoiceUrl", InvoiceUrl(base_url, inv.id)},
          {"accountId", inv.accountId},
          {"description", inv.description},
          {"amount", model::FormatDecimal(inv.amountCents)},
          {"amountCents", inv.amountCents},
          {"currency", inv.currency},
          {"status", inv.status},
          {"paidWith", inv.paidWith == model::PaidWith::kUnpaid ? json(nullptr) : json(inv.paidWith)},
          {"createdAt", model::FormatIso(inv.createdAt)},
          {"paidAt", inv.paidAt ? json(model::FormatIso(*inv.paidAt)) : json(nullptr)}};
}

}  // namespace

app::Reply SimGetWallet(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto caller = CallerOf(s, ctx);
    if (!caller) return caller.error();
    return app::Json(WalletJson(*s.accounts.Find(caller->accountId)));
  });
}

app::Reply SimPutWallet(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // schema: exactly one of balance (dollars) / balanceCents, integers
  const bool dollars = b.contains("balance");
  const std::string param = dollars ? "balance" : "balanceCents";
  const std::int64_t value = b.at(param).get<std::int64_t>();
  if (dollars && (value < 0 || value > model::kMaxWalletCents / 100))
    return model::Error::Validation(param, "balance must be between 0 and " +
                                               std::to_string(model::kMaxWalletCents / 100) + " dollars");
  const model::Cents cents = dollars ? value * 100 : value;
  return ctx.Write([&](model::State& s) -> app::Reply {
    auto caller = CallerOf(s, ctx);
    if (!caller) return caller.error();
    auto done = model::SetWallet(s, caller->accountId, cents, param, ctx.now);
    if (!done) return done.error();
    return app::Json(WalletJson(*s.accounts.Find(caller->accountId)));
  });
}

// The ledger of the caller's wallet, oldest first: each movement with the balance after it, so
// `balanceCents - amountCents` of one is the `balanceCents` of the one before.
app::Reply SimListWalletMovements(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto caller = CallerOf(s, ctx);
    if (!caller) return caller.error();
    json list = json::array();
    for (const model::WalletMovement* m : model::WalletMovementsOf(s, caller->accountId))
      list.push_back({{"id", m->id},
                      {"accountId", m->accountId},
                      {"amountCents", m->amountCents},
                      {"balanceCents", m->balanceCents},
                      {"reason", m->reason},
                      {"reference", m->reference.empty() ? json(nullptr) : json(m->reference)},
                      {"createdAt", model::FormatIso(m->createdAt)}});
    json answer = WalletJson(*s.accounts.Find(caller->accountId));
    answer["movements"] = Newest(std::move(list), Limit(ctx.req));
    return app::Json(std::move(answer));
  });
}

app::Reply SimGetInvoice(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto inv = model::FindInvoice(s, ctx.req.params.at("id"));
    if (!inv) return inv.error();
    return app::Json(InvoiceJson(ctx.svc.baseUrl, **inv));
  });
}

}  // namespace emsim::api
