// Webhook rules in the model, no sockets: fan-out in State::Emit, the retry table, the 20-failure
// auto-disable, URL rules, dump/load. Plus the signer (events layer) against a known vector.
#include <gtest/gtest.h>

#include "events/signer.hpp"
#include "model/sinks.hpp"
#include "model/webhooks.hpp"

namespace emsim::model {
namespace {

constexpr Millis kT0 = 1767258000000;

State TwoAccounts() {
  State s;
  s.ids = IdGenerator(7);
  for (auto [id, key] : {std::pair{"acc_a", "key_a"}, std::pair{"acc_b", "key_b"}}) {
    Account a;
    a.id = id;
    a.apiKey = key;
    a.user.email = std::string(id) + "@example.com";
    s.accounts.Insert(a);
  }
  s.RebuildIndexes();
  return s;
}

const WebhookEndpoint& Endpoint(State& s, const std::string& account, std::vector<std::string> events,
                                const std::string& url = "https://h.example.com/x") {
  auto e = CreateEndpoint(s, {account, ""}, {url, std::move(events)}, false, kT0);
  EXPECT_TRUE(e.ok());
  return **e;
}

// Runs every due deliver job up to `until` with a fixed outcome, as the dispatcher would.
int RunDeliveries(State& s, Millis until, std::optional<std::int64_t> status, const std::string& error = "") {
  int ran = 0;
  while (!s.jobs.empty() && s.jobs.begin()->first.first <= until) {
    s.jobs.begin()->second.running = true;  // the scheduler took it
    Job job = s.jobs.begin()->second;
    auto plan = BeginAttempt(s, job, job.dueMs);
    if (!plan) continue;
    AttemptOutcome o;
    o.sentAt = job.dueMs;
    o.status = status;
    o.error = error;
    FinishAttempt(s, *plan, o, job.dueMs);
    ++ran;
  }
  return ran;
}

TEST(WebhooksModel, EmitSchedulesOneDeliveryPerActiveSubscribedEndpointOfTheAccount) {
  State s = TwoAccounts();
  const auto& a1 = Endpoint(s, "acc_a", {"domain.updated"});
  const std::string a1_id = a1.id;
  Endpoint(s, "acc_a", {"mailbox.updated"});
  Endpoint(s, "acc_b", {"domain.updated"});
  const Event& e = s.Emit("domain.updated", "acc_a", {{"domainDetails", {{"id", "d1"}}}}, kT0 + 1500);
  EXPECT_EQ(e.id.rfind("evt_", 0), 0u);
  EXPECT_EQ(e.id[4 + 14], '7') << "UUIDv7: " << e.id;
  ASSERT_EQ(s.jobs.size(), 1u);
  const Job& job = s.jobs.begin()->second;
  EXPECT_EQ(job.kind, kDeliverJob);
  EXPECT_EQ(job.dueMs, kT0 + 1500) << "due at once";
  EXPECT_EQ(job.args.Parse()["endpointId"], a1_id);
  EXPECT_EQ(job.args.Parse()["attempt"], 1);
  EXPECT_EQ(EventEnvelope(e)["created"], kT0 / 1000 + 1) << "Unix seconds, floored";
  EXPECT_EQ(EventEnvelope(e)["api_version"], "2026-07-01");
}

// A retained event's data and a pending job's arguments are held in allocations of their own size:
// a world keeps hundreds of thousands of each (a 1 KB buffer left with each doubled the memory a
// mailbox assignment keeps).
TEST(WebhooksModel, EventDataAndJobArgumentsKeepNoSpareCapacity) {
  State s = TwoAccounts();
  Endpoint(s, "acc_a", {"domain.updated"});
  const Event& e = s.Emit("domain.updated", "acc_a", {{"domainDetails", {{"id", "d1"}}}}, kT0);
  EXPECT_LT(e.data.text().capacity(), e.data.text().size() + 16) << e.data.text();
  const Job& job = s.jobs.begin()->second;
  EXPECT_LT(job.args.text().capacity(), job.args.text().size() + 16) << job.args.text();
}

TEST(WebhooksModel, TheDeliveredBodyIsTheEnvelopeAsJsonWouldWriteIt) {
  // The event's data is kept as text (JsonText) and the body written around it: it must be what
  // the envelope built as a JSON object dumps to, escapes and times before 1970 included.
  State s = TwoAccounts();
  const json data = {{"name", "qu\"ote \u00e9\n"}, {"nested", {{"b", {1, 2.5, nullptr}}, {"a", true}}}};
  Event& e = s.Emit("domain.updated\t", "acc_a", data, kT0 + 999);
  e.apiVersion = "v\\1";
  const json expected = {{"id", e.id}, {"type", "domain.updated\t"}, {"created", kT0 / 1000},
                         {"api_version", "v\\1"}, {"data", data}};
  EXPECT_EQ(EventEnvelopeText(e), expected.dump());
  EXPECT_EQ(EventEnvelope(e), expected);
  e.createdMs = -1500;  // floor: -2 seconds
  EXPECT_EQ(EventEnvelope(e)["created"], -2);
  EXPECT_EQ(e.data.Parse(), data);
}

TEST(WebhooksModel, FailuresFollowThePart6RetryTableForEightAttempts) {
  State s = TwoAccounts();
  Endpoint(s, "acc_a", {"domain.updated"});
  s.Emit("domain.updated", "acc_a", json::object(), kT0);
  EXPECT_EQ(RunDeliveries(s, kT0 + 7 * kDay, 500), 8);
  ASSERT_EQ(s.deliveries.size(), 8u);
  Millis expected = kT0;
  const Millis delays[] = {kMinute, 5 * kMinute, 30 * kMinute, 2 * kHour, 5 * kHour, 10 * kHour, 24 * kHour};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(s.deliveries[i].attempt, i + 1);
    EXPECT_EQ(s.deliveries[i].scheduledAt, expected) << "attempt " << i + 1;
    if (i < 7) {
      expected += delays[i];
      EXPECT_EQ(s.deliveries[i].nextAttemptAt, expected);
    } else {
      EXPECT_FALSE(s.deliveries[i].nextAttemptAt);
    }
  }
  EXPECT_TRUE(s.jobs.empty());
}

// Disabling finds its pending deliveries by the endpoint id inside their argument text (model/state.hpp
// JobArgs): an id JSON escapes, and an id that is a prefix of another's, still drop exactly its own.
TEST(WebhooksModel, DisablingDropsExactlyTheEndpointsOwnPendingDeliveries) {
  State s = TwoAccounts();
  WebhookEndpoint odd = Endpoint(s, "acc_a", {"domain.updated"});
  WebhookEndpoint longer = Endpoint(s, "acc_a", {"domain.updated"});
  auto set_id = [&s](WebhookEndpoint copy, std::string id) {
    copy.id = std::move(id);
    s.webhookEndpoints.Insert(copy);
    return s.webhookEndpoints.Edit(copy.id);
  };
  WebhookEndpoint* quoted = set_id(odd, "we_\"odd\"\\id");
  set_id(longer, "we_\"odd\"\\id2");
  const size_t before = s.jobs.size();
  for (const char* id : {"we_\"odd\"\\id", "we_\"odd\"\\id2", "we_\"odd\"\\id"})
    s.Schedule(kT0 + kMinute, kDeliverJob, {{"eventId", "evt_x"}, {"endpointId", id}, {"attempt", 2}});
  DisableEndpoint(s, *quoted, "test", false, kT0);
  int dropped = 0;
  for (const auto& d : s.deliveries) {
    if (d.status != DeliveryStatus::kDropped) continue;
    ++dropped;
    EXPECT_EQ(d.endpointId, "we_\"odd\"\\id");
    EXPECT_EQ(d.attempt, 2);
  }
  EXPECT_EQ(dropped, 2);
  ASSERT_EQ(s.jobs.size(), before + 1);
  EXPECT_EQ(std::prev(s.jobs.end())->second.args.value("endpointId", ""), "we_\"odd\"\\id2");
}

TEST(WebhooksModel, TheTwentiethConsecutiveFailureDisablesAndDropsPendingDeliveries) {
  State s = TwoAccounts();
  const std::string id = Endpoint(s, "acc_a", {"domain.updated"}).id;
  for (int i = 0; i < 19; ++i) s.Emit("domain.updated", "acc_a", json::object(), kT0);
  RunDeliveries(s, kT0, std::nullopt, "timeout");
  EXPECT_EQ(s.webhookEndpoints.Find(id)->consecutiveFailures, 19);
  EXPECT_EQ(s.webhookEndpoints.Find(id)->status, WebhookEndpointStatus::kActive);
  // A 3xx counts as a failure too (redirects are not followed).
  s.Emit("domain.updated", "acc_a", json::object(), kT0);
  RunDeliveries(s, kT0, 301);
  const WebhookEndpoint* e = s.webhookEndpoints.Find(id);
  EXPECT_EQ(e->status, WebhookEndpointStatus::kDisabled);
  EXPECT_EQ(e->disabledAt, kT0);
  ASSERT_EQ(s.notifications.size(), 1u);
  EXPECT_EQ(s.notifications[0].to, "acc_a@example.com");
  EXPECT_TRUE(s.jobs.empty()) << "pending retries dropped";
  int dropped = 0;
  for (const auto& d : s.deliveries) dropped += d.status == DeliveryStatus::kDropped;
  EXPECT_EQ(dropped, 19) << "the 19 retries pending; the 20th failure scheduled none";
  // Nothing more for a disabled endpoint.
  s.Emit("domain.updated", "acc_a", json::object(), kT0 + kMinute);
  EXPECT_TRUE(s.jobs.empty());

  // PATCH status active: back, counter at zero; a success also resets it.
  ASSERT_TRUE(UpdateEndpoint(s, {"acc_a", ""}, id, {std::nullopt, std::nullopt, "active"}, false, kT0).ok());
  EXPECT_EQ(s.webhookEndpoints.Find(id)->consecutiveFailures, 0);
  s.Emit("domain.updated", "acc_a", json::object(), kT0 + 2 * kMinute);
  RunDeliveries(s, kT0 + 2 * kMinute, 500);
  EXPECT_EQ(s.webhookEndpoints.Find(id)->consecutiveFailures, 1);
  RunDeliveries(s, kT0 + kHour, 299);
  EXPECT_EQ(s.webhookEndpoints.Find(id)->consecutiveFailures, 0);
}

TEST(WebhooksModel, AnAttemptInFlightIsCoveredByADumpAndRemovedWhenItIsRecorded) {
  State s = TwoAccounts();
  Endpoint(s, "acc_a", {"domain.updated"});
  s.Emit("domain.updated", "acc_a", json::object(), kT0);
  s.jobs.begin()->second.running = true;  // the scheduler took it
  Job job = s.jobs.begin()->second;
  auto plan = BeginAttempt(s, job, kT0);
  ASSERT_TRUE(plan);
  // Dumped while the POST is on the wire: the loaded state still delivers the event, as attempt 1
  // (the job is not running in a state that was loaded).
  State loaded = LoadState(DumpState(s));
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs.begin()->second.args.Parse()["attempt"], 1);
  EXPECT_FALSE(loaded.jobs.begin()->second.running);
  // No retry exists while the attempt is in flight, so none can go out before it is answered.
  EXPECT_EQ(s.jobs.size(), 1u);
  // The live state: the attempt succeeds, so no second attempt.
  AttemptOutcome ok;
  ok.status = 200;
  FinishAttempt(s, *plan, ok, kT0);
  EXPECT_TRUE(s.jobs.empty());
  EXPECT_FALSE(s.deliveries.back().nextAttemptAt);
}

TEST(WebhooksModel, DisablingAnEndpointLeavesItsAttemptInFlightToBeRecordedWithNoRetry) {
  State s = TwoAccounts();
  const std::string id = Endpoint(s, "acc_a", {"domain.updated"}).id;
  s.Emit("domain.updated", "acc_a", json::object(), kT0);
  s.jobs.begin()->second.running = true;
  Job job = s.jobs.begin()->second;
  auto plan = BeginAttempt(s, job, kT0);
  ASSERT_TRUE(plan);
  ASSERT_TRUE(UpdateEndpoint(s, {"acc_a", ""}, id, {std::nullopt, std::nullopt, "disabled"}, false, kT0).ok());
  EXPECT_EQ(s.jobs.size(), 1u) << "the running attempt is not dropped under the sender's feet";
  AttemptOutcome failed;
  failed.status = 500;
  const auto& d = FinishAttempt(s, *plan, failed, kT0);
  EXPECT_EQ(d.status, DeliveryStatus::kFailed);
  EXPECT_FALSE(d.nextAttemptAt);
  EXPECT_TRUE(s.jobs.empty());
  EXPECT_EQ(s.webhookEndpoints.Find(id)->consecutiveFailures, 0) << "a disabled endpoint counts no more failures";
}

TEST(WebhooksModel, UrlRules) {
  EXPECT_TRUE(CheckWebhookUrl("https://a.example.com/x", false).ok());
  EXPECT_TRUE(CheckWebhookUrl("http://localhost/x", false).ok());
  EXPECT_TRUE(CheckWebhookUrl("http://127.255.0.1:1/x", false).ok());
  EXPECT_TRUE(CheckWebhookUrl("http://[::1]:80/x", false).ok());
  EXPECT_FALSE(CheckWebhookUrl("http://[::1]:80/x", true).ok());
  EXPECT_FALSE(CheckWebhookUrl("http://10.0.0.1/x", false).ok());
  EXPECT_FALSE(CheckWebhookUrl("http://127.0.0/x", false).ok());
  EXPECT_FALSE(CheckWebhookUrl("http://1270.0.0.1/x", false).ok());
  auto p = ParseUrl("https://Hooks.example.com?x=1");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->port, 443);
  EXPECT_EQ(p->target, "/?x=1");
  auto v6 = ParseUrl("http://[::1]:8080/a/b");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "[::1]");
  EXPECT_EQ(v6->port, 8080);
  EXPECT_EQ(v6->target, "/a/b");
}

TEST(WebhooksModel, WebhookStateRoundTripsThroughDumpAndLoad) {
  State s = TwoAccounts();
  const std::string id = Endpoint(s, "acc_a", {"domain.updated"}).id;
  s.Emit("domain.updated", "acc_a", json::object(), kT0);
  RunDeliveries(s, kT0, 500);
  ASSERT_TRUE(CreateSink(s, "x", {{"failFirst", 2}}, kT0).ok());
  s.Notify("acc_a", "subject", "message", json::object(), kT0);
  State back = LoadState(DumpState(s));
  EXPECT_EQ(DumpState(back), DumpState(s));
  EXPECT_EQ(back.webhookEndpoints.Find(id)->consecutiveFailures, 1);
  EXPECT_EQ(back.jobs.size(), 1u) << "the pending retry";
  ASSERT_NE(back.FindEvent(s.events[0].id), nullptr) << "event index rebuilt";
}

TEST(Signer, HmacMatchesRfc4231AndTheHeaderHasThePart6Form) {
  // RFC 4231 test case 2.
  EXPECT_EQ(events::HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  const std::string body = R"({"id":"evt_1"})";
  const std::string header = events::SignatureHeader("whsec_k", 1767258000, body);
  EXPECT_EQ(header, "t=1767258000,v1=" + events::HmacSha256Hex("whsec_k", "1767258000." + body));
  auto parsed = events::ParseSignatureHeader(header);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->t, 1767258000);
  EXPECT_TRUE(events::SignatureMatches(*parsed, "whsec_k", body));
  EXPECT_FALSE(events::SignatureMatches(*parsed, "whsec_other", body));
  EXPECT_FALSE(events::SignatureMatches(*parsed, "whsec_k", body + " "));
  EXPECT_FALSE(events::ParseSignatureHeader("v1=abc"));
  EXPECT_FALSE(events::ParseSignatureHeader("t=12x,v1=abc"));
}

}  // namespace
}  // namespace emsim::model
