// Part 4.10 webhook management and Part 6 delivery end to end: the suite runs its own receiver,
// registers an endpoint, causes an event, and checks what arrives (headers, signature, envelope);
// on emsim also the retry schedule and auto-disable, moving time with POST /_sim/clock/advance
// (the same in either clock mode: the suite never asks which one emsim runs).
#include <algorithm>
#include <ctime>
#include <regex>
#include <set>

#include "live.hpp"
#include "receiver.hpp"

namespace contract {
namespace {

// Part 6 event types.
const std::vector<std::string> kEventTypes = {
    "domain.updated",        "domain.connection_status_changed", "mailbox.updated",
    "subscription.status_changed", "subscription.billing_changed", "export.started",
    "export.completed",      "export.failed",                     "export.reconnected",
    "placement_test.status_changed", "workspace.status_changed",  "workspace.invitations"};

const std::regex kEventId("^evt_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");

constexpr int kDeliveryWaitMs = 60000;  // a real deployment delivers "in near real time"

// Registers an endpoint; answers its data (with secret) or null after reporting why.
json CreateEndpoint(const std::string& url, const json& events) {
  Args a;
  a.body = json{{"url", url}, {"enabled_events", events}};
  Reply r = Invoke("webhooks.create", a);
  if (!ExpectOk(r) || !r.body["data"].is_object()) return nullptr;
  return r.body["data"];
}

json ListEndpoints(const Args& a = {}) {
  Reply r = Invoke("webhooks.list", a);
  if (!ExpectOk(r) || !r.body["data"].is_array()) return json::array();
  for (size_t i = 0; i < r.body["data"].size(); ++i)
    if (r.body["data"][i].contains("secret"))
      Violation("webhooks.list", "/data/" + std::to_string(i) + "/secret", "must never be listed (Part 2, Part 4.10)");
  return r.body["data"];
}

json FindEndpoint(const std::string& id) {
  for (const auto& e : ListEndpoints())
    if (e.value("id", "") == id) return e;
  return nullptr;
}

Reply Patch(const std::string& id, const json& body) {
  Args a;
  a.pathId = id;
  a.body = body;
  return Invoke("webhooks.update", a);
}

// Leaves an endpoint the suite created inert (Part 4.10 has no delete).
void Disable(const std::string& id) { Patch(id, {{"status", "disabled"}}); }

// Part 6: every delivery as the spec describes it. `where` names it in messages.
void CheckDelivery(const Delivery& d, const std::string& secret, const std::set<std::string>& enabled) {
  json body = json::parse(d.body, nullptr, false);
  const std::string type = body.is_object() ? body.value("type", "?") : "?";
  const std::string op = "webhook delivery " + type;
  if (d.method != "POST") Violation(op, "method", "must be POST (Part 6), got " + d.method);
  const std::string ct = d.Header("Content-Type");
  if (ct.rfind("application/json", 0) != 0) Violation(op, "header Content-Type", "must be application/json (Part 6), got '" + ct + "'");
  if (d.Header("User-Agent") != "Service-Webhooks/1.0")
    Violation(op, "header User-Agent", "must be Service-Webhooks/1.0 (Part 6), got '" + d.Header("User-Agent") + "'");
  const std::string header = d.Header("X-Service-Signature");
  const SignatureHeader sig = ParseSignature(header);
  if (!sig.parsed) {
    Violation(op, "header X-Service-Signature", "must be t=<unix_seconds>,v1=<hex_hmac_sha256> (Part 6), got '" + header + "'");
  } else {
    if (!SignatureMatches(secret, sig, d.body))
      Violation(op, "header X-Service-Signature", "v1 must be the hex HMAC-SHA256 of \"<t>.<raw body>\" keyed by the endpoint's secret (Part 6); it does not verify");
    if (std::llabs(sig.t - d.receivedWallSeconds) > 300)
      Violation(op, "header X-Service-Signature", "t must be within 5 minutes of the receiver's clock (Part 6/8): t=" + std::to_string(sig.t) +
                                                      ", receiver " + std::to_string(d.receivedWallSeconds));
  }
  if (body.is_discarded()) {
    Violation(op, "body", "must be JSON (Part 6)");
    return;
  }
  // Part 6 envelope.
  ReportSchema(op, "resources/event_envelope", body);
  if (!std::regex_match(body.value("id", ""), kEventId)) Violation(op, "/id", "must be evt_ followed by a UUIDv7 (Part 6)");
  if (body.value("api_version", "") != "2026-07-01") Violation(op, "/api_version", "must be 2026-07-01 (Part 6, Part 9)");
  if (!body["created"].is_number_integer()) Violation(op, "/created", "must be an integer: Unix time in seconds (Part 6)");
  if (!enabled.empty() && !enabled.count(type)) Violation(op, "/type", "must be one of the endpoint's enabled_events");
  if (Schemas().Has("events/" + type)) ReportSchema(op, "events/" + type, body);
  CheckValues(op, body["data"], "/data");
}

// ---- management (Part 4.10) -------------------------------------------------------------------

TEST(WebhooksEvents, ListsEverySubscribableType) {
  Reply r = Invoke("webhooks.events");
  if (!ExpectOk(r)) return;
  std::set<std::string> values;
  for (const auto& e : r.body["data"]) values.insert(e.value("value", ""));
  for (const auto& t : kEventTypes)
    if (!values.count(t)) Violation("webhooks.events", "/data", "must list event type " + t + " (Part 6 event types)");
}

TEST(WebhooksCreate, SecretIsShownOnceAndNeverListed) {
  REQUIRE_EFFECT("webhooks.create");
  Receiver receiver;
  ASSERT_TRUE(receiver.ok());
  const json ep = CreateEndpoint(receiver.Url("/hooks/secret-once"), {"domain.updated"});
  if (!ep.is_object()) return;
  const std::string secret = ep.value("secret", "");
  if (secret.rfind("whsec_", 0) != 0) Violation("webhooks.create", "/data/secret", "must begin with whsec_ (Part 2), got \"" + secret + "\"");
  if (ep.value("status", "") != "active") Violation("webhooks.create", "/data/status", "must be active for a new endpoint, got " + ep.value("status", json()).dump());
  const json listed = FindEndpoint(ep.value("id", ""));
  if (!listed.is_object()) Violation("webhooks.list", "/data", "must list the endpoint just created (" + ep.value("id", "") + ")");
  else if (listed.value("url", "") != ep.value("url", "")) Violation("webhooks.list", "url", "must be the URL registered");
  Disable(ep.value("id", ""));
}

TEST(WebhooksUpdate, PatchChangesOnlyWhatItSends) {
  REQUIRE_EFFECT("webhooks.update");
  Receiver receiver;
  const json ep = CreateEndpoint(receiver.Url("/hooks/partial"), {"domain.updated"});
  if (!ep.is_object()) return;
  const std::string id = ep.value("id", "");
  // Part 4.10: any of url, enabled_events, status; a partial update.
  Reply r = Patch(id, {{"enabled_events", {"domain.updated", "mailbox.updated"}}});
  if (ExpectOk(r)) {
    const json& d = r.body["data"];
    if (d.contains("secret")) Violation("webhooks.update", "/data/secret", "must not be returned after creation (Part 4.10)");
  }
  json now = FindEndpoint(id);
  if (now.is_object()) {
    if (now.value("url", "") != ep.value("url", "")) Violation("webhooks.update", "url", "must stay as it was when PATCH omits it");
    if (now.value("status", "") != "active") Violation("webhooks.update", "status", "must stay active when PATCH omits it");
    if (now.value("enabled_events", json()) != json({"domain.updated", "mailbox.updated"}))
      Violation("webhooks.update", "enabled_events", "must be what PATCH sent, got " + now.value("enabled_events", json()).dump());
  }
  r = Patch(id, {{"status", "disabled"}});
  ExpectOk(r);
  now = FindEndpoint(id);
  if (now.is_object()) {
    if (now.value("status", "") != "disabled") Violation("webhooks.update", "status", "must be disabled after PATCH {status: disabled}");
    if (now.value("enabled_events", json()) != json({"domain.updated", "mailbox.updated"}))
      Violation("webhooks.update", "enabled_events", "must stay as it was when PATCH omits it");
  }
}

TEST(WebhooksList, WorkspaceKeyHasNoEffect) {
  // Part 4.10 / Part 5: webhook resources belong to the API key's user; x-workspace-key is ignored.
  const json base = ListEndpoints();
  for (const auto& w : Workspaces()) {
    Args a;
    a.workspaceKey = w.value("id", "");
    if (ListEndpoints(a) != base)
      Violation("webhooks.list", "/data", "must not depend on x-workspace-key (Part 4.10), differs under " + a.workspaceKey.value());
  }
  Args bogus;
  bogus.workspaceKey = "contract-suite-no-such-workspace";
  Reply r = Invoke("webhooks.list", bogus);
  if (ExpectOk(r) && r.body["data"] != base) Violation("webhooks.list", "/data", "must not depend on x-workspace-key (Part 4.10)");
}

TEST(WebhooksCreate, ValidationNamesTheField) {
  REQUIRE_EMSIM_GAP("webhook validation errors (Part 7: not shown): 400 naming url or enabled_events");
  Receiver receiver;
  const json valid = {{"url", receiver.Url("/hooks/invalid")}, {"enabled_events", {"domain.updated"}}};
  CheckRequiredFields("webhooks.create", valid, {"url", "enabled_events"},
                      {{"enabled_events", json::array({"domain.exploded"})}, {"url", "ftp://example.com/x"}});
  const json ep = CreateEndpoint(receiver.Url("/hooks/invalid"), {"domain.updated"});
  if (ep.is_object()) {
    // Part 4.10: status is active or disabled.
    ExpectError(Patch(ep.value("id", ""), {{"status", "paused"}}), 400, "status");
    ExpectError(Patch(ep.value("id", ""), {{"enabled_events", json::array({"domain.exploded"})}}), 400, "enabled_events");
    Disable(ep.value("id", ""));
  }
  Reply r = Patch("contract-suite-no-such-endpoint", {{"status", "active"}});
  ExpectError(r, 404);
}

// ---- delivery (Part 6) -------------------------------------------------------------------------

// Causes a domain.updated for a domain of the account: add-dmarc with another address (on emsim
// applied after its delay, so the clock is advanced). Part 6 does not say which operations emit
// which events; domain.updated "fires when a domain's configuration changes", and DMARC is part
// of it.
bool CauseDomainUpdated() {
  const json all = AllDomains(1);
  if (all.empty()) return false;
  const json& d = all[0];
  // A real deployment's domain gets one of two plain report addresses at its own name, the
  // other one than it has now, so something changes on every run.
  const std::string name = d.value("domain", "");
  std::string email = "dmarc@" + name;
  if (Cfg().isEmsim) email = "contract-" + Nonce() + "@" + name;
  else if (d.value("dmarcEmail", json()) == email) email = "dmarc-reports@" + name;
  Args a;
  a.body = json{{"domainIds", json::array({d["id"]})}, {"email", email}};
  if (!ExpectOk(Invoke("domains.add_dmarc", a))) return false;
  if (Cfg().isEmsim) AdvanceClock("2m");
  return true;
}

TEST(WebhookDelivery, ASignedEnvelopeArrivesForAnEvent) {
  REQUIRE_EFFECT("webhooks.create");
  REQUIRE_EFFECT("domains.add_dmarc");
  if (!Cfg().isEmsim && Cfg().webhookReceiverUrl.empty())
    GTEST_SKIP() << "a real deployment cannot reach 127.0.0.1: pass --webhook-receiver-url (a public URL reaching --receiver-port)";
  Receiver receiver;
  ASSERT_TRUE(receiver.ok());
  const std::string path = "/hooks/e2e";
  const json ep = CreateEndpoint(receiver.Url(path), {"domain.updated"});
  if (!ep.is_object()) return;
  const std::string secret = ep.value("secret", "");
  ASSERT_TRUE(CauseDomainUpdated()) << "no domain to change";
  if (!receiver.WaitFor(path, 1, Cfg().isEmsim ? 5000 : kDeliveryWaitMs)) {
    Violation("webhook delivery domain.updated", "receiver", "must receive a POST after add-dmarc changed a domain (Part 6), got none");
  } else {
    for (const auto& d : receiver.ReceivedOn(path)) CheckDelivery(d, secret, {"domain.updated"});
  }
  Disable(ep.value("id", ""));
}

// emsim's attempt log for one endpoint, oldest first.
json Deliveries(const std::string& endpoint_id) {
  Reply r = Sim("GET", "/_sim/deliveries?endpointId=" + endpoint_id);
  if (r.status != 200 || !r.isJson) {
    ADD_FAILURE() << "GET /_sim/deliveries: " << r.Brief();
    return json::array();
  }
  return r.body.value("deliveries", json::array());
}

// POST /_sim/events for a domain of the account: the event, or null.
json EmitDomainEvent() {
  const json all = AllDomains(1);
  if (all.empty()) return nullptr;
  // previousState names one changed field, as Part 6 has it (an empty one would not fit).
  Reply r = Sim("POST", "/_sim/events", {{"type", "domain.updated"}, {"apiKey", Cfg().apiKey}, {"objectId", all[0]["id"]},
                                         {"data", {{"previousState", {{"dmarcEmail", nullptr}}}}}});
  if (r.status != 201) {
    ADD_FAILURE() << "POST /_sim/events: " << r.Brief();
    return nullptr;
  }
  return r.body["event"];
}

TEST(WebhookDelivery, FailuresAreRetriedOnTheSpecSchedule) {
  REQUIRE_EMSIM("the retry schedule is run by /_sim/clock/advance");
  Receiver receiver;
  receiver.RespondWith(500);
  const std::string path = "/hooks/retries";
  const json ep = CreateEndpoint(receiver.Url(path), {"domain.updated"});
  ASSERT_TRUE(ep.is_object());
  const json event = EmitDomainEvent();
  ASSERT_TRUE(event.is_object());
  AdvanceClock("2d");
  // Part 6: 8 attempts in all, the same event each time (other events of the account, such as a
  // bought domain's lifecycle, may reach the endpoint too: they are not counted).
  std::vector<Delivery> got;
  for (const auto& d : receiver.ReceivedOn(path)) {
    json b = json::parse(d.body, nullptr, false);
    if (b.is_object() && b.value("id", "") == event.value("id", "")) got.push_back(d);
  }
  if (got.size() != 8) Violation("webhook delivery domain.updated", "attempts", "must be 8 in all for a receiver that always fails (Part 6), got " + std::to_string(got.size()));
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].body != got[0].body) Violation("webhook delivery domain.updated", "body of attempt " + std::to_string(i + 1), "must be the same envelope on every attempt (Part 6: at-least-once, de-duplicated by id)");
    CheckDelivery(got[i], ep.value("secret", ""), {"domain.updated"});
  }
  // Part 6: retry delays 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h (simulated time, from emsim's log).
  const std::vector<long long> expected_gaps = {60, 300, 1800, 7200, 18000, 36000, 86400};
  std::vector<std::string> times;
  for (const auto& a : Deliveries(ep.value("id", "")))
    if (a.value("eventId", "") == event.value("id", "") && a["sentAt"].is_string()) times.push_back(a["sentAt"]);
  if (times.size() == 8) {
    for (size_t i = 1; i < times.size(); ++i) {
      // ISO 8601 with ms -> seconds via the suite's own parse.
      auto secs = [](const std::string& iso) {
        std::tm tm{};
        strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
        return static_cast<long long>(timegm(&tm));
      };
      const long long gap = secs(times[i]) - secs(times[i - 1]);
      if (gap != expected_gaps[i - 1])
        Violation("webhook delivery domain.updated", "attempt " + std::to_string(i + 1),
                  "must come " + std::to_string(expected_gaps[i - 1]) + " s after attempt " + std::to_string(i) + " (Part 6), came " + std::to_string(gap) + " s");
    }
  } else {
    Violation("webhook delivery domain.updated", "/_sim/deliveries", "must log 8 sent attempts, got " + std::to_string(times.size()));
  }
  Disable(ep.value("id", ""));
}

TEST(WebhookDelivery, TwentyConsecutiveFailuresDisableAndActiveReenables) {
  REQUIRE_EMSIM("20 failures in a row are produced through /_sim/clock/advance");
  Receiver receiver;
  receiver.RespondWith(503);
  const std::string path = "/hooks/auto-disable";
  const json ep = CreateEndpoint(receiver.Url(path), {"domain.updated"});
  ASSERT_TRUE(ep.is_object());
  const std::string id = ep.value("id", "");
  for (int i = 0; i < 19; ++i) ASSERT_TRUE(EmitDomainEvent().is_object());
  AdvanceClock("1s");
  json now = FindEndpoint(id);
  if (now.value("status", "") != "active") Violation("webhooks.list", "status", "must stay active after 19 failures, got " + now.value("status", json()).dump());
  ASSERT_TRUE(EmitDomainEvent().is_object());
  AdvanceClock("1s");
  now = FindEndpoint(id);
  // Part 3 / Part 6: disabled after 20 consecutive failed deliveries.
  if (now.value("status", "") != "disabled")
    Violation("webhooks.list", "status", "must be disabled after 20 consecutive failed deliveries (Part 6), got " + now.value("status", json()).dump());
  const size_t before = receiver.ReceivedOn(path).size();
  ASSERT_TRUE(EmitDomainEvent().is_object());
  AdvanceClock("1s");
  if (receiver.ReceivedOn(path).size() != before) Violation("webhook delivery", "disabled endpoint", "must receive nothing while disabled");
  // Part 3: PATCH status active re-enables and resets the counter: 19 more failures keep it active.
  ExpectOk(Patch(id, {{"status", "active"}}));
  for (int i = 0; i < 19; ++i) ASSERT_TRUE(EmitDomainEvent().is_object());
  AdvanceClock("1s");
  now = FindEndpoint(id);
  if (now.value("status", "") != "active")
    Violation("webhooks.update", "status active", "must reset the consecutive-failure counter (Part 3): 19 failures after it disabled the endpoint again");
  receiver.RespondWith(200);
  ASSERT_TRUE(EmitDomainEvent().is_object());
  AdvanceClock("1s");
  if (receiver.ReceivedOn(path).size() <= before) Violation("webhook delivery", "re-enabled endpoint", "must receive events again");
  Disable(id);
}

}  // namespace
}  // namespace contract
