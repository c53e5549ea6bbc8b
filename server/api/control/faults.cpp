#include "api/control/faults.hpp"

#include "api/control/control.hpp"
#include "model/faults.hpp"
#include "model/state_secrets.hpp"

namespace emsim::api {

namespace {
// The account key in x-auth-service, if one is sent: faults made with it are that account's
// (parallel tests on tenants). "" without one; a key that names no account is refused.
model::Result<std::string> FaultScopeKey(app::Ctx& ctx) {
  const std::string& key = ctx.req.Header("x-auth-service");
  if (key.empty()) return std::string();
  const bool known = ctx.Read([&](const model::State& s) { return s.accountByApiKey.count(key) != 0; });
  if (!known)
    return model::Error::Unauthorized("x-auth-service names no account: a fault made with a key affects only that "
                                      "account's requests and deliveries (send no key for an instance-wide fault)");
  return key;
}
}  // namespace

app::Reply SimCreateFault(app::Ctx& ctx) {
  auto scope = FaultScopeKey(ctx);
  if (!scope) return scope.error();
  json spec = ctx.req.body;
  if (!scope->empty() && spec.is_object() && !spec.contains("apiKey")) spec["apiKey"] = *scope;
  auto fault = ctx.Write([&](model::State& s) {
    auto f = model::AddFault(s, spec, ctx.now);
    if (f) ctx.svc.faultsMayExist.store(true, std::memory_order_release);
    return f;
  });
  if (!fault) return fault.error();
  return app::Json(model::FaultView(*fault), 201);
}

app::Reply SimListFaults(app::Ctx& ctx) {
  auto secrets = SecretsWanted(ctx);
  if (!secrets) return secrets.error();
  json list = ctx.Read([](const model::State& s) {
    json out = json::array();
    for (const auto& f : s.faults) out.push_back(model::FaultView(f));
    return out;
  });
  if (!*secrets) model::MaskSecretValues(list);  // the key a fault targets is an account's API key
  return app::Json({{"faults", std::move(list)}});
}

app::Reply SimClearFaults(app::Ctx& ctx) {
  auto scope = FaultScopeKey(ctx);
  if (!scope) return scope.error();
  const size_t removed = ctx.Write([&](model::State& s) {
    const size_t n = s.faults.size();
    if (!scope->empty()) {  // with a key: that account's faults only
      std::erase_if(s.faults, [&](const model::Fault& f) { return f.apiKey && *f.apiKey == *scope; });
      return n - s.faults.size();
    }
    model::ClearFaults(s);
    ctx.svc.faultsMayExist.store(false, std::memory_order_release);
    return n;
  });
  return app::Json({{"status", "ok"}, {"removed", removed}});
}

app::Reply SimDeleteFault(app::Ctx& ctx) {
  const std::string& id = ctx.req.params.at("id");
  if (!ctx.Write([&](model::State& s) { return model::DeleteFault(s, id); }))
    return model::Error::NotFound("no fault " + id);
  return app::Json({{"status", "ok"}, {"removed", 1}});
}

}  // namespace emsim::api
