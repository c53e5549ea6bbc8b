#include "app/router.hpp"

#include "model/tenants.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "core/text.hpp"
#include "core/json_out.hpp"
#include "app/error_mapper.hpp"
#include "model/faults.hpp"
#include "model/tenants.hpp"
#include "core/json_limits.hpp"
#include "core/messages.hpp"
#include "runtime/log.hpp"

namespace emsim::app {

Router::Router(app::Services& svc, const std::vector<Route>& routes) : svc_(svc) {
  for (const auto& r : routes) {
    const std::string op = r.operationId;
    if (!svc_.schemas.Has("requests/" + op))
      throw std::runtime_error("operation " + op + " has no request schema (schemas/requests/" + op + ".json)");
    if (r.access != Access::kControl && !svc_.schemas.Has("responses/" + op))
      throw std::runtime_error("operation " + op + " has no response schema (schemas/responses/" + op + ".json)");
    routes_.push_back({&r, SplitPath(r.pattern)});
  }
  std::set<std::string> methods;
  for (const auto& c : routes_) methods.insert(c.route->method);
  for (const auto& c : routes_) {
    if (std::any_of(c.segments.begin(), c.segments.end(), [](const std::string& seg) { return seg[0] == ':'; }))
      continue;
    std::string path;
    for (const auto& seg : c.segments) path += "/" + seg;
    if (path.empty()) path = "/";
    auto [it, fresh] = static_paths_.try_emplace(path);
    if (!fresh) continue;  // a path several routes share (one per method) is filled once
    StaticPath& sp = it->second;
    sp.pathKnown = Scan("", path).pathKnown;
    for (const auto& m : methods) sp.byMethod.emplace_back(m, Scan(m, path));
  }
}

Router::Match Router::Find(const std::string& method, const std::string& path) const {
  if (auto it = static_paths_.find(path); it != static_paths_.end()) {
    for (const auto& [m, match] : it->second.byMethod)
      if (m == method) return match;
    return Match{nullptr, {}, it->second.pathKnown};
  }
  return Scan(method, path);
}

Router::Match Router::Scan(const std::string& method, const std::string& path) const {
  Match m;
  const auto segs = SplitPath(path);
  for (const auto& c : routes_) {
    if (c.segments.size() != segs.size()) continue;
    std::map<std::string, std::string> params;
    if (!schema::MatchSegments(c.segments, segs, &params)) continue;
    m.pathKnown = true;
    if (method == c.route->method) {
      m.route = c.route;
      m.params = std::move(params);
      return m;
    }
  }
  return m;
}

namespace {

std::atomic<std::uint64_t> g_request_counter{0};  // request ids only; not simulator state

// "req_00000042": at least 8 digits (the old snprintf "%08llu"), without printf's cost.
std::string RequestId(std::uint64_t n) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  const size_t len = static_cast<size_t>(end - digits);
  std::string id = "req_";
  if (len < 8) id.append(8 - len, '0');
  id.append(digits, len);
  return id;
}

bool IsJsonContentType(const std::string& ct) {
  // "application/json", "application/json; charset=utf-8", "application/vnd.x+json"
  const auto semi = ct.find(';');
  std::string base = ct.substr(0, semi);
  while (!base.empty() && base.back() == ' ') base.pop_back();
  base = model::ToLower(base);
  return base == "application/json" || (base.size() > 5 && base.compare(base.size() - 5, 5, "+json") == 0);
}

// application/yaml, application/x-yaml, text/yaml, text/x-yaml; JSON is YAML too.
bool IsYamlContentType(const std::string& ct) {
  std::string base = ct.substr(0, ct.find(';'));
  while (!base.empty() && base.back() == ' ') base.pop_back();
  base = model::ToLower(base);
  return base == "application/yaml" || base == "application/x-yaml" || base == "text/yaml" || base == "text/x-yaml" ||
         IsJsonContentType(ct);
}

bool IsBlank(const std::string& s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
//         / DIGIT / ALPHA (RFC 9110 5.6.2); no method anyone sends is longer than 32.
bool IsMethodToken(std::string_view m) {
  if (m.empty() || m.size() > 32) return false;
  for (const unsigned char c : m) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos)
      return false;
  }
  return true;
}

bool IsControlPath(const std::string& path) { return path == "/_sim" || path.rfind("/_sim/", 0) == 0; }

// The state document of PUT /_sim/state: read by its handler from the text, with the state limits
// (it nests request values a level or two deeper than the requests that carried them:
// core/json_limits.hpp).
constexpr std::string_view kStateLoadOperation = "sim.state.put";

// ---- control plane access ---------------------------------------------------------------------
// DESIGN.md gap decision: with an admin token configured, /_sim needs `Authorization: Bearer
// <token>`. The exceptions: a sink's receiving address (emsim's own webhook deliveries post
// there, and a sink checks their Part 6 signature instead), and the dashboard's files (/_sim/ui),
// which hold no data: the page's script asks for the token and sends it with every /_sim call.
bool IsOpenControlOperation(std::string_view operation_id) {
  return operation_id == "sim.sinks.receive" || operation_id == "sim.ui.page" || operation_id == "sim.ui.file";
}
constexpr const char* kAdminTokenRequired =
    "Missing or wrong admin token: /_sim needs 'Authorization: Bearer <token>' (emsim serve --admin-token)";

// Compares every byte whatever the first difference, so the time taken says nothing about how
// much of a guess was right.
bool SameSecret(std::string_view presented, std::string_view secret) {
  if (secret.empty()) return false;
  unsigned char diff = presented.size() == secret.size() ? 0 : 1;
  for (size_t i = 0; i < presented.size(); ++i)
    diff |= static_cast<unsigned char>(presented[i] ^ secret[i % secret.size()]);
  return diff == 0;
}

bool ControlAccessAllowed(const Route& route, const Request& req, const std::string& admin_token) {
  if (admin_token.empty() || route.access != Access::kControl || IsOpenControlOperation(route.operationId)) return true;
  const std::string& auth = req.Header("authorization");
  constexpr std::string_view kScheme = "Bearer ";
  if (auth.size() <= kScheme.size()) return false;
  // The scheme is case-insensitive (RFC 9110 11.1).
  if (!model::EqualsFolded(std::string_view(auth).substr(0, kScheme.size()), kScheme)) return false;
  return SameSecret(std::string_view(auth).substr(kScheme.size()), admin_token);
}

// The answer of a fault that replaces the whole answer. Without a `body`, an error status gets
// the spec's shape for it (Part 7), so a client sees what a real failure looks like; a string
// body is sent as-is (text/plain), e.g. a proxy's error page.
Response InjectedAnswer(const model::Fault& f, app::ErrorIds& error_ids) {
  const int status = f.status.value_or(200);
  if (f.hasBody) {
    if (f.body.is_string()) return Response{.status = status, .raw = f.body.get<std::string>(), .contentType = "text/plain"};
    return Json(f.body, status);
  }
  const std::string message = (status == 500 ? std::string(model::msg::kInternalError) : "Injected fault") +
                              " (injected fault " + f.id + ")";
  if (status == 400) return Json({{"status", status}, {"message", message}, {"errors", json::array()}}, status);
  if (status >= 400) return Json({{"status", status}, {"message", message}, {"errorId", error_ids.Next()}}, status);
  return Json({{"status", status}, {"message", message}, {"data", nullptr}}, status);
}

// An answer sent once the change it reports is on disk (runtime::Store::DurableTicket). When the
// disk refuses the change, a 500 goes out instead. Its journal entry waits as the client does
// (pending until then): listed as sent, the moment before it is sent.
class DurableAnswer final : public http::Gate {
 public:
  DurableAnswer(const Services& svc, std::uint64_t ticket) : svc_(svc), ticket_(ticket) {}
  // A gate its connection dropped without handing it the answer (the client gone, or a pipelined
  // request after a refused answer): the request happened all the same, and its journal entry is
  // settled as it would have been.
  ~DurableAnswer() override {
    if (handed_ || !entry_) return;
    try {
      Then([](const std::string*) {});
    } catch (...) {  // nothing to send; at worst the entry stays unlisted
    }
  }
  // The ticket of the answer's journal entry (Request::journalTicket), once it is journaled.
  void Journaled(std::optional<std::uint64_t> entry) { entry_ = entry; }
  void Then(std::function<void(const std::string*)> done) override {
    handed_ = true;
    svc_.store.OnDurable(ticket_, [svc = &svc_, entry = entry_, done = std::move(done)](bool ok) {
      if (ok) {
        if (entry) svc->journal.Settle(*entry);
        return done(nullptr);
      }
      const Response res = ToResponse(model::Error::Internal(model::msg::kNotDurable), svc->errorIds.Next());
      std::string body = core::DumpJson(res.body);
      if (entry) svc->journal.Replace(*entry, res.status, body);
      done(&body);
    });
  }

 private:
  const Services& svc_;
  std::uint64_t ticket_;
  std::optional<std::uint64_t> entry_;
  bool handed_ = false;
};

}  // namespace

// The checks between authentication and the handler, in the order a client sees their errors:
// the provider header (authenticated routes), the content type, the JSON, the schema. The body and
// query end up parsed in `req` for the handler.
std::optional<model::Error> Router::CheckRequest(const Route& route, Request& req, bool authenticated) const {
  if (authenticated) {
    // Part 5: x-service-provider selects the mail provider context; values seen: GOOGLE (and the
    // fixtures' MICROSOFT). Anything else is a clear 400 rather than silently ignored.
    const std::string provider = req.Header("x-service-provider");
    if (!provider.empty() && provider != "GOOGLE" && provider != "MICROSOFT")
      return model::Error::Validation("x-service-provider", "x-service-provider must be GOOGLE or MICROSOFT", "headers");
  }

  // ---- body: content type, JSON -----------------------------------------------------------------
  if (!IsBlank(req.rawBody) && route.body == BodyFormat::kYaml) {
    // Kept raw for the handler, which parses the YAML itself (its errors name file lines).
    if (!IsYamlContentType(req.Header("content-type"))) {
      return model::Error{model::ErrorCode::kUnsupportedMediaType,
                          std::string(model::msg::kYamlMediaType) + " (got '" + model::SafeText(req.Header("content-type")) + "')", {}};
    }
  } else if (!IsBlank(req.rawBody)) {
    if (!IsJsonContentType(req.Header("content-type"))) {
      return model::Error{model::ErrorCode::kUnsupportedMediaType,
                          std::string(model::msg::kUnsupportedMediaType) + " (got '" + model::SafeText(req.Header("content-type")) + "')", {}};
    }
    if (route.operationId == kStateLoadOperation) {
      // A whole world: its growing lists are read straight into records (their document would be
      // ~6 times the text), the rest parsed with the state limits and this parser's errors
      // (model::SplitStateText). Text read that way is an object, all the schema asks.
      auto parts = model::SplitStateText(req.rawBody, "body");
      if (!parts) return parts.error();
      req.hasBody = true;
      if (parts->direct) {
        req.stateText = std::move(*parts);
        return std::nullopt;
      }
      req.body = std::move(parts->rest);
    } else {
      // Limits before work: depth, string and array sizes and number range are refused while
      // parsing, so nothing below (schema, handler, journal redaction) walks an unbounded value.
      auto parsed = model::ParseJsonLimited(req.rawBody, model::kRequestJsonLimits, "body");
      if (!parsed) return parsed.error();
      req.body = std::move(*parsed);
      req.hasBody = true;
    }
  }

  // ---- schema validation (Part 7) ----------------------------------------------------------------
  // A body sent without a query is checked on its own, in place, when the schema allows it
  // (schema/registry.hpp): one pass that gives the same field errors as the whole {query, body}
  // document would, and no document is built. Otherwise the document is built, its parts moved in
  // and back out rather than copied (a copy of the body was a visible share of a POST, measured).
  const std::string schema = std::string("requests/") + route.operationId;
  std::optional<std::vector<model::FieldError>> errors;
  if (req.hasBody && req.query.is_object() && req.query.empty()) errors = svc_.schemas.CheckBody(schema, req.body);
  if (!errors) {
    json doc = json::object();
    doc["query"] = std::move(req.query);
    if (req.hasBody) doc["body"] = std::move(req.body);
    errors = svc_.schemas.CheckRequest(schema, doc, false);
    req.query = std::move(doc["query"]);
    if (req.hasBody) req.body = std::move(doc["body"]);
  }
  if (errors->empty()) return std::nullopt;
  model::Error err{model::ErrorCode::kValidation, model::msg::kValidationFailed, std::move(*errors)};
  err.message = std::string(model::msg::kValidationFailed) + ": " + err.errors.front().msg;
  if (err.errors.size() > 1) err.message += " (and " + std::to_string(err.errors.size() - 1) + " more)";
  return err;
}

size_t Router::BodyLimit(const std::string& method, const std::string& path) const {
  const size_t limit = svc_.options.maxBodyBytes;
  const Match m = Find(method, path);
  // The catalogue says which operations take a whole world as their body (its bodyLimit).
  return m.route && m.route->bodyLimit == BodySize::kLarge ? std::max(limit, svc_.options.maxStateBytes) : limit;
}

namespace {
void LogRequest(const Request& req, int status);
}  // namespace

Response Router::Refuse(const http::Refusal& refusal, const std::string& method, const std::string& path,
                        bool record) {
  const int status = refusal.status;
  model::Error e;
  if (status == 413) {
    e = {model::ErrorCode::kPayloadTooLarge, std::string(model::msg::kPayloadTooLarge) + " (limit " +
                                                 std::to_string(refusal.limit ? refusal.limit : svc_.options.maxBodyBytes) +
                                                 " bytes)", {}};
  } else if (status == 404 && refusal.detail.empty()) {
    e = model::Error::NotFound(model::msg::kRouteNotFound);
  } else if (status == 400) {
    e = model::Error::Validation("request", refusal.detail, "headers");
  } else {
    e = {model::ErrorCode::kInternal, refusal.detail.empty() ? std::string(model::msg::kInternalError) : refusal.detail, {}};
  }
  Response r = ToResponse(e, status == 400 ? std::string() : svc_.errorIds.Next());
  r.status = status;
  if (r.body.contains("status")) r.body["status"] = status;
  if (record) {
    // A request the transport refused before the pipeline (a body over the limit, a request line
    // too long or malformed) is still a request: an id the answer carries, a journal entry and a
    // log line, as every other answer has.
    Request req;
    req.requestId = RequestId(++g_request_counter);
    req.method = method;
    req.path = path;
    r.headers.emplace_back("x-request-id", req.requestId);
    if (runtime::LogEnabled("info")) LogRequest(req, status);
    // Journaled as every answer is, under the id the answer carries. The method and path quote
    // the request line as it came (cpp-httplib decodes the path's escapes): made UTF-8, so
    // listing the journal can always write them.
    runtime::JournalEntry entry;
    entry.id = req.requestId;
    entry.time = svc_.clock.Now();
    entry.method = model::SafeText(method, 4096);
    entry.path = model::SafeText(path, 4096);
    entry.status = status;
    // Serialized once, for the journal and the answer (as Handle does): the same text in both.
    r.raw = core::DumpJson(r.body);  // the refusal's own message: UTF-8
    entry.response = *r.raw;
    svc_.journal.Add(std::move(entry));
  }
  return r;
}

Response Router::Handle(RawRequest raw) {
  // ---- request id ------------------------------------------------------------------------------
  Request req;
  req.requestId = RequestId(++g_request_counter);
  req.method = std::move(raw.method);
  req.path = std::move(raw.path);
  req.headers = std::move(raw.headers);
  req.rawBody = std::move(raw.body);
  req.canDefer = raw.canDefer;
  const model::Millis started = svc_.clock.Now();
  // Text the journal and messages will quote must be UTF-8 (a JSON answer cannot carry other
  // bytes): a path or query value that is not is answered 400 below, and kept here made safe.
  std::optional<model::Error> bad_text;
  // The transport only hands over the methods it knows, but the router is also called in
  // process (scenarios, the control plane's runs): a method that is not an HTTP token (RFC 9110
  // 5.6.2) is a 400, quoted as safe text.
  if (!IsMethodToken(req.method)) {
    bad_text = model::Error::Validation("method", "the request method is not an HTTP token", "method");
    req.method = model::SafeText(req.method, 32);
  }
  if (!model::IsValidUtf8(req.path)) {
    if (!bad_text) bad_text = model::Error::Validation("path", "the path is not valid UTF-8", "path");
    req.path = model::SafeText(req.path, 2048);
  }
  for (const auto& [raw_key, raw_value] : raw.params) {
    const bool key_ok = model::IsValidUtf8(raw_key), value_ok = model::IsValidUtf8(raw_value);
    const std::string k = key_ok ? raw_key : model::SafeText(raw_key);
    const std::string v = value_ok ? raw_value : model::SafeText(raw_value);
    if ((!key_ok || !value_ok) && !bad_text)
      bad_text = model::Error::Validation(k, "query parameter " + k + " is not valid UTF-8", "query");
    if (!req.query.contains(k)) req.query[k] = v;
    else if (req.query[k].is_array()) req.query[k].push_back(v);
    else req.query[k] = json::array({req.query[k], v});
  }
  // A 400 carries its field errors and no errorId (Part 7), so it draws none.
  auto fail = [&](const model::Error& e) {
    const bool validation = e.code == model::ErrorCode::kValidation;
    return Finish(req, ToTextResponse(e, validation ? std::string() : svc_.errorIds.Next()), started, validation,
                  /*error_text=*/true);
  };
  // An exception that escapes a step is a bug, not the client's fault: a 500 whose errorId the log
  // line carries (Part 7), and the server goes on serving.
  auto internal_error = [&](const char* what) {
    const std::string error_id = svc_.errorIds.Next();
    runtime::Log("error", "unhandled exception", {{"requestId", req.requestId}, {"errorId", error_id},
                                              {"operationId", req.operationId}, {"what", model::SafeText(what, 500)}});
    return Finish(req, ToResponse(model::Error::Internal(model::msg::kInternalError), error_id), started, false);
  };
  if (bad_text) return fail(*bad_text);

  // ---- rate limits (--rate-limit) ------------------------------------------------------------------
  // Before the key is checked, as the real service counts (app/rate_limiter.hpp): a wrong key
  // counts against its own value. A request without a key is left to authentication (401). /_sim
  // is never limited, so a test can always reset or advance the clock past a limit.
  if (svc_.rateLimiter && !IsControlPath(req.path)) {
    const std::string& key = req.Header("x-auth-service");
    if (!key.empty()) {
      const RateLimiter::Verdict v =
          svc_.rateLimiter->Admit(key, svc_.clock.Now(), req.method == "POST" && req.path == "/v1/domain/available");
      if (!v.allowed) {
        if (const Match m = Find(req.method, req.path); m.route) req.operationId = m.route->operationId;  // journal
        Response refused = fail({model::ErrorCode::kTooManyRequests,
                                 "Too many requests: this API key is over its limit of " + v.limit + "; retry after " +
                                     std::to_string(v.retryAfterSeconds) + " s",
                                 {}});
        refused.headers.emplace_back("retry-after", std::to_string(v.retryAfterSeconds));
        return refused;
      }
    }
  }

  // ---- faults (/_sim/faults) ---------------------------------------------------------------------
  // Early, so an injected answer replaces the whole pipeline (no auth, no handler: nothing
  // changes); an edit of the real answer (`patch`) lets the pipeline run and is applied in
  // Finish. /_sim itself is never faulted, so a test can always clear its faults. With no fault
  // defined (the usual case) no request takes a lock for this; otherwise the shared lock first.
  if (svc_.faultsMayExist.load(std::memory_order_acquire) && !IsControlPath(req.path)) {
    const std::string key = req.Header("x-auth-service");
    const bool candidate = svc_.store.Read([&](const model::State& s) {
      return model::AnyFaultMatches(s, model::kFaultTargetRequest, req.method, req.path, key);
    });
    if (candidate) {
      req.fault = svc_.store.Write([&](model::State& s) {
        return model::TakeFault(s, model::kFaultTargetRequest, req.method, req.path, key);
      });
    }
    if (req.fault) {
      // Wall time on purpose: the delay exists to exercise a client's real timeout.
      if (req.fault->delayMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(req.fault->delayMs));
      if (req.fault->ReplacesAnswer()) {
        if (const Match m = Find(req.method, req.path); m.route) req.operationId = m.route->operationId;  // journal
        return Finish(req, InjectedAnswer(*req.fault, svc_.errorIds), started, false);
      }
    }
  }

  // ---- route -------------------------------------------------------------------------------------
  Match match = Find(req.method, req.path);
  if (!match.route) {
    if (match.pathKnown)
      return fail({model::ErrorCode::kMethodNotAllowed,
                   std::string(model::msg::kMethodNotAllowed) + ": " + req.method + " " + req.path, {}});
    return fail({model::ErrorCode::kNotFound, std::string(model::msg::kRouteNotFound) + ": " + req.method + " " + req.path, {}});
  }
  const Route& route = *match.route;
  req.operationId = route.operationId;
  req.params = std::move(match.params);
  if (!ControlAccessAllowed(route, req, svc_.options.adminToken)) {
    Response denied = fail({model::ErrorCode::kUnauthorized, kAdminTokenRequired, {}});
    denied.headers.emplace_back("www-authenticate", "Bearer realm=\"emsim /_sim\"");
    return denied;
  }

  // ---- size limit ---------------------------------------------------------------------------------
  if (route.access != Access::kControl && req.rawBody.size() > svc_.options.maxBodyBytes) {
    return fail({model::ErrorCode::kPayloadTooLarge,
                 std::string(model::msg::kPayloadTooLarge) + " (limit " + std::to_string(svc_.options.maxBodyBytes) +
                     " bytes)", {}});
  }

  // ---- auth (Part 5) -----------------------------------------------------------------------------
  // A route with an API key authenticates in the transaction its handler runs in (below), after
  // the checks that need no state, so its request takes the store's lock once. When one of these
  // checks refuses the request, it authenticates first, so a bad key is still a 401 before any
  // 400 or 415.
  Ctx ctx{.svc = svc_, .req = req};
  const bool authenticated = route.access != Access::kControl;
  const std::string* workspace_key = &req.Header("x-workspace-key");
  if (workspace_key->empty()) workspace_key = &req.Header("x-workspace-id");
  const std::string& workspace = *workspace_key;
  auto authenticate = [&](const model::State& s) {
    return model::Authenticate(s, req.Header("x-auth-service"), workspace, route.access == Access::kWorkspace);
  };
  std::optional<model::Error> problem;
  try {
    problem = CheckRequest(route, req, authenticated);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown exception");
  }
  if (problem) {
    if (authenticated) {
      if (auto caller = svc_.store.Read(authenticate); !caller) return fail(caller.error());
    }
    return fail(*problem);
  }

  // ---- handler, in the request's transaction -----------------------------------------------------
  // The one place a request's transaction is opened (app::Ctx says how a handler uses it). A
  // write route's is exclusive: its authentication and its change happen under one lock, taken
  // once. Authenticating under the shared lock and then writing under the exclusive one made
  // every POST a reader and then a writer of a glibc rwlock, which prefers readers and wakes all
  // of them on each write unlock: under 32 connections the MONTHLY purchase spent much of its CPU
  // going to sleep and waking up on the lock (measured). A GET or read-only POST shares the lock.
  // /_sim routes get none (app::Ctx says why). The transaction ends before the answer is
  // journaled and written.
  // What may change the world: anything but a GET or a route the catalogue marks read-only.
  const bool writes = req.method != "GET" && !route.readOnly;
  try {
    if (authenticated) {
      model::Result<model::Caller> caller = writes ? authenticate(ctx.writeTxn.emplace(svc_.store.BeginWrite()).state())
                                                   : authenticate(ctx.readTxn.emplace(svc_.store.BeginRead()).state());
      if (!caller) {
        ctx.EndTxn();
        return fail(caller.error());
      }
      ctx.caller = *caller;
      req.accountId = ctx.caller.accountId;
    }
    ctx.now = svc_.clock.Now();
    // A tenant with a clock of its own works on it: the request's now and the jobs it schedules
    // (model/tenants.hpp). /_sim routes follow the key in x-auth-service when one is sent.
    if (authenticated) {
      ctx.Read([&](const model::State& s) { ctx.UseClockOf(s, ctx.caller.accountId); });
    } else if (const std::string& key = req.Header("x-auth-service"); !key.empty()) {
      ctx.Read([&](const model::State& s) {
        if (s.tenants.empty()) return;
        if (auto a = s.accountByApiKey.find(key); a != s.accountByApiKey.end()) ctx.UseClockOf(s, a->second);
      });
    }
    Reply reply = route.handler(ctx);
    ctx.EndTxn();
    // With --data-dir an answer to anything that may have changed the world is sent only once the
    // change is on disk (runtime/persist.hpp). A connection that can send it later is handed it
    // with a gate and goes back to its socket (the writer sends it after the commit); otherwise
    // (TLS, or no connection) this thread waits. In memory neither happens. Reads, read-only POSTs
    // included, never wait for the disk.
    std::shared_ptr<DurableAnswer> durable;
    if (writes) {
      // Once the disk has refused a write, every later one is refused here, as a 500 journaled as such.
      if (!req.canDefer || svc_.store.DurableFailed()) {
        try {
          svc_.store.AwaitDurable();
        } catch (const runtime::PersistError&) {  // the writer has logged why
          return fail(model::Error::Internal(model::msg::kNotDurable));
        }
      } else if (auto ticket = svc_.store.DurableTicket()) {
        durable = std::make_shared<DurableAnswer>(svc_, *ticket);
        req.answerDeferred = true;
      }
    }
    Response res = reply ? Finish(req, std::move(reply.value()), ctx.clock.empty() ? started : ctx.now, false)  // at the time of the clock it ran on
                         : fail(reply.error());
    if (durable) {
      durable->Journaled(req.journalTicket);
      res.gate = std::move(durable);
    }
    return res;
  } catch (const std::exception& e) {
    ctx.EndTxn();
    req.answerDeferred = false;  // this answer goes out now
    return internal_error(e.what());
  } catch (...) {
    ctx.EndTxn();
    req.answerDeferred = false;
    return internal_error("unknown exception");
  }
}

namespace {
// One line per request (--log-level info): what a person tailing the log, or a log pipeline
// reading --log-format json, needs to find a request in the journal and see how it went.
void LogRequest(const Request& req, int status) {
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - req.received).count();
  // Fields as text (runtime::LogLine): a document of them cost about as much as the rest of the
  // line, which every request writes.
  char status_text[16];
  const std::string_view status_view(status_text, std::to_chars(status_text, status_text + sizeof status_text, status).ptr - status_text);
  std::string duration;
  core::AppendJsonHundredths(duration, std::llround(ms * 100));  // as a JSON number of two places
  const runtime::LogField fields[] = {
      {"requestId", req.requestId},
      {"method", req.method},
      {"path", req.path},
      req.operationId.empty() ? runtime::LogField{"operationId", "null", true} : runtime::LogField{"operationId", req.operationId},
      {"status", status_view, true},
      {"durationMs", duration, true},
      {"accountId", req.accountId},  // last: left out when there is none
  };
  runtime::LogLine("info", "request", std::span(fields, std::size(fields) - (req.accountId.empty() ? 1 : 0)));
}
}  // namespace

Response Router::Finish(Request& req, Response res, const model::Millis started, bool validation_failed,
                        bool error_text) {
  // The field errors as the pipeline produced them, before any fault edits the answer (copied only
  // when a patch may edit it; otherwise the journal reads them from the answer it keeps).
  const bool patch = req.fault && !req.fault->ReplacesAnswer() && !req.fault->patch.empty();
  json validation_errors;
  if (validation_failed && patch) {
    const json doc = res.raw ? json::parse(*res.raw, nullptr, false) : res.body;
    if (doc.is_object()) validation_errors = doc.value("errors", json());
  }
  std::string fault_error;
  if (req.fault && !req.fault->ReplacesAnswer()) {
    if (!req.fault->patch.empty()) {
      // Fast paths write a JSON answer as text (res.raw); a faulted request reads it back.
      json doc = res.raw ? json::parse(*res.raw, nullptr, false) : res.body;
      auto patched = doc.is_discarded() ? model::Result<json>(model::Error::Validation("patch", "the answer is not JSON"))
                                        : model::ApplyFaultPatch(doc, req.fault->patch);
      if (patched) {
        res.body = std::move(*patched);
        res.raw.reset();
      } else {
        fault_error = patched.error().errors.front().msg;
      }
    }
    if (req.fault->status) res.status = *req.fault->status;
  }
  res.headers.emplace_back("x-request-id", req.requestId);
  if (runtime::LogEnabled("info")) LogRequest(req, res.status);
  // The journal (GET /_sim/requests) skips its own reads and counts, so polling it does not fill it. The
  // request is finished with, so its parts move into the entry.
  if (req.operationId != "sim.requests.list" && req.operationId != "sim.requests.count") {
    runtime::JournalEntry entry;
    entry.id = req.requestId;
    entry.time = started;
    entry.method = std::move(req.method);
    entry.path = std::move(req.path);
    entry.query = std::move(req.query);
    entry.operationId = std::move(req.operationId);
    entry.accountId = std::move(req.accountId);
    entry.headers = std::move(req.headers);
    entry.status = res.status;
    entry.hasBody = req.hasBody;
    if (req.hasBody) entry.body = std::move(req.rawBody);
    // Cut at a character boundary and made UTF-8: the journal is listed as JSON, and one entry
    // that cannot be written would make every later GET /_sim/requests fail.
    else if (!req.rawBody.empty()) entry.rawBody = model::SafeText(req.rawBody, 4096);
    // An error answer the pipeline wrote as text (ToTextResponse) is kept as it is; other text
    // answers (a sink's, an injected text body) are not journaled, as before.
    if (res.status >= 400 && res.raw && error_text) entry.response = *res.raw;
    else if (res.status >= 400 && !res.raw && res.body.is_object()) {
      // Serialized here rather than in the server's Write, so the journal keeps the same text.
      // Bytes dump() refuses (invalid UTF-8) are left to Write, which reports them as before.
      try {
        res.raw = core::DumpJson(res.body);
        entry.response = *res.raw;
      } catch (const json::exception&) {
      }
    }
    if (validation_failed && !patch) {
      if (!entry.response.empty()) entry.validationErrorsInResponse = true;
      else if (res.body.is_object()) entry.validationErrors = res.body.value("errors", json());
    } else {
      entry.validationErrors = std::move(validation_errors);
    }
    if (req.fault) entry.faultId = req.fault->id;
    entry.faultError = std::move(fault_error);
    entry.pending = req.answerDeferred;
    req.journalTicket = svc_.journal.Add(std::move(entry));
  }
  return res;
}

}  // namespace emsim::app
