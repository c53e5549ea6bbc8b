#include "api/wallet.hpp"

#include <cmath>

#include "api/shapes.hpp"
#include "model/users.hpp"
#include "model/wallet.hpp"

namespace emsim::api {

namespace {

// The reference's amounts are JSON numbers of US dollars (`"amount": 100.00`); emsim keeps cents.
// A number with more than two decimals is refused (400 naming `param`), not rounded: a mock
// should not credit a cent nobody asked for. The request schema has bounded the value.
model::Result<model::Cents> DollarsToCents(const json& value, const char* param) {
  const double cents = value.get<double>() * 100.0;
  const double whole = std::round(cents);
  if (std::fabs(cents - whole) > 1e-6)
    return model::Error::Validation(param, std::string(param) + " must have at most two decimals (USD cents)");
  return static_cast<model::Cents>(whole);
}

// Whole dollars and cents as the reference's walletBalance number of User Details shows it (100.5).
double DollarNumber(model::Cents c) { return static_cast<double>(c) / 100.0; }

}  // namespace

app::Reply WalletBalance(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    const model::Account* a = s.accounts.Find(ctx.caller.accountId);
    if (!a) return model::Error::Internal("caller's account is missing");
    // https://docs.zapmail.ai/get-wallet-balance-13490707e0: a flat body; walletBalance an integer
    // of USD (whole dollars, rounded down as Part 4.7's walletBalance); the settings as stored.
    return app::Json({{"message", "Wallet balance fetched successfully"},
                      {"walletBalance", model::WholeDollars(a->walletCents)},
                      {"autoRechargeEnabled", a->autoRecharge.enabled},
                      {"autoRechargeDetails",
                       {{"amount", model::WholeDollars(a->autoRecharge.amountCents)},
                        {"threshold", model::WholeDollars(a->autoRecharge.thresholdCents)}}}});
  });
}

app::Reply AddWalletBalance(app::Ctx& ctx) {
  auto amount = DollarsToCents(ctx.req.body.at("amount"), "amount");
  if (!amount) return amount.error();
  auto opened = ctx.Write([&](model::State& s) -> model::Result<std::string> {
    auto c = model::OpenWalletTopUp(s, ctx.caller, *amount, ctx.now);
    if (!c) return c.error();
    return (*c)->id;
  });
  if (!opened) return opened.error();
  // https://docs.zapmail.ai/add-balance-to-wallet-13490582e0: {message, paymentLink}.
  return app::Json({{"message", "Checkout session created successfully"},
                    {"paymentLink", DomainCheckoutUrl(ctx.svc.baseUrl, *opened)}});
}

app::Reply EnableAutoRecharge(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  model::AutoRechargeInput in;
  in.enable = b.at("enable").get<bool>();
  for (const auto& [key, slot] : {std::pair{"threshold", &in.threshold}, std::pair{"minimumRechargeAmount", &in.amount}}) {
    if (!b.contains(key)) continue;
    auto cents = DollarsToCents(b.at(key), key);
    if (!cents) return cents.error();
    *slot = *cents;
  }
  auto done = ctx.Write([&](model::State& s) { return model::SetAutoRecharge(s, ctx.caller, in, ctx.now); });
  if (!done) return done.error();
  // Gap decision (README): emsim has no payment methods, so enabling never answers a paymentLink.
  return app::Json({{"message", in.enable ? "Auto-recharge enabled successfully" : "Auto-recharge disabled successfully"}});
}

app::Reply UserDetails(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto v = model::UserDetails(s, ctx.caller);
    if (!v) return v.error();
    const model::User& u = v->account->user;
    return app::Envelope("User details fetched successfully",
                         {{"id", u.id},
                          {"email", u.email},
                          {"firstName", u.firstName},
                          {"lastName", u.lastName},
                          {"activePlan", v->activePlan ? json(*v->activePlan) : json(nullptr)},
                          {"planEndsOn", v->planEndsOn ? json(model::FormatIso(*v->planEndsOn)) : json(nullptr)},
                          {"purchasedMailboxes", v->purchasedMailboxes},
                          {"assignedMailboxes", v->assignedMailboxes},
                          {"userCreatedAt", model::FormatIso(v->userCreatedAt)},
                          {"walletBalance", DollarNumber(v->account->walletCents)}});
  });
}

}  // namespace emsim::api
