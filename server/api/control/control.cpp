#include "api/control/control.hpp"

#include <cstdlib>
#include <filesystem>

#include "api/query.hpp"
#include "core/json_limits.hpp"
#include "core/messages.hpp"
#include "model/state_secrets.hpp"
#include "model/tenants.hpp"

namespace emsim::api {

json ClockJson(const runtime::Clock& clock) {
  const model::Millis now = clock.Now();
  return {{"now", model::FormatIso(now)}, {"epochMs", now}, {"mode", runtime::ToString(clock.mode())}};
}

void ResetAll(app::Services& svc) {
  {
    auto hold = svc.scheduler.HoldStarts();  // the fixtures' jobs start on the reset clock
    svc.store.Reset();
    svc.clock.Reset();
  }
  svc.journal.Clear();
  if (svc.rateLimiter) svc.rateLimiter->Clear();
  svc.errorIds.Reset(svc.options.seed);
  for (auto& hook : svc.resetHooks) hook();
}

app::Reply SimHealth(app::Ctx& ctx) {
  // Whether the big workspaces' search indexes are built yet (--warm-indexes): a benchmark or a
  // test of search latency waits for ready; emsim serves meanwhile, a search builds what it needs.
  const runtime::SearchWarmer::Status indexes =
      ctx.svc.searchWarmer ? ctx.svc.searchWarmer->status() : runtime::SearchWarmer::Status{};
  // With --data-dir, the file and what its writer has done: a long-running emsim's owner sees its
  // writes reach the disk, and, should the disk refuse one, why every write is answered 500 since
  // (README "Persistence"). The answer stays 200: reads are still served.
  json persistence = nullptr;
  if (const auto durable = ctx.svc.store.Durable()) {
    const auto& st = durable->stats;
    // Absolute: a relative --data-dir means nothing to whoever reads the answer elsewhere.
    std::error_code ec;
    const std::filesystem::path file = std::filesystem::absolute(durable->file, ec).lexically_normal();
    persistence = {{"file", ec ? durable->file : file.string()},
                   {"durability", runtime::ToString(durable->durability)},
                   {"writable", st.error.empty()},
                   {"error", st.error.empty() ? json(nullptr) : json(st.error)},
                   {"batches", st.batches},
                   {"changeSets", st.changeSets},
                   {"rowsWritten", st.rowsWritten},
                   {"walFrames", st.walFrames}};
  }
  return app::Json({{"status", "ok"},
                    {"version", EMSIM_VERSION},
                    {"now", model::FormatIso(ctx.svc.clock.Now())},
                    {"shard", ctx.svc.options.shardId},
                    {"searchIndexes", {{"ready", indexes.ready}, {"left", indexes.left}}},
                    {"persistence", std::move(persistence)}});
}

app::Reply SimReset(app::Ctx& ctx) {
  ResetAll(ctx.svc);
  return app::Json({{"status", "ok"}, {"clock", ClockJson(ctx.svc.clock)}});
}

// DESIGN.md gap decision: secrets masked unless asked for with ?secrets=true. Asking needs nothing
// more than any /_sim request does: the admin token, when one is configured.
model::Result<bool> SecretsWanted(app::Ctx& ctx) {
  const bool secrets = ctx.req.Query("secrets", "false") == "true";
  if (ctx.req.query.contains("secrets") && !secrets && ctx.req.Query("secrets") != "false")
    return model::Error::Validation("secrets", "secrets must be true or false", "query");
  return secrets;
}

app::Reply SimGetState(app::Ctx& ctx) {
  auto secrets = SecretsWanted(ctx);
  if (!secrets) return secrets.error();
  const bool mask = !*secrets;
  json clock = {{"mode", runtime::ToString(ctx.svc.clock.mode())}, {"epochMs", ctx.svc.clock.Now()}};
  // Written as text: the document of a large world would be ~6 times the text (model::DumpStateTo).
  // And past dumpSpillBytes the text goes to a temporary file and is sent from there: the text of
  // a large world is larger than the world, and held whole it doubled emsim's memory at its peak.
  http::Response answer = app::Json(nullptr);
  core::SpillText text(ctx.svc.options.dumpSpillBytes);
  try {
    ctx.svc.store.DumpTo([&](json& dump) {
      if (mask) model::MaskSecrets(dump);
      dump["clock"] = std::move(clock);
    }, text);
    if (text.spilled()) answer.file = text.TakeFile();
  } catch (const std::runtime_error& e) {
    // The temporary file (a full disk, an unwritable $TMPDIR): what to fix, not an opaque 500.
    return model::Error::Internal(std::string("the state dump could not be written: ") + e.what());
  }
  if (answer.file) return answer;
  answer.raw = text.TakeText();
  return answer;
}

app::Reply SimPutState(app::Ctx& ctx) {
  // The router read the growing lists straight into records where it could (stateText, whose
  // `rest` is the document of the other members); else the body is the whole document.
  const json& body = ctx.req.stateText ? ctx.req.stateText->rest : ctx.req.body;
  // All or nothing: everything is checked before anything is replaced. The state itself is
  // checked whole by Load (LoadState builds a new State and swaps it in only once it is valid);
  // the clock is read first, so a bad clock cannot fail the request after the state changed.
  if (!body.is_object()) return model::Error::Validation("body", "not a valid state dump: state must be a JSON object");
  // A masked dump cannot restore the secrets it hides; loading it would replace every API key
  // with the mask. Refused, naming the field, before anything changes.
  if (auto masked = model::FindMaskedSecret(body))
    return model::Error::Validation(*masked, *masked + " is masked ('" + model::kMaskedSecret +
                                                 "'): load a dump taken with GET /_sim/state?secrets=true");
  std::optional<std::pair<runtime::ClockMode, model::Millis>> clock;
  if (const auto c = body.find("clock"); c != body.end()) {
    if (!c->is_object()) return model::Error::Validation("clock", "clock must be an object {mode, epochMs}");
    runtime::ClockMode mode = runtime::ClockMode::kManual;
    if (const auto m = c->find("mode"); m != c->end()) {
      if (*m != "real" && *m != "manual") return model::Error::Validation("clock.mode", "clock.mode must be real or manual");
      mode = *m == "real" ? runtime::ClockMode::kReal : runtime::ClockMode::kManual;
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
  {
    auto hold = ctx.svc.scheduler.HoldStarts();  // the loaded jobs start on the loaded clock
    try {
      if (ctx.req.stateText) ctx.svc.store.Load(model::LoadSplitState(*ctx.req.stateText, ctx.req.rawBody));
      else ctx.svc.store.Load(body);
    } catch (const std::exception& e) {  // LoadState throws before anything is swapped in
      return model::Error::Validation("body", std::string("not a valid state dump: ") + e.what());
    }
    // The loaded state may carry /_sim/faults (setting the hint is always safe).
    if (const auto f = body.find("faults"); f != body.end() && !f->empty())
      ctx.svc.faultsMayExist.store(true, std::memory_order_release);
    if (clock) ctx.svc.clock.Restore(clock->first, clock->second);
  }
  ctx.svc.scheduler.ForgetQueued();  // attempts queued for the replaced state
  return app::Json({{"status", "ok"}, {"clock", ClockJson(ctx.svc.clock)}});
}

namespace {

// A request pattern from GET /_sim/requests' query (every value a string) or from the body of
// POST /_sim/requests/count (typed): the request schemas have checked the shapes; values are
// checked here.
model::Result<runtime::RequestPattern> PatternOf(const json& from, bool from_query) {
  runtime::RequestPattern p;
  auto text = [&](const char* key) -> std::optional<std::string> {
    auto it = from.find(key);
    if (it == from.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  p.method = text("method");
  p.path = text("path");
  p.pathPrefix = text("pathPrefix");
  p.operationId = text("operationId");
  if (!p.operationId) p.operationId = text("operation");
  p.accountId = text(from_query ? "account" : "accountId");
  if (auto it = from.find("status"); it != from.end()) {
    std::int64_t status = 0;
    if (it->is_number_integer()) status = it->get<std::int64_t>();
    else if (it->is_string()) status = std::atoll(it->get<std::string>().c_str());
    if (status < 100 || status > 599) return model::Error::Validation("status", "must be an HTTP status like 404", from_query ? "query" : "body");
    p.status = static_cast<int>(status);
  }
  if (auto since = text("since")) {
    p.since = model::ParseIso(*since);
    if (!p.since) return model::Error::Validation("since", "must be an ISO 8601 time like 2026-01-01T09:00:00.000Z", from_query ? "query" : "body");
  }
  if (auto it = from.find("headers"); it != from.end() && it->is_object())
    for (const auto& [name, value] : it->items())
      if (value.is_string()) p.headers.emplace_back(name, value.get<std::string>());
  if (auto it = from.find("body"); it != from.end()) p.body = *it;
  return p;
}

}  // namespace

app::Reply SimListRequests(app::Ctx& ctx) {
  auto pattern = PatternOf(ctx.req.query, /*from_query=*/true);
  if (!pattern) return pattern.error();
  auto limit = QueryInt(ctx.req, "limit", 0, 0, 999'999);
  if (!limit) return limit.error();
  auto secrets = SecretsWanted(ctx);
  if (!secrets) return secrets.error();
  return app::Json({{"requests", ctx.svc.journal.List(*pattern, static_cast<size_t>(*limit), *secrets)}});
}

app::Reply SimCountRequests(app::Ctx& ctx) {
  auto pattern = PatternOf(ctx.req.body.is_object() ? ctx.req.body : json::object(), /*from_query=*/false);
  if (!pattern) return pattern.error();
  return app::Json(ctx.svc.journal.Count(*pattern));
}

app::Reply SimClearRequests(app::Ctx& ctx) {
  const size_t cleared = ctx.svc.journal.size();
  ctx.svc.journal.Clear();
  return app::Json({{"status", "ok"}, {"cleared", cleared}});
}

namespace {

// The clock a /_sim/clock request acts on: the own clock of the tenant whose key is in
// x-auth-service, else the instance clock (no key, a fixture account's, a shared-clock
// tenant's). A key that names no account is refused: moving the instance clock instead would
// move every other test's time.
struct RequestClock {
  std::string clock;  // "" the instance clock, else the tenant's account id
  model::Millis now = 0;
  std::string mode;
};

model::Result<RequestClock> ClockOfRequest(app::Ctx& ctx) {
  const std::string& key = ctx.req.Header("x-auth-service");
  RequestClock c{"", ctx.svc.clock.Now(), runtime::ToString(ctx.svc.clock.mode())};
  if (key.empty()) return c;
  const bool known = ctx.Read([&](const model::State& s) {
    auto a = s.accountByApiKey.find(key);
    if (a == s.accountByApiKey.end()) return false;
    if (const model::Tenant* t = model::OwnClockTenant(s, a->second)) {
      c = {t->id, model::OwnClockNow(*t, runtime::Clock::WallNow()), t->clockMode};
    }
    return true;
  });
  if (!known)
    return model::Error::Unauthorized(
        "x-auth-service names no account: /_sim/clock acts on the clock of the key's account (send no key for the "
        "instance clock)");
  return c;
}

json RequestClockJson(const RequestClock& c) {
  json out = {{"now", model::FormatIso(c.now)}, {"epochMs", c.now}, {"mode", c.mode}};
  if (!c.clock.empty()) {
    out["clock"] = "own";
    out["accountId"] = c.clock;
  }
  return out;
}

// The clock never moves backwards (runtime/clock.hpp), in either mode: a 400 naming the field.
std::optional<model::Error> RefuseBackwards(model::Millis now, model::Millis target, const char* param) {
  if (target < now)
    return model::Error::Validation(param, std::string("the clock never moves backwards (now is ") + model::FormatIso(now) + ")");
  if (target > runtime::Clock::kLatest)
    return model::Error::Validation(param, std::string("the clock cannot go past ") + model::FormatIso(runtime::Clock::kLatest));
  return std::nullopt;
}

json AdvanceJson(const runtime::Scheduler::AdvanceResult& r, RequestClock c) {
  c.now = r.now;
  json out = RequestClockJson(c);
  out["jobsRun"] = r.jobsRun;
  return out;
}

}  // namespace

app::Reply SimGetClock(app::Ctx& ctx) {
  auto c = ClockOfRequest(ctx);
  if (!c) return c.error();
  return app::Json(RequestClockJson(*c));
}

app::Reply SimPutClock(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  auto c = ClockOfRequest(ctx);
  if (!c) return c.error();
  std::optional<model::Millis> now;
  const char* param = b.contains("now") ? "now" : "epochMs";
  if (b.contains("now")) {
    now = model::ParseIso(b["now"].get<std::string>());
    if (!now) return model::Error::Validation("now", "now must be an ISO 8601 UTC timestamp like 2026-01-01T09:00:00.000Z");
  } else if (b.contains("epochMs")) {
    if (!b["epochMs"].is_number_integer())
      return model::Error::Validation("epochMs", "epochMs must be a whole number of milliseconds since 1970");
    now = b["epochMs"].is_number_unsigned() && b["epochMs"].get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
              ? INT64_MAX
              : b["epochMs"].get<model::Millis>();
  }
  if (now)
    if (auto refused = RefuseBackwards(c->now, *now, param)) return *refused;
  if (b.contains("mode")) {
    const std::string mode = b["mode"] == "real" ? "real" : "manual";
    if (c->clock.empty()) {
      ctx.svc.clock.SetMode(mode == "real" ? runtime::ClockMode::kReal : runtime::ClockMode::kManual);
    } else {
      ctx.Write([&](model::State& s) { model::SetOwnClockMode(s, c->clock, mode, runtime::Clock::WallNow()); });
    }
    c->mode = mode;
  }
  // Setting `now` forward is an advance: jobs that fall due run, in order, each at its due time.
  if (now) return app::Json(AdvanceJson(ctx.svc.scheduler.AdvanceClock(c->clock, *now), *c));
  auto after = ClockOfRequest(ctx);
  if (!after) return after.error();
  return app::Json(RequestClockJson(*after));
}

app::Reply SimAdvanceClock(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  if (b.contains("seconds") == b.contains("duration"))
    return model::Error::Validation("body", "send exactly one of seconds or duration");
  auto c = ClockOfRequest(ctx);
  if (!c) return c.error();
  model::Millis by = 0;
  if (b.contains("seconds")) {
    const double seconds = b["seconds"].get<double>();
    // Compared as a double before converting: a huge or non-finite value must not overflow.
    if (!(seconds >= 0)) return model::Error::Validation("seconds", "seconds must not be negative: the clock never moves backwards");
    if (seconds > static_cast<double>(runtime::Clock::kLatest) / model::kSecond)
      return model::Error::Validation("seconds", std::string("the clock cannot go past ") + model::FormatIso(runtime::Clock::kLatest));
    by = static_cast<model::Millis>(seconds * model::kSecond);
  } else {
    const std::string text = b["duration"].get<std::string>();
    auto d = model::ParseDuration(text);
    if (!d || *d < 0) return model::Error::Validation("duration", model::DurationProblem(text));
    by = *d;
  }
  const model::Millis now = c->now;
  if (by > runtime::Clock::kLatest - now)
    return model::Error::Validation(b.contains("seconds") ? "seconds" : "duration",
                                    std::string("the clock cannot go past ") + model::FormatIso(runtime::Clock::kLatest));
  return app::Json(AdvanceJson(ctx.svc.scheduler.AdvanceClock(c->clock, now + by), *c));
}

}  // namespace emsim::api
