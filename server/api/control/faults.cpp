#include "api/control/faults.hpp"

#include "api/control/control.hpp"
#include "model/faults.hpp"
#include "model/state_secrets.hpp"

namespace emsim::api {

app::Reply SimCreateFault(app::Ctx& ctx) {
  auto fault = ctx.Write([&](model::State& s) {
    auto f = model::AddFault(s, ctx.req.body, ctx.now);
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
  const size_t removed = ctx.Write([&](model::State& s) {
    const size_t n = s.faults.size();
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
