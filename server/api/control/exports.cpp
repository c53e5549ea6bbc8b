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
    http::Response res{200, nullptr, *x->csv, "text/csv; charset=utf-8", {}};
    res.headers.emplace_back("Content-Disposition", "attachment; filename=\"mailboxes-" + x->id + ".csv\"");
    return res;
  });
}

app::Reply SimCreateTenant(app::Ctx& ctx) {
  const std::string tpl = ctx.req.hasBody ? ctx.req.body.value("template", "") : "";
  auto tenant = ctx.svc.store.WriteWithBaseline(
      [&](model::State& s, const model::State& fixture) { return model::CreateTenant(s, fixture, tpl, ctx.now, ctx.svc.options.shardId); });
  if (!tenant) return tenant.error();
  json workspaces = json::array();
  for (const auto& w : tenant->workspaces) workspaces.push_back({{"id", w.id}, {"name", w.name}, {"default", w.isDefault}});
  return app::Json({{"accountId", tenant->accountId},
                     {"apiKey", tenant->apiKey},
                     {"tag", tenant->tag},
                     {"user", {{"id", tenant->userId}, {"email", tenant->userEmail}}},
                     {"workspaces", std::move(workspaces)}},
                    201);
}

}  // namespace emsim::api
