#include "api/sim_control.hpp"

#include "api/query.hpp"
#include "model/json_limits.hpp"
#include "model/messages.hpp"

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
  json dump = ctx.svc.store.Dump();
  dump["clock"] = {{"mode", sim::ToString(ctx.svc.clock.mode())}, {"epochMs", ctx.svc.clock.Now()}};
  return http::Json(std::move(dump));
}

http::Reply SimPutState(http::Ctx& ctx) {
  const json& body = ctx.req.body;
  // All or nothing: everything is checked before anything is replaced. The state itself is
  // checked whole by Load (LoadState builds a new State and swaps it in only once it is valid);
  // the clock is read first, so a bad clock cannot fail the request after the state changed.
  if (!body.is_object()) return model::Error::Validation("body", "not a valid state dump: state must be a JSON object");
  std::optional<std::pair<sim::ClockMode, model::Millis>> clock;
  if (const auto c = body.find("clock"); c != body.end()) {
    if (!c->is_object()) return model::Error::Validation("clock", "clock must be an object {mode, epochMs}");
    sim::ClockMode mode = sim::ClockMode::kManual;
    if (const auto m = c->find("mode"); m != c->end()) {
      if (*m != "real" && *m != "manual") return model::Error::Validation("clock.mode", "clock.mode must be real or manual");
      mode = *m == "real" ? sim::ClockMode::kReal : sim::ClockMode::kManual;
    }
    model::Millis epoch_ms = ctx.svc.clock.Now();
    if (const auto e = c->find("epochMs"); e != c->end()) {
      if (!e->is_number_integer() || e->get<std::int64_t>() < model::kMinTimeMs || e->get<std::int64_t>() > model::kMaxTimeMs)
        return model::Error::Validation("clock.epochMs",
                                        "clock.epochMs must be a whole number of Unix ms in the years 1970 to 9999 (0 to " +
                                            std::to_string(model::kMaxTimeMs) + ")");
      epoch_ms = e->get<model::Millis>();
    }
    clock.emplace(mode, epoch_ms);
  }
  try {
    ctx.svc.store.Load(body);
  } catch (const std::exception& e) {  // LoadState throws before anything is swapped in
    return model::Error::Validation("body", std::string("not a valid state dump: ") + e.what());
  }
  // The loaded state may carry /_sim/faults (setting the hint is always safe).
  if (const auto f = body.find("faults"); f != body.end() && !f->empty())
    ctx.svc.faultsMayExist.store(true, std::memory_order_release);
  if (clock) ctx.svc.clock.Restore(clock->first, clock->second);
  ctx.svc.scheduler.Poke();
  return http::Json({{"status", "ok"}, {"clock", ClockJson(ctx.svc.clock)}});
}

http::Reply SimListRequests(http::Ctx& ctx) {
  json filters = json::object();
  for (const char* key : {"method", "path", "operationId"})
    if (ctx.req.query.contains(key)) filters[key] = ctx.req.query[key];
  if (ctx.req.query.contains("status")) {
    auto status = QueryInt(ctx.req, "status", 0, 100, 599);
    if (!status) return status.error();
    filters["status"] = *status;
  }
  auto limit = QueryInt(ctx.req, "limit", 0, 0, 999'999);
  if (!limit) return limit.error();
  return http::Json({{"requests", ctx.svc.journal.List(filters, static_cast<size_t>(*limit))}});
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
