#include "events/dispatcher.hpp"

#include "events/signer.hpp"
#include "model/faults.hpp"
#include "runtime/log.hpp"

namespace emsim::events {

Dispatcher::Dispatcher(runtime::Store& store, const std::atomic<bool>& faults_may_exist, DispatcherOptions options)
    : store_(store), faults_may_exist_(faults_may_exist), options_(std::move(options)) {}

void Dispatcher::Attempt(const model::Job& job, model::Millis at, std::uint64_t generation) {
  // 1. What to send, under the lock (a disabled endpoint's attempt is recorded as dropped).
  std::optional<model::AttemptPlan> plan;
  std::optional<model::Fault> fault;  // /_sim/faults target "delivery": a broken sender on purpose
  auto url = model::Result<model::UrlParts>(model::Error::Validation("url", "not parsed"));
  store_.Write([&](model::State& s) {
    if (store_.generation() != generation) return;  // the state was reset or replaced
    plan = model::BeginAttempt(s, job, at);
    if (!plan) return;
    url = model::ParseUrl(plan->url);
    // A duplicate's copy goes out as Part 6 sends the event: faults shape the delivery, not it.
    if (!url || plan->copy || !faults_may_exist_.load(std::memory_order_acquire)) return;
    const std::string path = url->target.substr(0, url->target.find('?'));
    const model::Account* owner = s.accounts.Find(plan->accountId);
    const std::string api_key = owner ? owner->apiKey : std::string();
    if (!plan->held) {
      if (auto hold = model::TakeDeliveryFault(s, path, true, api_key)) {
        model::HoldAttempt(s, *plan, *hold);
        runtime::Log("info", "webhook attempt held back", {{"fault", hold->id}, {"event", plan->eventId},
                                                           {"endpoint", plan->endpointId}});
        plan.reset();
        return;
      }
    }
    fault = model::TakeDeliveryFault(s, path, false, api_key);
  });
  if (!plan) return;
  std::string body = plan->body;
  std::string secret = plan->secret;
  json injected;  // null unless a fault shapes this attempt
  if (fault) {
    // The envelope is edited before signing (so the signature is right for the wrong body), and
    // a corrupted signature is an HMAC under another key: what a sender with a wrong secret sends.
    if (!fault->patch.empty()) {
      json doc = json::parse(body, nullptr, false);
      auto patched = doc.is_discarded() ? model::Result<json>(model::Error::Validation("patch", "not JSON"))
                                        : model::ApplyFaultPatch(doc, fault->patch);
      if (patched) {
        body = patched->dump();
        injected.push_back({{"fault", fault->id}, {"kind", "patch"}});
      } else {
        runtime::Log("warn", "delivery fault patch does not apply", {{"fault", fault->id}, {"why", patched.error().errors.front().msg}});
      }
    }
    if (fault->corruptSignature) {
      secret += "-corrupted-by-" + fault->id;
      injected.push_back({{"fault", fault->id}, {"kind", "corruptSignature"}});
    }
    runtime::Log("info", "webhook attempt faulted", {{"fault", fault->id}, {"event", plan->eventId}, {"endpoint", plan->endpointId}});
  }

  // 2. Sign and send, with no lock held.
  model::AttemptOutcome outcome;
  outcome.sentAt = at;  // simulated: the attempt is made at its due time
  outcome.sentAtWall = runtime::Clock::WallNow();
  // DESIGN.md gap decision: `t` is wall-clock time (receivers compare it with their own clock);
  // --sign-with-simulated-time signs with the simulated clock instead.
  outcome.signatureTimestamp = (options_.signWithSimulatedTime ? at : *outcome.sentAtWall) / model::kSecond;
  if (fault && fault->staleBy) {
    // A valid signature over an old `t`: what a replayed request looks like (Part 6 tolerance).
    outcome.signatureTimestamp -= fault->staleBy / model::kSecond;
    injected.push_back({{"fault", fault->id}, {"kind", "staleTimestamp"}, {"by", model::FormatDuration(fault->staleBy)}});
  }
  if (!url) {
    outcome.error = "bad url: " + url.error().errors.front().msg;  // a hand-edited state dump
  } else {
    const std::vector<std::pair<std::string, std::string>> headers = {
        {"Content-Type", "application/json"},
        {"User-Agent", kUserAgent},
        {"X-Service-Signature", SignatureHeader(secret, outcome.signatureTimestamp, body)},
    };
    PostResult r = PostJson(*url, headers, body, options_.transport);
    outcome.status = r.status;
    outcome.error = r.error;
    outcome.responseBody = r.body;
    outcome.durationMs = r.durationMs;
    if (fault && fault->dropAfterResponse && r.status) {
      // The receiver answered (and may have acted); emsim lost the answer, as when a connection
      // drops after the receiver wrote it: a failure, retried on the Part 6 schedule.
      outcome.error = "connection dropped after the receiver answered " + std::to_string(*r.status) +
                      " (injected by " + fault->id + ")";
      injected.push_back({{"fault", fault->id}, {"kind", "dropAfterResponse"}});
    }
  }
  if (fault && fault->duplicate) {
    outcome.duplicateBy = fault->id;
    injected.push_back({{"fault", fault->id}, {"kind", "duplicate"}, {"copies", 1}});
  }
  outcome.injected = std::move(injected);

  // 3. The outcome, under the lock: counter, retry job or auto-disable.
  runtime::LogFields line;  // the attempt's log line, written once the lock is released
  store_.Write([&](model::State& s) {
    if (store_.generation() != generation) return;
    // The job went while the attempt was on the wire: its tenant was deleted or reset
    // (model/tenants.hpp), and nothing of this attempt belongs to the world any more.
    if (!s.jobs.count(plan->job)) return;
    const auto* before = s.webhookEndpoints.Find(plan->endpointId);
    const bool was_active = before && before->status == model::WebhookEndpointStatus::kActive;
    const model::DeliveryAttempt& done = model::FinishAttempt(s, *plan, outcome, at);
    if (runtime::LogEnabled("info")) {
      line = {{"delivery", done.id}, {"event", done.eventId}, {"type", done.eventType}, {"endpoint", done.endpointId},
              {"attempt", done.attempt}, {"durationMs", done.durationMs.value_or(0)},
              {"consecutiveFailures", done.consecutiveFailures}};
      if (done.responseStatus) line["status"] = *done.responseStatus;
      if (done.error) line["error"] = *done.error;
      line["next"] = done.nextAttemptAt ? model::FormatIso(*done.nextAttemptAt) : std::string("none");
    }
    if (const auto* ep = s.webhookEndpoints.Find(plan->endpointId); was_active && ep && ep->status == model::WebhookEndpointStatus::kDisabled)
      runtime::Log("warn", "webhook endpoint disabled", {{"endpoint", ep->id}, {"url", ep->url},
                                                     {"reason", ep->disabledReason.value_or("")}});
  });
  if (!line.is_null()) runtime::Log("info", "webhook attempt", line);
}

}  // namespace emsim::events
