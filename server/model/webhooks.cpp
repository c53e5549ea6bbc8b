#include "model/webhooks.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "core/json_out.hpp"
#include "core/messages.hpp"
#include "model/payloads.hpp"
#include "core/text.hpp"

namespace emsim::model {

// ---- event types ---------------------------------------------------------------------------------

const std::vector<EventTypeInfo>& EventTypes() {
  // Part 6 "Event types", in the spec's order; `subscription.billing_changed` sits under
  // Subscriptions as the spec says. Labels and descriptions are emsim's wording.
  static const std::vector<EventTypeInfo> kTypes = {
      {"domain.updated", "Domain updated", "A domain's status, configuration or DNS state changed.", "Domains",
       "domain"},
      {"domain.connection_status_changed", "Domain connection status changed",
       "A domain's connection status changed (PENDING or CONNECTED).", "Domains", "domain"},
      {"mailbox.updated", "Mailbox updated", "A mailbox's status or details changed.", "Mailboxes", "mailbox"},
      {"subscription.status_changed", "Subscription status changed",
       "A subscription's status changed, for example when it is cancelled.", "Subscriptions", "subscription"},
      {"subscription.billing_changed", "Subscription billing changed",
       "A subscription's plan, price or mailbox quantity changed, for example after an upgrade.", "Subscriptions",
       "subscription"},
      {"export.started", "Export started", "A mailbox export started.", "Exports", "export"},
      {"export.completed", "Export completed", "A mailbox export finished successfully.", "Exports", "export"},
      {"export.failed", "Export failed", "A mailbox export failed.", "Exports", "export"},
      {"export.reconnected", "Export account reconnected", "A third-party export account was reconnected.",
       "Exports", "export"},
      {"placement_test.status_changed", "Placement test status changed",
       "A placement test order moved to another status.", "Placement tests", "placementTest"},
      {"workspace.status_changed", "Workspace status changed", "A workspace's status changed.", "Workspaces",
       "workspace"},
      {"workspace.invitations", "Workspace invitations", "An invitation to a workspace was sent, accepted or revoked.",
       "Workspaces", "workspace"},
  };
  return kTypes;
}

const EventTypeInfo* FindEventType(std::string_view value) {
  for (const auto& t : EventTypes())
    if (value == t.value) return &t;
  return nullptr;
}

std::string KnownTypesText() {
  std::string out;
  for (const auto& t : EventTypes()) out += (out.empty() ? "" : ", ") + std::string(t.value);
  return out;
}

namespace {

// Unknown event types make a 400 naming `enabled_events`; duplicates are folded (order kept).
Result<std::vector<std::string>> CheckEventTypes(const std::vector<std::string>& types) {
  if (types.empty()) return Error::Validation("enabled_events", msg::kEnabledEventsEmpty);
  std::vector<std::string> unknown, out;
  for (const auto& t : types) {
    if (!FindEventType(t)) unknown.push_back(t);
    else if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& u : unknown) list += (list.empty() ? "'" : ", '") + u + "'";
    return Error::Validation("enabled_events", "unknown event type" + std::string(unknown.size() > 1 ? "s " : " ") +
                                                   list + "; known types: " + KnownTypesText());
  }
  return out;
}

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

// ---- URLs ------------------------------------------------------------------------------------------

Result<UrlParts> ParseUrl(const std::string& url) {
  auto bad = [](const std::string& why) { return Error::Validation("url", "url " + why); };
  if (url.size() > 2048) return bad("must be at most 2048 characters");
  for (unsigned char c : url)
    if (c <= 0x20 || c >= 0x7f) return bad("must not contain spaces or control characters");
  const auto sep = url.find("://");
  if (sep == std::string::npos) return bad("must be an absolute URL like https://example.com/webhooks");
  UrlParts p;
  p.scheme = ToLower(url.substr(0, sep));
  if (p.scheme != "http" && p.scheme != "https") return bad("must use https (got scheme '" + p.scheme + "')");
  const size_t auth_begin = sep + 3;
  const size_t auth_end = url.find_first_of("/?#", auth_begin);
  const std::string authority = url.substr(auth_begin, auth_end == std::string::npos ? std::string::npos
                                                                                      : auth_end - auth_begin);
  if (authority.find('@') != std::string::npos) return bad("must not contain credentials");
  if (url.find('#') != std::string::npos) return bad("must not contain a fragment (#...)");
  std::string port_text;
  if (!authority.empty() && authority[0] == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) return bad("has an unterminated IPv6 address");
    p.host = authority.substr(0, close + 1);
    const std::string rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return bad("has text after the IPv6 address");
      port_text = rest.substr(1);
    }
    for (char c : p.host.substr(1, p.host.size() - 2))
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return bad("has a bad IPv6 address");
  } else {
    const auto colon = authority.find(':');
    p.host = authority.substr(0, colon);
    if (colon != std::string::npos) port_text = authority.substr(colon + 1);
    for (char c : p.host)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_')
        return bad("has a bad host name '" + p.host + "'");
  }
  if (p.host.empty() || p.host == "[]") return bad("has no host");
  if (!port_text.empty() || (authority.size() && authority.back() == ':')) {
    if (!IsDigits(port_text) || port_text.size() > 5 || std::stoi(port_text) < 1 || std::stoi(port_text) > 65535)
      return bad("has a bad port '" + port_text + "'");
    p.port = std::stoi(port_text);
  } else {
    p.port = p.scheme == "https" ? 443 : 80;
  }
  p.target = auth_end == std::string::npos ? "/" : url.substr(auth_end);
  if (p.target.empty() || p.target[0] != '/') p.target = "/" + p.target;  // "https://h?x=1"
  return p;
}

std::optional<std::string> UrlPath(const std::string& url) {
  auto parts = ParseUrl(url);
  if (!parts) return std::nullopt;
  return parts->target.substr(0, parts->target.find('?'));
}

bool IsLoopbackHost(const std::string& host) {
  const std::string h = ToLower(host);
  if (h == "localhost" || h == "[::1]" || h == "[0:0:0:0:0:0:0:1]") return true;
  // 127.0.0.0/8, written as a dotted quad.
  int parts = 0;
  size_t i = 0;
  std::string first;
  while (i <= h.size()) {
    const size_t j = std::min(h.find('.', i), h.size());
    const std::string part = h.substr(i, j - i);
    if (!IsDigits(part) || part.size() > 3 || std::stoi(part) > 255) return false;
    if (parts == 0) first = part;
    ++parts;
    i = j + 1;
  }
  return parts == 4 && std::stoi(first) == 127;
}

Status CheckWebhookUrl(const std::string& url, bool strict) {
  auto parts = ParseUrl(url);
  if (!parts) return parts.error();
  if (parts->scheme == "http") {
    if (strict) return Error::Validation("url", msg::kWebhookUrlHttpsStrict);
    if (!IsLoopbackHost(parts->host)) return Error::Validation("url", msg::kWebhookUrlHttps);
  }
  return Ok{};
}

// ---- Part 4.10 ---------------------------------------------------------------------------------------

Result<const WebhookEndpoint*> CreateEndpoint(State& s, const Caller& caller, const EndpointInput& in, bool strict_urls,
                                              Millis now) {
  // Validate everything before changing anything.
  if (auto ok = CheckWebhookUrl(in.url, strict_urls); !ok) return ok.error();
  auto events = CheckEventTypes(in.enabledEvents);
  if (!events) return events.error();
  WebhookEndpoint e;
  e.id = s.ids.Uuid4();
  e.accountId = caller.accountId;
  e.url = in.url;
  e.enabledEvents = std::move(*events);
  e.secret = "whsec_" + s.ids.Token(40);
  e.createdAt = e.updatedAt = now;
  return &s.AddWebhookEndpoint(std::move(e));
}

std::vector<const WebhookEndpoint*> ListEndpoints(const State& s, const Caller& caller) {
  std::vector<const WebhookEndpoint*> out;
  for (const auto& e : s.webhookEndpoints)
    if (e.accountId == caller.accountId) out.push_back(&e);
  return out;
}

Result<const WebhookEndpoint*> UpdateEndpoint(State& s, const Caller& caller, const std::string& id,
                                              const EndpointPatch& patch, bool strict_urls, Millis now) {
  WebhookEndpoint* e = s.webhookEndpoints.Edit(id);
  // Another account's endpoint is answered exactly like an unknown one.
  if (!e || e->accountId != caller.accountId) return Error::NotFound(msg::kWebhookEndpointNotFound);
  if (patch.url)
    if (auto ok = CheckWebhookUrl(*patch.url, strict_urls); !ok) return ok.error();
  std::optional<std::vector<std::string>> events;
  if (patch.enabledEvents) {
    auto checked = CheckEventTypes(*patch.enabledEvents);
    if (!checked) return checked.error();
    events = std::move(*checked);
  }
  std::optional<WebhookEndpointStatus> to;
  if (patch.status && !(to = core::ParseEnum<WebhookEndpointStatus>(*patch.status)))
    return Error::Validation("status", "status must be active or disabled");
  if (patch.url) s.SetWebhookEndpointUrl(*e, *patch.url);
  if (events) e->enabledEvents = std::move(*events);
  if (to) {
    if (*to == WebhookEndpointStatus::kActive) {
      // Part 3: PATCH status active (re-)enables and resets the consecutive-failure counter.
      e->status = WebhookEndpointStatus::kActive;
      e->consecutiveFailures = 0;
      e->disabledAt.reset();
      e->disabledReason.reset();
    } else if (e->status != WebhookEndpointStatus::kDisabled) {
      DisableEndpoint(s, *e, "disabled by PATCH /v2/webhooks/endpoints/" + e->id, false, now);
    }
  }
  e->updatedAt = now;
  return static_cast<const WebhookEndpoint*>(e);
}

// ---- fan-out and delivery -------------------------------------------------------------------------

std::vector<const WebhookEndpoint*> SubscribedEndpoints(const State& s, const Event& ev) {
  std::vector<const WebhookEndpoint*> out;
  for (const auto& e : s.webhookEndpoints) {
    if (e.accountId != ev.accountId || e.status != WebhookEndpointStatus::kActive) continue;
    if (std::find(e.enabledEvents.begin(), e.enabledEvents.end(), ev.type) != e.enabledEvents.end()) out.push_back(&e);
  }
  return out;
}

Result<std::vector<ResentDelivery>> ResendEvent(State& s, const std::string& event_id,
                                                const std::optional<std::string>& endpoint_id, Millis now) {
  const Event* ev = s.FindEvent(event_id);
  if (!ev) return Error::NotFound("Event not found: " + event_id);
  std::vector<std::string> targets;
  if (endpoint_id) {
    // Another account's endpoint is refused like an unknown one (Part 4.10 answers both alike);
    // a disabled one would drop the delivery at once (BeginAttempt), so it is refused up front.
    const WebhookEndpoint* e = s.webhookEndpoints.Find(*endpoint_id);
    if (!e || e->accountId != ev->accountId)
      return Error::Validation("endpointId", "no webhook endpoint " + *endpoint_id + " of the event's account " +
                                                 ev->accountId);
    if (e->status != WebhookEndpointStatus::kActive)
      return Error::Validation("endpointId", "webhook endpoint " + *endpoint_id + " is disabled");
    targets.push_back(e->id);  // subscribed or not: resending to one endpoint is an explicit ask
  } else {
    for (const auto* e : SubscribedEndpoints(s, *ev)) targets.push_back(e->id);
  }
  std::vector<ResentDelivery> out;
  // The same job arguments as State::Emit's fan-out: Part 6 retries then follow from attempt 1.
  for (auto& id : targets)
    out.push_back({id, s.Schedule(now, kDeliverJob, {{"eventId", ev->id}, {"endpointId", id}, {"attempt", 1}})});
  return out;
}

std::string EventEnvelopeText(const Event& e) {
  Millis secs = e.createdMs / kSecond;
  if (e.createdMs < 0 && e.createdMs % kSecond) --secs;  // floor, even before 1970
  // The members in dump()'s order (sorted by key), the data as it is kept (JsonText): the text
  // dump() would make of the envelope as an object, without building one per delivery.
  std::string out;
  out.reserve(e.data.text().size() + e.id.size() + e.type.size() + e.apiVersion.size() + 64);
  out += "{\"api_version\":";
  core::AppendJsonString(out, e.apiVersion);
  out += ",\"created\":";
  out += std::to_string(secs);
  out += ",\"data\":";
  out += e.data.text();
  out += ",\"id\":";
  core::AppendJsonString(out, e.id);
  out += ",\"type\":";
  core::AppendJsonString(out, e.type);
  out += '}';
  return out;
}

json EventEnvelope(const Event& e) { return json::parse(EventEnvelopeText(e)); }

namespace {

// The attempt a "webhooks.deliver" job stands for, as far as the job, its event and its endpoint
// tell: what a dropped attempt records and what the listing shows of one still to be made.
DeliveryAttempt AttemptOfJob(const State& s, const Job& job, DeliveryStatus status) {
  DeliveryAttempt d;
  d.id = "dlv_" + std::to_string(job.seq);
  d.jobSeq = job.seq;
  const json args = job.args.Parse();
  d.eventId = args.value("eventId", "");
  d.endpointId = args.value("endpointId", "");
  d.attempt = args.value("attempt", std::int64_t{1});
  d.status = status;
  d.scheduledAt = job.dueMs;
  if (const Event* ev = s.FindEvent(d.eventId)) d.eventType = ev->type;
  if (args.contains("injected") && args["injected"].is_array()) d.injected = args["injected"];
  if (const WebhookEndpoint* ep = s.webhookEndpoints.Find(d.endpointId)) {
    d.accountId = ep->accountId;
    d.url = ep->url;
    d.consecutiveFailures = ep->consecutiveFailures;
  }
  return d;
}

DeliveryAttempt& RecordDropped(State& s, const Job& job, const std::string& reason) {
  DeliveryAttempt d = AttemptOfJob(s, job, DeliveryStatus::kDropped);
  d.error = reason;
  s.deliveries.push_back(std::move(d));
  return s.deliveries.back();
}

}  // namespace

std::optional<AttemptPlan> BeginAttempt(State& s, const Job& job, Millis now) {
  const json args = job.args.Parse();
  const std::string event_id = args.value("eventId", "");
  const std::string endpoint_id = args.value("endpointId", "");
  const Event* ev = s.FindEvent(event_id);
  const WebhookEndpoint* ep = s.webhookEndpoints.Find(endpoint_id);
  const JobKey key{job.dueMs, job.seq};
  auto drop = [&](const std::string& reason) {
    RecordDropped(s, job, reason);
    s.EraseJob(key);
    return std::nullopt;
  };
  if (!ep) return drop("unknown endpoint " + endpoint_id);
  // Part 3 / Part 6: a disabled endpoint gets nothing more.
  if (ep->status != WebhookEndpointStatus::kActive) return drop("endpoint disabled");
  // Retention (State::TrimLogs) may have dropped the event while this attempt waited.
  if (!ev) return drop("unknown event " + event_id + " (never emitted, or older than the events emsim retains)");
  AttemptPlan p;
  p.job = key;
  p.jobSeq = job.seq;
  p.eventId = ev->id;
  p.eventType = ev->type;
  p.endpointId = ep->id;
  p.accountId = ep->accountId;
  p.url = ep->url;  // read at attempt time: a PATCHed url applies to retries too
  p.secret = ep->secret;
  p.body = EventEnvelopeText(*ev);
  p.attempt = args.value("attempt", std::int64_t{1});
  p.scheduledAt = job.dueMs;
  p.clock = job.clock;
  if (args.contains("injected") && args["injected"].is_array()) p.injected = args["injected"];  // a hand-edited dump may hold anything
  p.held = args.value("held", false);
  p.copy = args.value("copy", false);
  return p;
}

namespace {

// The arguments of a delivery job for `plan`'s event and endpoint, carrying what was injected.
json DeliverArgs(const AttemptPlan& plan, std::int64_t attempt, const json& injected) {
  json args = {{"eventId", plan.eventId}, {"endpointId", plan.endpointId}, {"attempt", attempt}};
  if (!injected.is_null() && !injected.empty()) args["injected"] = injected;
  return args;
}

constexpr const char* kReorderHeld = "reorderHeld";

// Whether attempts may be waiting for a reorder release: only while a reorder fault exists (a
// deleted or reset fault's holds end at their holdFor), so a run without one never scans jobs.
bool MayHoldForReorder(const State& s) {
  return std::any_of(s.faults.begin(), s.faults.end(), [](const Fault& f) { return f.reorder; });
}

// Moves the endpoint's attempts held by a reorder fault to `now`: the attempt `by` went first.
void ReleaseReorderHolds(State& s, const std::string& endpoint_id, const std::string& by, Millis now) {
  const std::string quoted_id = json(endpoint_id).dump();
  std::vector<Job> released;
  for (auto it = s.jobs.begin(); it != s.jobs.end();) {
    const Job& job = it->second;
    if (job.kind == kDeliverJob && !job.running && job.args.text().find(kReorderHeld) != std::string::npos &&
        job.args.text().find(quoted_id) != std::string::npos) {
      json args = job.args.Parse();
      if (args.value("endpointId", "") == endpoint_id && args.value(kReorderHeld, false)) {
        args.erase(kReorderHeld);
        if (args.contains("injected") && args["injected"].is_array() && !args["injected"].empty()) args["injected"].back()["releasedAfter"] = by;
        Job moved = job;
        moved.args = JobArgs(args);
        released.push_back(std::move(moved));
        it = s.EraseJob(it);
        continue;
      }
    }
    ++it;
  }
  // Same endpoint, same account: on the clock of the attempt that released them.
  for (auto& job : released) s.ScheduleOn(job.clock, std::max(now, Millis{0}), kDeliverJob, std::move(job.args));
}

}  // namespace

void HoldAttempt(State& s, const AttemptPlan& plan, const Fault& fault) {
  json injected = plan.injected;
  json entry = {{"fault", fault.id}};
  Millis until = plan.scheduledAt;
  if (fault.reorder) {
    entry["kind"] = "reorder";
    entry["heldAt"] = FormatIso(plan.scheduledAt);
    until += fault.holdFor;
  } else {
    entry["kind"] = "delay";
    entry["by"] = FormatDuration(fault.delayBy);
    until += fault.delayBy;
  }
  injected.push_back(std::move(entry));
  json args = DeliverArgs(plan, plan.attempt, injected);
  args["held"] = true;
  if (plan.copy) args["copy"] = true;
  if (fault.reorder) args[kReorderHeld] = true;
  s.EraseJob(plan.job);
  s.ScheduleOn(plan.clock, until, kDeliverJob, JobArgs(args));
}

const DeliveryAttempt& FinishAttempt(State& s, const AttemptPlan& plan, const AttemptOutcome& o, Millis now) {
  s.jobClock = plan.clock;  // retries and copies are due on the attempt's clock
  DeliveryAttempt d;
  d.id = "dlv_" + std::to_string(plan.jobSeq);
  d.jobSeq = plan.jobSeq;
  d.eventId = plan.eventId;
  d.eventType = plan.eventType;
  d.endpointId = plan.endpointId;
  d.accountId = plan.accountId;
  d.url = plan.url;
  d.attempt = plan.attempt;
  d.scheduledAt = plan.scheduledAt;
  d.sentAt = o.sentAt;
  d.sentAtWall = o.sentAtWall;
  d.responseStatus = o.status;
  if (!o.error.empty()) d.error = o.error;
  if (!o.responseBody.empty()) d.responseBody = o.responseBody;
  d.durationMs = o.durationMs;
  d.signatureTimestamp = o.signatureTimestamp;
  d.injected = plan.injected;
  if (o.injected.is_array())
    for (const auto& i : o.injected) d.injected.push_back(i);
  // Part 6: success is any 2xx; a non-2xx (3xx included: redirects are not followed), a timeout
  // or a network error is a failure.
  const bool success = o.error.empty() && o.status && *o.status >= 200 && *o.status <= 299;
  d.status = success ? DeliveryStatus::kSucceeded : DeliveryStatus::kFailed;
  s.EraseJob(plan.job);  // this attempt is over, whatever came of it

  WebhookEndpoint* ep = s.webhookEndpoints.Edit(plan.endpointId);
  bool disable = false;
  if (ep && plan.copy) {
    // A duplicate's copy is an extra request beside the delivery, not a delivery of its own.
    d.consecutiveFailures = ep->consecutiveFailures;
  } else if (ep) {
    if (success) {
      ep->consecutiveFailures = 0;  // Part 3: any success resets the counter
    } else if (ep->status == WebhookEndpointStatus::kActive) {
      // An endpoint disabled while this attempt was on the wire counts no more failures and gets
      // no next attempt (its pending deliveries were dropped when it was disabled).
      ++ep->consecutiveFailures;
      disable = ep->consecutiveFailures >= kDisableAfterFailures;
      if (!disable && plan.attempt < kMaxAttempts) {
        // Part 6: the next attempt comes the schedule's delay after this one was due.
        const Millis next = plan.scheduledAt + kRetryDelays[plan.attempt - 1];
        s.Schedule(next, kDeliverJob, DeliverArgs(plan, plan.attempt + 1, json()));
        d.nextAttemptAt = next;
      }
    }
    d.consecutiveFailures = ep->consecutiveFailures;
  }
  if (o.duplicateBy && ep && ep->status == WebhookEndpointStatus::kActive) {
    // The copy leaves right after this attempt, whatever its answer: the same event id, again.
    json copy = json::array();
    copy.push_back({{"fault", *o.duplicateBy}, {"kind", "duplicateCopy"}, {"of", d.id}});
    json args = DeliverArgs(plan, plan.attempt, copy);
    args["copy"] = true;
    s.Schedule(plan.scheduledAt, kDeliverJob, args);
  }
  if (!plan.held && MayHoldForReorder(s)) ReleaseReorderHolds(s, plan.endpointId, d.id, plan.scheduledAt);
  s.deliveries.push_back(std::move(d));
  const size_t index = s.deliveries.size() - 1;
  if (disable) {
    DisableEndpoint(s, *ep,
                    std::to_string(kDisableAfterFailures) + " consecutive failed deliveries", true, now);
  }
  return s.deliveries[index];
}

void DisableEndpoint(State& s, WebhookEndpoint& e, const std::string& reason, bool notify_owner, Millis now) {
  e.status = WebhookEndpointStatus::kDisabled;
  e.disabledAt = now;
  e.disabledReason = reason;
  e.updatedAt = now;
  // Its pending deliveries will never be made: drop them, each recorded as dropped.
  // The id as it appears in an argument text is searched for first: parsing the arguments of
  // every pending delivery for every endpoint disabled would make a run of disables quadratic in
  // parses (1,000 failing endpoints).
  const std::string quoted_id = json(e.id).dump();
  for (auto it = s.jobs.begin(); it != s.jobs.end();) {
    const Job& job = it->second;
    // A running job is on the wire: FinishAttempt records it and, the endpoint being disabled,
    // schedules nothing after it.
    if (job.kind == kDeliverJob && !job.running && job.args.text().find(quoted_id) != std::string::npos &&
        job.args.value("endpointId", "") == e.id) {
      RecordDropped(s, job, "endpoint disabled: " + reason);
      it = s.EraseJob(it);
    } else {
      ++it;
    }
  }
  if (notify_owner) {
    // Part 3: "the owner is notified by email".
    s.Notify(e.accountId, "Your webhook endpoint was disabled",
             "Webhook endpoint " + e.url + " was disabled after " + reason +
                 ". Fix the receiver, then set its status to active (PATCH /v2/webhooks/endpoints/" + e.id + ").",
             {{"type", "webhook_endpoint.disabled"}, {"endpointId", e.id}, {"url", e.url}, {"reason", reason}}, now);
  }
}

// ---- /_sim views -------------------------------------------------------------------------------------

std::vector<DeliveryAttempt> ListDeliveries(const State& s, const DeliveryFilter& f) {
  std::vector<DeliveryAttempt> out;
  auto keep = [&](const DeliveryAttempt& d) {
    return (f.endpointId.empty() || d.endpointId == f.endpointId) && (f.eventId.empty() || d.eventId == f.eventId) &&
           (f.status.empty() || core::NameOf(d.status) == f.status) && (f.accountId.empty() || d.accountId == f.accountId);
  };
  for (const auto& d : s.deliveries)
    if (keep(d)) out.push_back(d);
  for (const auto& [key, job] : s.jobs) {
    if (job.kind != kDeliverJob) continue;
    DeliveryAttempt d = AttemptOfJob(s, job, job.running ? DeliveryStatus::kInFlight : DeliveryStatus::kScheduled);
    if (keep(d)) out.push_back(std::move(d));
  }
  // Attempts that fall due at the same instant run in parallel and finish in any order; sorting
  // makes the listing the same on every run.
  std::stable_sort(out.begin(), out.end(), [](const DeliveryAttempt& a, const DeliveryAttempt& b) {
    return std::tie(a.scheduledAt, a.eventId, a.endpointId, a.attempt) <
           std::tie(b.scheduledAt, b.eventId, b.endpointId, b.attempt);
  });
  return out;
}

// ---- POST /_sim/events ----------------------------------------------------------------------------------

namespace {

// The `<resource>Details` of the object, if the account owns one of the type's resource.
Result<json> DetailsOf(const State& s, const EventTypeInfo& type, const std::string& account_id,
                       const std::string& object_id) {
  const std::string resource = type.resource;
  auto not_found = [&] {
    return Error::Validation("objectId", "no " + resource + " with id " + object_id + " in the account of apiKey");
  };
  if (resource == "domain") {
    const Domain* d = s.domains.Find(object_id);
    if (!d || d->accountId != account_id) return not_found();
    return json(DomainDetails(s, *d));
  }
  if (resource == "mailbox") {
    const Mailbox* m = s.mailboxes.Find(object_id);
    if (!m || m->accountId != account_id) return not_found();
    return MailboxDetails(s, *m);
  }
  if (resource == "subscription") {
    for (const auto& x : s.subscriptions)  // the record id or the external subscriptionId
      if (x.accountId == account_id && (x.id == object_id || x.subscriptionId == object_id))
        return SubscriptionDetails(s, x);
    return not_found();
  }
  if (resource == "workspace") {
    const Workspace* w = s.workspaces.Find(object_id);
    if (!w || w->accountId != account_id) return not_found();
    return WorkspaceDetails(*w);
  }
  if (resource == "placementTest") {
    const PlacementTest* t = s.placementTests.Find(object_id);  // the orderId
    if (!t || t->accountId != account_id) return not_found();
    return PlacementTestDetails(s, *t);
  }
  if (resource == "export") {
    const MailboxExport* x = s.exports.Find(object_id);  // the id GET /_sim/exports shows
    if (!x || x->accountId != account_id) return not_found();
    return ExportDetails(*x);
  }
  return Error::Validation("objectId", "objectId is not supported for " + std::string(type.value) +
                                           " events; send the payload in data instead");
}

}  // namespace

Result<const Event*> TriggerEvent(State& s, const TriggerInput& in, Millis now) {
  const EventTypeInfo* type = FindEventType(in.type);
  if (!type) return Error::Validation("type", "unknown event type '" + in.type + "'; known types: " + KnownTypesText());
  auto account = s.accountByApiKey.find(in.apiKey);
  if (account == s.accountByApiKey.end()) return Error::Validation("apiKey", "no account has this API key");
  json data = json::object();
  if (in.objectId) {
    auto details = DetailsOf(s, *type, account->second, *in.objectId);
    if (!details) return details.error();
    // DESIGN.md gap decision: data.<resource>Details + data.previousState. Part 6: previousState
    // holds only the fields that changed; a trigger describes the object as it is, so none did
    // and it is {} (the event schemas accept that). `data` below can name old values.
    data[std::string(type->resource) + "Details"] = std::move(*details);
    data["previousState"] = json::object();
  }
  if (in.data) {
    if (!in.data->is_object()) return Error::Validation("data", "data must be an object");
    data.update(*in.data, true);
  }
  return static_cast<const Event*>(&s.Emit(in.type, account->second, std::move(data), now));
}

}  // namespace emsim::model
