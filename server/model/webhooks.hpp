#pragma once
// Part 4.10 webhook management and the bookkeeping of Part 6 delivery: which endpoints an event
// goes to, what one attempt sends, and what its outcome changes (retry schedule, consecutive-
// failure counter, auto-disable). The HTTP exchange and the signature live in server/events/;
// everything here is plain state and rules, with `now` passed in.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

inline constexpr const char* kDeliverJob = "webhooks.deliver";
inline constexpr const char* kApiVersion = "2026-07-01";  // Part 6 / Part 9
inline constexpr std::int64_t kMaxAttempts = 8;           // Part 6: 8 attempts, the first included
inline constexpr std::int64_t kDisableAfterFailures = 20; // Part 3: 20 consecutive failed deliveries
// Part 6: retry delays after failures, after attempt 1, 2, ... 7.
inline constexpr Millis kRetryDelays[kMaxAttempts - 1] = {1 * kMinute, 5 * kMinute, 30 * kMinute, 2 * kHour,
                                                          5 * kHour,   10 * kHour,  24 * kHour};

// ---- event types (Part 6 "Event types"; GET /v2/webhooks/events) ------------------------------
struct EventTypeInfo {
  const char* value;
  const char* label;
  const char* description;
  const char* category;
  const char* resource;  // the record the payload describes: data.<resource>Details
};
const std::vector<EventTypeInfo>& EventTypes();
const EventTypeInfo* FindEventType(std::string_view value);
// "domain.updated, domain.connection_status_changed, ..." for messages.
std::string KnownTypesText();

// ---- endpoint URLs -------------------------------------------------------------------------------
struct UrlParts {
  std::string scheme;  // "http" | "https"
  std::string host;    // as written; IPv6 literals keep their brackets: "[::1]"
  int port = 0;        // explicit or the scheme's default
  std::string target;  // path + query, at least "/"
};
// Syntax: scheme://host[:port][/path][?query]; no credentials, no fragment.
Result<UrlParts> ParseUrl(const std::string& url);
// The path of a URL without its query ("/_sim/sinks/snk_x/receive"); nullopt when ParseUrl fails.
std::optional<std::string> UrlPath(const std::string& url);
bool IsLoopbackHost(const std::string& host);
// Gap decision (DESIGN.md): https; http only for a loopback host, unless `strict`.
Status CheckWebhookUrl(const std::string& url, bool strict);

// ---- Part 4.10 -----------------------------------------------------------------------------------
struct EndpointInput {
  std::string url;
  std::vector<std::string> enabledEvents;
};
struct EndpointPatch {
  std::optional<std::string> url;
  std::optional<std::vector<std::string>> enabledEvents;
  std::optional<std::string> status;  // "active" | "disabled"
};

Result<const WebhookEndpoint*> CreateEndpoint(State& s, const Caller& caller, const EndpointInput& in, bool strict_urls,
                                              Millis now);
std::vector<const WebhookEndpoint*> ListEndpoints(const State& s, const Caller& caller);
Result<const WebhookEndpoint*> UpdateEndpoint(State& s, const Caller& caller, const std::string& id,
                                              const EndpointPatch& patch, bool strict_urls, Millis now);

// ---- fan-out and delivery --------------------------------------------------------------------------
// Active endpoints of the event's account subscribed to its type, in creation order.
std::vector<const WebhookEndpoint*> SubscribedEndpoints(const State& s, const Event& e);

// Part 6 envelope: {id, type, created (Unix seconds), api_version, data}; as text, what dump()
// makes of it (the body of a delivery).
std::string EventEnvelopeText(const Event& e);
json EventEnvelope(const Event& e);

// What one due "webhooks.deliver" job sends.
struct AttemptPlan {
  JobKey job;  // the job carrying this attempt; it stays in State::jobs, running, until FinishAttempt
  std::uint64_t jobSeq = 0;
  std::string eventId, eventType, endpointId, accountId, url, secret;
  std::string body;  // the raw envelope, byte for byte what is signed and sent
  std::int64_t attempt = 1;
  Millis scheduledAt = 0;  // the job's due time: the attempt is made at this simulated time
  std::string clock;       // the job's clock (Job::clock): its retries are due on it too
  // Delivery faults (model/faults.hpp) already applied to this attempt, from its job's arguments.
  json injected;  // null or [{fault, kind, ...}]
  bool held = false;  // held back once by a delay or reorder fault: not held again
  bool copy = false;  // the extra request of a `duplicate` fault: no retry, no failure counted
};
// Looks up the job's event and endpoint. When the attempt must not be made (endpoint disabled or
// gone, event gone) it is recorded as dropped, its job removed, and nullopt is answered. The job
// itself stays (running) until FinishAttempt: a state dumped while the attempt is in flight
// still holds a delivery of the event (Part 6: at-least-once).
std::optional<AttemptPlan> BeginAttempt(State& s, const Job& job, Millis now);

struct AttemptOutcome {
  Millis sentAt = 0;                   // simulated: the attempt's due time
  std::optional<Millis> sentAtWall;    // the wall-clock time of the HTTP call
  std::optional<std::int64_t> status;  // HTTP status when an answer came
  std::string error;                   // non-empty: timeout, connection or TLS error
  std::string responseBody;
  std::int64_t durationMs = 0;
  std::int64_t signatureTimestamp = 0;
  json injected;                           // null or the send-time faults applied (model/faults.hpp)
  std::optional<std::string> duplicateBy;  // a `duplicate` fault's id: send a copy right after
};
// Records the attempt and removes its job. Part 6: a 2xx succeeds and resets the endpoint's
// counter; anything else counts a failure and schedules the next attempt kRetryDelays after this
// one's due time (while the endpoint stays active and attempts remain); Part 3: the 20th failure
// in a row disables the endpoint.
const DeliveryAttempt& FinishAttempt(State& s, const AttemptPlan& plan, const AttemptOutcome& outcome, Millis now);

// A delay or reorder fault took this attempt when it fell due: its job moves to later (delay: by
// the fault's duration; reorder: by `holdFor`, or until the endpoint's next attempt is recorded,
// whichever comes first), recorded in its arguments so the listing shows it as injected.
void HoldAttempt(State& s, const AttemptPlan& plan, const Fault& fault);

// Sets an endpoint disabled and drops its pending deliveries (each recorded as dropped);
// `notify_owner` records the Part 3 owner notification.
void DisableEndpoint(State& s, WebhookEndpoint& endpoint, const std::string& reason, bool notify_owner, Millis now);

// POST /_sim/events/:id/resend: one new delivery of an event already emitted, attempt 1 due `now`,
// to `endpoint_id` (an active endpoint of the event's account; refused otherwise, nothing
// changed) or, without it, to every endpoint SubscribedEndpoints answers for the event now. The
// delivery then follows Part 6 like any other (retries, failure counter). Answers one
// {endpoint, job seq} per delivery scheduled (the seq names it in /_sim/deliveries: dlv_<seq>).
struct ResentDelivery {
  std::string endpointId;
  std::uint64_t jobSeq = 0;
};
Result<std::vector<ResentDelivery>> ResendEvent(State& s, const std::string& event_id,
                                                const std::optional<std::string>& endpoint_id, Millis now);

// ---- /_sim views ------------------------------------------------------------------------------------
struct DeliveryFilter {
  std::string endpointId, eventId, status, accountId;
};
// Every attempt made or dropped, then every attempt still to be made (status "scheduled", or
// "in_flight" while its HTTP call is under way), ordered
// by scheduled time (ties: event, endpoint, attempt), so the listing is deterministic.
std::vector<DeliveryAttempt> ListDeliveries(const State& s, const DeliveryFilter& f);

// POST /_sim/events: an event of any Part 6 type for the account of `apiKey`. With `objectId` (a
// domain, mailbox, subscription, placement test order or workspace of that account), the payload
// is built from that record's current state (`<resource>Details` + empty previousState), with the
// builders of model/payloads where the emitting operations have them;
// `data` is merged over it (objects deeply, anything else replaced).
struct TriggerInput {
  std::string type, apiKey;
  std::optional<std::string> objectId;
  std::optional<json> data;
};
Result<const Event*> TriggerEvent(State& s, const TriggerInput& in, Millis now);

}  // namespace emsim::model
