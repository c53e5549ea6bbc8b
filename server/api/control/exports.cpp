#include "api/control/exports.hpp"

#include "core/messages.hpp"
#include "model/payloads.hpp"
#include "model/tenants.hpp"

namespace emsim::api {
namespace {

// The full record for tests: the event payload's fields plus the selection, what each
// third-party app received, and the CSV.
json ExportRecord(const model::MailboxExport& x) {
  json r = model::ExportDetails(x);
  r["accountId"] = x.accountId;
  r["mailboxIds"] = x.mailboxIds;
  r["filters"] = x.filters;
  for (size_t i = 0; i < x.results.size(); ++i) r["results"][i]["sentMailboxes"] = x.results[i].sentMailboxes;
  r["csv"] = x.csv;
  return r;
}

// Optional scoping by x-auth-service, so a test on a tenant sees only its own exports.
// Answers the account id ("" = every account) or an error for an unknown key.
model::Result<std::string> ScopeAccount(const app::Ctx& ctx, const model::State& s) {
  const std::string key = ctx.req.Header("x-auth-service");
  if (key.empty()) return std::string();
  auto it = s.accountByApiKey.find(key);
  if (it == s.accountByApiKey.end()) return model::Error::Unauthorized(model::msg::kInvalidApiKey);
  return it->second;
}

}  // namespace

app::Reply SimListExports(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto account = ScopeAccount(ctx, s);
    if (!account) return account.error();
    const std::string workspace = ctx.req.Query("workspaceId"), status = ctx.req.Query("status");
    json exports = json::array();
    for (const auto& x : s.exports) {
      if (!account->empty() && x.accountId != *account) continue;
      if (!workspace.empty() && x.workspaceId != workspace) continue;
      if (!status.empty() && core::NameOf(x.status) != status) continue;
      exports.push_back(ExportRecord(x));
    }
    return app::Json({{"exports", std::move(exports)}});
  });
}

app::Reply SimGetExport(app::Ctx& ctx) {
  const std::string id = ctx.req.params.at("id");
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto account = ScopeAccount(ctx, s);
    if (!account) return account.error();
    const model::MailboxExport* x = s.exports.Find(id);
    if (!x || (!account->empty() && x->accountId != *account)) return model::Error::NotFound("Export " + id + " not found");
    if (ctx.req.Query("format") != "csv") return app::Json(ExportRecord(*x));
    if (!x->csv)
      return model::Error::NotFound("Export " + id + " has no CSV" +
                                    (x->status == model::ExportStatus::kStarted ? " yet (status STARTED: advance the clock past exportSeconds)"
                                                            : " (MANUAL was not among its apps)"));
    http::Response res{.status = 200, .raw = *x->csv, .contentType = "text/csv; charset=utf-8"};
    res.headers.emplace_back("Content-Disposition", "attachment; filename=\"mailboxes-" + x->id + ".csv\"");
    return res;
  });
}

namespace {

// A tenant's clock as the tenant routes show it: {kind, now, epochMs, mode}; a shared clock shows
// the instance clock.
json TenantClockJson(const model::Tenant& t, const runtime::Clock& instance) {
  const bool own = t.OwnClock();
  const model::Millis now = own ? model::OwnClockNow(t, runtime::Clock::WallNow()) : instance.Now();
  return {{"kind", t.clock},
          {"now", model::FormatIso(now)},
          {"epochMs", now},
          {"mode", own ? t.clockMode : runtime::ToString(instance.mode())}};
}

json TenantJson(const model::TenantInfo& info, const model::Tenant& t, const runtime::Clock& instance) {
  json workspaces = json::array();
  for (const auto& w : info.workspaces) workspaces.push_back({{"id", w.id}, {"name", w.name}, {"default", w.isDefault}});
  return {{"accountId", info.accountId},
          {"apiKey", info.apiKey},
          {"tag", info.tag},
          {"template", t.templateId},
          {"clock", TenantClockJson(t, instance)},
          {"user", {{"id", info.userId}, {"email", info.userEmail}}},
          {"workspaces", std::move(workspaces)}};
}

}  // namespace

app::Reply SimCreateTenant(app::Ctx& ctx) {
  const std::string tpl = ctx.req.hasBody ? ctx.req.body.value("template", "") : "";
  // Own by default: parallel tests on one emsim each advance their own time (README "Parallel
  // tests: tenants").
  const bool own = (ctx.req.hasBody ? ctx.req.body.value("clock", "own") : "own") == "own";
  std::optional<model::OwnClockStart> clock;
  if (own) clock = model::OwnClockStart{runtime::ToString(ctx.svc.clock.mode()), ctx.svc.clock.Now(), runtime::Clock::WallNow()};
  std::optional<model::Tenant> row;
  auto tenant = ctx.svc.store.WriteWithBaseline([&](model::State& s, const model::State& fixture) {
    auto info = model::CreateTenant(s, fixture, tpl, ctx.svc.clock.Now(), clock, ctx.svc.options.shardId);
    if (info) row = *s.tenants.Find(info->accountId);
    return info;
  });
  if (!tenant) return tenant.error();
  return app::Json(TenantJson(*tenant, *row, ctx.svc.clock), 201);
}

app::Reply SimListTenants(app::Ctx& ctx) {
  json list = ctx.Read([&](const model::State& s) {
    json out = json::array();
    for (const auto& t : s.tenants)
      out.push_back({{"accountId", t.id},
                     {"tag", t.tag},
                     {"template", t.templateId},
                     {"clock", TenantClockJson(t, ctx.svc.clock)},
                     {"created", model::FormatIso(t.createdAt)}});
    return out;
  });
  return app::Json({{"tenants", std::move(list)}});
}

app::Reply SimResetTenant(app::Ctx& ctx) {
  const std::string& id = ctx.req.params.at("id");
  std::optional<model::Tenant> row;
  auto tenant = ctx.svc.store.WriteWithBaseline([&](model::State& s, const model::State& fixture) {
    auto info = model::ResetTenant(s, fixture, id, runtime::Clock::WallNow());
    if (info) row = *s.tenants.Find(id);
    return info;
  });
  if (!tenant) return tenant.error();
  const size_t forgotten = ctx.svc.journal.EraseAccount(id);
  json out = TenantJson(*tenant, *row, ctx.svc.clock);
  out["requestsForgotten"] = forgotten;
  return app::Json(std::move(out));
}

app::Reply SimDeleteTenant(app::Ctx& ctx) {
  const std::string& id = ctx.req.params.at("id");
  auto deleted = ctx.svc.store.Write([&](model::State& s) { return model::DeleteTenant(s, id); });
  if (!deleted) return deleted.error();
  const size_t forgotten = ctx.svc.journal.EraseAccount(id);
  return app::Json({{"status", "ok"}, {"deleted", id}, {"requestsForgotten", forgotten}});
}

}  // namespace emsim::api
