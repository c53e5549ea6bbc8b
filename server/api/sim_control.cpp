#include "api/sim_control.hpp"

#include "model/messages.hpp"
#include "model/state_secrets.hpp"

namespace emsim::api {

json ClockJson(const sim::Clock& clock) {
  const model::Millis now = clock.Now();
  return {{"now", model::FormatIso(now)}, {"epochMs", now}, {"mode", sim::ToString(clock.mode())}};
}

void ResetAll(app::Services& svc) {
  svc.store.Reset();
  svc.clock.Reset();
  svc.journal.Clear();
  svc.errorIds.Reset(svc.options.seed);
  for (auto& hook : svc.resetHooks) hook();
}

http::Reply SimHealth(http::Ctx& ctx) {
  return http::Json({{"status", "ok"}, {"version", EMSIM_VERSION}, {"now", model::FormatIso(ctx.svc.clock.Now())}});
}

http::Reply SimReset(http::Ctx& ctx) {
  ResetAll(ctx.svc);
  return http::Json({{"status", "ok"}, {"clock", ClockJson(ctx.svc.clock)}});
}

http::Reply SimGetState(http::Ctx& ctx) {
  // DESIGN.md gap decision: secrets masked unless asked for. Asking needs nothing more than any
  // /_sim request does: the admin token, when one is configured.
  const bool secrets = ctx.req.Query("secrets", "false") == "true";
  if (ctx.req.query.contains("secrets") && !secrets && ctx.req.Query("secrets") != "false")
    return model::Error::Validation("secrets", "secrets must be true or false", "query");
  json dump = ctx.svc.store.Dump();
  if (!secrets) model::MaskSecrets(dump);
  dump["clock"] = {{"mode", sim::ToString(ctx.svc.clock.mode())}, {"epochMs", ctx.svc.clock.Now()}};
  return http::Json(std::move(dump));
}

http::Reply SimPutState(http::Ctx& ctx) {
  const json& body = ctx.req.body;
  // A masked dump cannot restore the secrets it hides; loading it would replace every API key
  // with the mask. Refused, naming the field, before anything changes.
  if (auto masked = model::FindMaskedSecret(body))
    return model::Error::Validation(*masked, *masked + " is masked ('" + model::kMaskedSecret +
                                                 "'): load a dump taken with GET /_sim/state?secrets=true");
  try {
    ctx.svc.store.Load(body);
  } catch (const std::exception& e) {
    return model::Error::Validation("body", std::string("not a valid state dump: ") + e.what());
  }
  // The loaded state may carry /_sim/faults (setting the hint is always safe).
  if (body.contains("faults") && !body["faults"].empty()) ctx.svc.faultsMayExist.store(true, std::memory_order_release);
  if (body.contains("clock")) {
    const json& c = body["clock"];
    ctx.svc.clock.Restore(c.value("mode", "manual") == "real" ? sim::ClockMode::kReal : sim::ClockMode::kManual,
                          c.value("epochMs", ctx.svc.clock.Now()));
  }
  ctx.svc.scheduler.Poke();
  return http::Json({{"status", "ok"}, {"clock", ClockJson(ctx.svc.clock)}});
}

http::Reply SimListRequests(http::Ctx& ctx) {
  json filters = json::object();
  for (const char* key : {"method", "path", "operationId"})
    if (ctx.req.query.contains(key)) filters[key] = ctx.req.query[key];
  if (ctx.req.query.contains("status")) filters["status"] = std::stoi(ctx.req.Query("status"));
  const size_t limit = ctx.req.query.contains("limit") ? std::stoul(ctx.req.Query("limit")) : 0;
  return http::Json({{"requests", ctx.svc.journal.List(filters, limit)}});
}

http::Reply SimGetClock(http::Ctx& ctx) { return http::Json(ClockJson(ctx.svc.clock)); }

http::Reply SimPutClock(http::Ctx& ctx) {
  const json& b = ctx.req.body;
  std::optional<model::Millis> now;
  if (b.contains("now")) {
    now = model::ParseIso(b["now"].get<std::string>());
    if (!now) return model::Error::Validation("now", "now must be an ISO 8601 UTC timestamp like 2026-01-01T09:00:00.000Z");
  } else if (b.contains("epochMs")) {
    now = b["epochMs"].get<model::Millis>();
  }
  if (now && *now < ctx.svc.clock.Now())
    return model::Error::Validation(b.contains("now") ? "now" : "epochMs",
                                    "the clock never moves backwards (now is " + model::FormatIso(ctx.svc.clock.Now()) + ")");
  if (b.contains("mode")) ctx.svc.clock.SetMode(b["mode"] == "real" ? sim::ClockMode::kReal : sim::ClockMode::kManual);
  // Setting `now` forward is an advance: jobs that fall due run, in order.
  json result = ClockJson(ctx.svc.clock);
  if (now) {
    auto r = ctx.svc.scheduler.AdvanceTo(*now);
    result = ClockJson(ctx.svc.clock);
    result["jobsRun"] = r.jobsRun;
  }
  return http::Json(std::move(result));
}

http::Reply SimAdvanceClock(http::Ctx& ctx) {
  const json& b = ctx.req.body;
  model::Millis by = 0;
  if (b.contains("seconds") == b.contains("duration"))
    return model::Error::Validation("body", "send exactly one of seconds or duration");
  if (b.contains("seconds")) {
    by = static_cast<model::Millis>(b["seconds"].get<double>() * model::kSecond);
  } else {
    auto d = model::ParseDuration(b["duration"].get<std::string>());
    if (!d) return model::Error::Validation("duration", "duration must look like 90s, 5m, 2h, 1d or 1500ms");
    by = *d;
  }
  auto r = ctx.svc.scheduler.AdvanceTo(ctx.svc.clock.Now() + by);
  return http::Json({{"now", model::FormatIso(r.now)}, {"epochMs", r.now}, {"jobsRun", r.jobsRun}});
}

}  // namespace emsim::api
