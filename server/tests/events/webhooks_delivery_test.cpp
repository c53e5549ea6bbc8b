// Part 6 delivery, end to end: emsim POSTs to a real receiver on port 0 (an httplib::Server in
// this test, not a sink) and every row of Part 6's tables is checked from the receiver's side or
// from GET /_sim/deliveries. Time moves only by POST /_sim/clock/advance.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "core/time.hpp"
#include "tests/support/refusing_port.hpp"
#include "tests/support/webhook_receiver.hpp"
#include "tests/support/fixture_clock.hpp"

namespace emsim::testing {
namespace {



app::Options WithTimeout(std::int64_t ms) {
  app::Options o;
  o.webhookTimeoutMs = ms;
  return o;
}

json Only(const json& deliveries, const std::string& status) {
  json out = json::array();
  for (const auto& d : deliveries)
    if (d["status"] == status) out.push_back(d);
  return out;
}

// ---- the request itself: headers, signature, envelope (Part 6) ------------------------------------

TEST(WebhookDelivery, SignedEnvelopeWithPart6HeadersReachesARealReceiver) {
  Receiver receiver;
  TestServer server;
  auto endpoint = CreateEndpoint(server, receiver.Url("/hook"));
  json event = Trigger(server, "workspace.invitations", kAliceKey, "ws_northwind");
  // The first attempt is due when the event is created: it goes out without the clock moving,
  // and an advance by nothing waits for it.
  server.Advance("0s");
  auto hits = receiver.Hits();
  ASSERT_EQ(hits.size(), 1u);
  const auto& hit = hits[0];
  EXPECT_EQ(hit.path, "/hook");
  EXPECT_EQ(hit.Header("Content-Type"), "application/json");
  EXPECT_EQ(hit.Header("User-Agent"), "Service-Webhooks/1.0");

  // X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256("<t>.<raw body>", secret)>
  const std::string sig = hit.Header("X-Service-Signature");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(sig, m, std::regex("t=([0-9]+),v1=([0-9a-f]{64})"))) << sig;
  const std::string t = m[1], v1 = m[2];
  EXPECT_EQ(v1, TestHmacSha256Hex(endpoint.secret, t + "." + hit.body));
  EXPECT_NE(v1, TestHmacSha256Hex(endpoint.secret + "x", t + "." + hit.body));
  // DESIGN.md gap decision: t is wall-clock time by default (a 5-minute-tolerance receiver
  // accepts it even though the simulated clock says 2026-01-01).
  EXPECT_LE(std::llabs(std::stoll(t) - static_cast<long long>(std::time(nullptr))), 300);

  // The envelope: exactly the emitted event, created in simulated seconds.
  json body = json::parse(hit.body);
  EXPECT_CONFORMS(server, "resources/event_envelope", body);
  EXPECT_CONFORMS(server, "events/workspace.invitations", body);
  EXPECT_EQ(body["id"], event["id"]);
  EXPECT_EQ(body["type"], "workspace.invitations");
  EXPECT_EQ(body["created"], kFixtureStartSeconds);
  EXPECT_EQ(body["api_version"], "2026-07-01");
  EXPECT_EQ(body["data"]["workspaceDetails"]["id"], "ws_northwind");
  EXPECT_EQ(body.size(), 5u) << "envelope fields only: " << hit.body;

  json d = Deliveries(server)["deliveries"];
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0]["status"], "succeeded");
  EXPECT_EQ(d[0]["attempt"], 1);
  EXPECT_EQ(d[0]["eventId"], event["id"]);
  EXPECT_EQ(d[0]["endpointId"], endpoint.id);
  EXPECT_EQ(d[0]["responseStatus"], 200);
  EXPECT_EQ(d[0]["scheduledAt"], FixtureTimeIso(0));
  EXPECT_EQ(d[0]["sentAt"], FixtureTimeIso(0));
  EXPECT_EQ(d[0]["signatureTimestamp"], std::stoll(t));
  EXPECT_TRUE(d[0]["nextAttemptAt"].is_null());
  EXPECT_TRUE(d[0]["durationMs"].is_number_integer());
}

TEST(WebhookDelivery, SignsWithSimulatedTimeWhenTheFlagSaysSo) {
  Receiver receiver;
  app::Options o;
  o.signWithSimulatedTime = true;
  TestServer server(o);
  auto endpoint = CreateEndpoint(server, receiver.Url());
  server.Advance("1h");
  Trigger(server);
  server.Advance("0s");
  ASSERT_EQ(receiver.Count(), 1u);
  const auto hit = receiver.Hits()[0];
  const std::string t = std::to_string(kFixtureStartSeconds + 3600);
  EXPECT_EQ(hit.Header("X-Service-Signature"), "t=" + t + ",v1=" + TestHmacSha256Hex(endpoint.secret, t + "." + hit.body));
}

// ---- fan-out (Part 6: every active endpoint of the owning account subscribed to the type) -------

TEST(WebhookDelivery, EachEventGoesToEveryActiveSubscribedEndpointOfItsAccountOnly) {
  Receiver receiver;
  TestServer server;
  auto a1 = CreateEndpoint(server, receiver.Url("/a1"), {"workspace.invitations", "domain.updated"});
  auto a2 = CreateEndpoint(server, receiver.Url("/a2"), {"workspace.invitations"});
  CreateEndpoint(server, receiver.Url("/other-type"), {"domain.updated"});
  auto off = CreateEndpoint(server, receiver.Url("/disabled"), {"workspace.invitations"});
  ASSERT_EQ(server.Patch("/v2/webhooks/endpoints/" + off.id, {{"status", "disabled"}}).status, 200);
  CreateEndpoint(server, receiver.Url("/bob"), {"workspace.invitations"}, kBobKey);

  auto r = server.Post("/_sim/events", {{"type", "workspace.invitations"}, {"apiKey", kAliceKey}, {"objectId", "ws_northwind"}}, "");
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["endpoints"], json::array({a1.id, a2.id}));
  server.Advance("0s");

  EXPECT_EQ(receiver.HitsTo("/a1").size(), 1u);
  EXPECT_EQ(receiver.HitsTo("/a2").size(), 1u);
  EXPECT_EQ(receiver.Count(), 2u) << "no delivery to another type's, a disabled or another account's endpoint";
  // Each copy is signed with its own endpoint's secret.
  for (const auto& [path, ep] : {std::pair{"/a1", a1}, std::pair{"/a2", a2}}) {
    auto hit = receiver.HitsTo(path)[0];
    const std::string sig = hit.Header("X-Service-Signature");
    const std::string t = sig.substr(2, sig.find(',') - 2);
    EXPECT_EQ(sig.substr(sig.find("v1=") + 3), TestHmacSha256Hex(ep.secret, t + "." + hit.body)) << path;
  }
}

TEST(WebhookDelivery, EventsEmittedByOperationsAreDeliveredAndFitTheirSchemas) {
  // Not a trigger: a domain operation's own State::Emit calls reach the receiver.
  Receiver receiver;
  TestServer server;
  auto endpoint = CreateEndpoint(server, receiver.Url(), {"domain.updated", "domain.connection_status_changed"});
  auto moved = server.Post("/_sim/domains/dom_nw_01/transition", {{"status", "CONNECTED"}}, "");
  ASSERT_EQ(moved.status, 200) << moved.raw;
  server.Advance("0s");
  auto hits = receiver.Hits();
  ASSERT_EQ(hits.size(), 2u);
  std::set<std::string> types;
  for (const auto& hit : hits) {
    json body = json::parse(hit.body);
    types.insert(body["type"]);
    EXPECT_CONFORMS(server, "resources/event_envelope", body);
    EXPECT_CONFORMS(server, "events/" + body["type"].get<std::string>(), body);
    EXPECT_EQ(body["data"]["domainDetails"]["id"], "dom_nw_01");
    const std::string sig = hit.Header("X-Service-Signature");
    const std::string t = sig.substr(2, sig.find(',') - 2);
    EXPECT_EQ(sig.substr(sig.find("v1=") + 3), TestHmacSha256Hex(endpoint.secret, t + "." + hit.body));
  }
  EXPECT_EQ(types, (std::set<std::string>{"domain.updated", "domain.connection_status_changed"}));
}

// ---- retries (Part 6: 1m 5m 30m 2h 5h 10h 24h; 8 attempts) -----------------------------------------

TEST(WebhookDelivery, FailedDeliveryIsRetriedOnTheWholeScheduleThenGivenUp) {
  Receiver receiver;
  receiver.AlwaysAnswer(500);
  TestServer server;
  auto endpoint = CreateEndpoint(server, receiver.Url());
  json event = Trigger(server);
  server.Advance("0s");
  EXPECT_EQ(receiver.Count(), 1u);
  server.Advance("2d");  // the whole schedule (41h36m) runs in one advance
  ASSERT_EQ(receiver.Count(), 8u);

  json d = Deliveries(server, "?eventId=" + event["id"].get<std::string>())["deliveries"];
  ASSERT_EQ(d.size(), 8u) << d.dump(1);
  // Attempt n+1 is due the retry delay after attempt n: 0, 1m, 6m, 36m, 2h36m, 7h36m, 17h36m, 41h36m.
  const std::int64_t offsets[] = {0, 60, 360, 2160, 9360, 27360, 63360, 149760};
  for (int i = 0; i < 8; ++i) {
    SCOPED_TRACE("attempt " + std::to_string(i + 1));
    EXPECT_EQ(d[i]["attempt"], i + 1);
    EXPECT_EQ(d[i]["status"], "failed");
    EXPECT_EQ(d[i]["responseStatus"], 500);
    EXPECT_EQ(d[i]["scheduledAt"], FixtureTimeIso(offsets[i]));
    EXPECT_EQ(d[i]["sentAt"], FixtureTimeIso(offsets[i]));
    EXPECT_EQ(d[i]["consecutiveFailures"], i + 1);
    if (i < 7) EXPECT_EQ(d[i]["nextAttemptAt"], FixtureTimeIso(offsets[i + 1]));
    else EXPECT_TRUE(d[i]["nextAttemptAt"].is_null()) << "8 attempts in all";
  }
  // Every attempt carries the same event, byte for byte (consumers de-duplicate by id).
  for (const auto& hit : receiver.Hits()) EXPECT_EQ(hit.body, receiver.Hits()[0].body);
  server.Advance("7d");
  EXPECT_EQ(receiver.Count(), 8u) << "no ninth attempt";
  EXPECT_EQ(EndpointSummary(server, endpoint.id)["status"], "active") << "8 failures are fewer than 20";
}

TEST(WebhookDelivery, AnyTwoHundredSucceedsAndResetsTheCounter) {
  Receiver receiver;
  receiver.SetBehaviour([](int n, const httplib::Request&, httplib::Response&) { return n <= 2 ? 503 : 204; });
  TestServer server;
  auto endpoint = CreateEndpoint(server, receiver.Url());
  Trigger(server);
  server.Advance("0s");
  EXPECT_EQ(EndpointSummary(server, endpoint.id)["consecutiveFailures"], 1);
  server.Advance("1h");
  json d = Deliveries(server)["deliveries"];
  ASSERT_EQ(d.size(), 3u) << d.dump(1);
  EXPECT_EQ(d[0]["status"], "failed");
  EXPECT_EQ(d[1]["status"], "failed");
  EXPECT_EQ(d[1]["consecutiveFailures"], 2);
  EXPECT_EQ(d[2]["status"], "succeeded");
  EXPECT_EQ(d[2]["responseStatus"], 204);
  EXPECT_EQ(d[2]["scheduledAt"], FixtureTimeIso(360));
  EXPECT_EQ(d[2]["consecutiveFailures"], 0);
  EXPECT_EQ(EndpointSummary(server, endpoint.id)["consecutiveFailures"], 0);
  EXPECT_EQ(receiver.Count(), 3u);
}

// ---- auto-disable (Part 3: 20 consecutive failed deliveries) ------------------------------------------

TEST(WebhookDelivery, TwentiethConsecutiveFailureDisablesNotifiesAndDropsPendingRetries) {
  Receiver receiver;
  receiver.AlwaysAnswer(500);
  TestServer server;
  auto endpoint = CreateEndpoint(server, receiver.Url());
  for (int i = 0; i < 19; ++i) Trigger(server);
  server.Advance("0s");
  ASSERT_EQ(receiver.Count(), 19u) << Deliveries(server, "?status=failed").dump(1);
  json summary = EndpointSummary(server, endpoint.id);
  EXPECT_EQ(summary["consecutiveFailures"], 19);
  EXPECT_EQ(summary["status"], "active") << "19 failures: still active";
  EXPECT_EQ(server.Get("/_sim/notifications", "").body["notifications"].size(), 0u);

  Trigger(server);
  server.Advance("0s");
  ASSERT_EQ(receiver.Count(), 20u);
  summary = EndpointSummary(server, endpoint.id);
  EXPECT_EQ(summary["status"], "disabled") << "the 20th consecutive failure disables";
  EXPECT_EQ(summary["consecutiveFailures"], 20);
  auto list = server.Get("/v2/webhooks/endpoints");
  EXPECT_EQ(list.body["data"][0]["status"], "disabled");

  // Part 3: the owner is notified.
  auto notes = server.Get("/_sim/notifications?accountId=acc_alice", "").body["notifications"];
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0]["to"], "alice@northwind-outreach.com");
  EXPECT_EQ(notes[0]["channel"], "email");
  EXPECT_EQ(notes[0]["details"]["endpointId"], endpoint.id);

  // Its pending retries (19 from the first batch) are dropped, and say so; the attempt that
  // disabled it schedules none.
  json all = Deliveries(server)["deliveries"];
  EXPECT_EQ(Only(all, "failed").size(), 20u);
  EXPECT_EQ(Only(all, "dropped").size(), 19u);
  int without_next = 0;
  for (const auto& d : Only(all, "failed")) without_next += d["nextAttemptAt"].is_null();
  EXPECT_EQ(without_next, 1);
  EXPECT_EQ(Only(all, "scheduled").size(), 0u);
  for (const auto& d : Only(all, "dropped")) {
    EXPECT_EQ(d["attempt"], 2);
    EXPECT_EQ(d["scheduledAt"], FixtureTimeIso(60));
    EXPECT_TRUE(d["sentAt"].is_null());
    EXPECT_NE(d["error"].get<std::string>().find("disabled"), std::string::npos);
  }
  server.Advance("3d");
  EXPECT_EQ(receiver.Count(), 20u) << "a disabled endpoint gets nothing more";
  auto r = server.Post("/_sim/events", {{"type", "workspace.invitations"}, {"apiKey", kAliceKey}, {"objectId", "ws_northwind"}}, "");
  EXPECT_EQ(r.body["endpoints"], json::array());

  // Part 3: PATCH status active re-enables and resets the counter.
  receiver.AlwaysAnswer(200);
  auto patched = server.Patch("/v2/webhooks/endpoints/" + endpoint.id, {{"status", "active"}});
  ASSERT_EQ(patched.status, 200) << patched.raw;
  EXPECT_EQ(patched.body["data"]["status"], "active");
  EXPECT_EQ(EndpointSummary(server, endpoint.id)["consecutiveFailures"], 0);
  Trigger(server);
  server.Advance("0s");
  EXPECT_EQ(receiver.Count(), 21u);
  EXPECT_EQ(Only(Deliveries(server)["deliveries"], "succeeded").size(), 1u);
}

TEST(WebhookDelivery, PatchStatusActiveResetsTheCounterOfAnActiveEndpoint) {
  Receiver receiver;
  receiver.AlwaysAnswer(500);
  TestServer server;
  auto endpoint = CreateEndpoint(server, receiver.Url());
  for (int i = 0; i < 19; ++i) Trigger(server);
  server.Advance("0s");
  ASSERT_EQ(EndpointSummary(server, endpoint.id)["consecutiveFailures"], 19);

  ASSERT_EQ(server.Patch("/v2/webhooks/endpoints/" + endpoint.id, {{"status", "active"}}).status, 200);
  EXPECT_EQ(EndpointSummary(server, endpoint.id)["consecutiveFailures"], 0);
  for (int i = 0; i < 19; ++i) Trigger(server);
  server.Advance("0s");
  json summary = EndpointSummary(server, endpoint.id);
  EXPECT_EQ(summary["consecutiveFailures"], 19);
  EXPECT_EQ(summary["status"], "active") << "38 failures, but only 19 since the reset";
  Trigger(server);
  server.Advance("0s");
  EXPECT_EQ(EndpointSummary(server, endpoint.id)["status"], "disabled");
}

// ---- failures: redirect, timeout, refused connection (Part 6) -------------------------------------------

TEST(WebhookDelivery, RedirectIsNotFollowedAndCountsAsAFailure) {
  Receiver receiver;
  const std::string target = receiver.Url("/moved-here");
  receiver.SetBehaviour([&](int, const httplib::Request& req, httplib::Response& res) {
    if (req.path == "/moved-here") return 200;
    res.set_header("Location", target);
    return 302;
  });
  TestServer server;
  CreateEndpoint(server, receiver.Url("/hook"));
  Trigger(server);
  server.Advance("0s");
  EXPECT_EQ(receiver.HitsTo("/hook").size(), 1u);
  EXPECT_EQ(receiver.HitsTo("/moved-here").size(), 0u) << "redirects are not followed";
  json d = Deliveries(server)["deliveries"];
  ASSERT_EQ(d.size(), 2u);  // the failed attempt and its scheduled retry
  EXPECT_EQ(d[0]["status"], "failed");
  EXPECT_EQ(d[0]["responseStatus"], 302);
  EXPECT_EQ(d[1]["status"], "scheduled");
  EXPECT_EQ(d[1]["scheduledAt"], FixtureTimeIso(60));
}

TEST(WebhookDelivery, ReceiverThatHangsFailsAtTheTimeout) {
  Receiver receiver;
  receiver.SetBehaviour([&](int, const httplib::Request&, httplib::Response&) {
    receiver.WaitForRelease();
    return 200;
  });
  TestServer server(WithTimeout(300));  // the spec's 10 s, made small so the suite stays fast
  CreateEndpoint(server, receiver.Url());
  Trigger(server);
  server.Advance("0s");
  json d = Deliveries(server)["deliveries"];
  receiver.Release();
  ASSERT_GE(d.size(), 1u);
  EXPECT_EQ(d[0]["status"], "failed");
  EXPECT_TRUE(d[0]["responseStatus"].is_null());
  EXPECT_NE(d[0]["error"].get<std::string>().find("timeout"), std::string::npos) << d[0].dump();
  EXPECT_EQ(d[0]["nextAttemptAt"], FixtureTimeIso(60));
}

TEST(WebhookDelivery, RefusedConnectionIsAFailure) {
  RefusingPort closed;  // bound, never listening: a connection is refused at once
  const int closed_port = closed.port();
  TestServer server(WithTimeout(2000));
  CreateEndpoint(server, "http://127.0.0.1:" + std::to_string(closed_port) + "/hook");
  Trigger(server);
  server.Advance("0s");
  json d = Deliveries(server)["deliveries"][0];
  EXPECT_EQ(d["status"], "failed");
  EXPECT_TRUE(d["responseStatus"].is_null());
  EXPECT_NE(d["error"].get<std::string>().find("connect"), std::string::npos) << d.dump();
}

// ---- parallel, non-blocking ---------------------------------------------------------------------------

TEST(WebhookDelivery, EndpointsDueTogetherAreServedInParallel) {
  // Each request waits inside the receiver until all five are inside at once: only deliveries
  // sent in parallel can all succeed (sent one by one, the first would give up and answer 500).
  constexpr size_t kEndpoints = 5;
  Receiver receiver;
  receiver.SetBehaviour([&](int, const httplib::Request&, httplib::Response&) {
    return receiver.Rendezvous(kEndpoints, std::chrono::seconds(3)) ? 200 : 500;
  });
  TestServer server(WithTimeout(8000));
  for (size_t i = 0; i < kEndpoints; ++i) CreateEndpoint(server, receiver.Url("/p" + std::to_string(i)));
  Trigger(server);
  server.Advance("0s");
  json d = Deliveries(server)["deliveries"];
  EXPECT_EQ(Only(d, "succeeded").size(), kEndpoints) << d.dump(1);
}

TEST(WebhookDelivery, RealClockDeliveryNeverHoldsUpAnApiRequest) {
  Receiver receiver;
  receiver.SetBehaviour([&](int, const httplib::Request&, httplib::Response&) {
    receiver.WaitForRelease();
    return 200;
  });
  TestServer server(WithTimeout(20000));
  ASSERT_EQ(server.Put("/_sim/clock", {{"mode", "real"}}).status, 200);
  CreateEndpoint(server, receiver.Url());
  Trigger(server);  // answers while the delivery it caused is still to be made
  ASSERT_TRUE(receiver.WaitForHits(1)) << "the scheduler's thread delivers by itself under a real clock";
  // The receiver is still holding the delivery: API requests are answered meanwhile.
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 200);
  EXPECT_EQ(server.Get("/v2/webhooks/endpoints").status, 200);
  EXPECT_EQ(Trigger(server)["type"], "workspace.invitations");
  receiver.Release();
  ASSERT_TRUE(receiver.WaitForHits(2));
  // Wait (bounded) for the outcome to be recorded by the delivery worker.
  json d;
  for (int i = 0; i < 500; ++i) {
    d = Deliveries(server, "?status=succeeded")["deliveries"];
    if (d.size() == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(d.size(), 2u);
}

// ---- at-least-once across a state dump/load --------------------------------------------------------

TEST(WebhookDelivery, PendingRetrySurvivesStateDumpAndLoadIntoAnotherEmsim) {
  Receiver receiver;
  receiver.SetBehaviour([](int n, const httplib::Request&, httplib::Response&) { return n == 1 ? 500 : 200; });
  json dump;
  CreatedEndpoint endpoint;
  std::string event_id;
  {
    TestServer first;
    endpoint = CreateEndpoint(first, receiver.Url());
    event_id = Trigger(first)["id"];
    first.Advance("0s");
    ASSERT_EQ(receiver.Count(), 1u);
    dump = first.Get("/_sim/state?secrets=true", "").body;
  }
  TestServer second;
  auto loaded = second.Put("/_sim/state", dump);
  ASSERT_EQ(loaded.status, 200) << loaded.raw;
  json pending = Deliveries(second, "?status=scheduled")["deliveries"];
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0]["attempt"], 2);
  EXPECT_EQ(pending[0]["scheduledAt"], FixtureTimeIso(60));

  second.Advance("1m");
  ASSERT_EQ(receiver.Count(), 2u);
  const auto hit = receiver.Hits()[1];
  EXPECT_EQ(json::parse(hit.body)["id"], event_id) << "the same event, delivered at least once";
  const std::string sig = hit.Header("X-Service-Signature");
  const std::string t = sig.substr(2, sig.find(',') - 2);
  EXPECT_EQ(sig.substr(sig.find("v1=") + 3), TestHmacSha256Hex(endpoint.secret, t + "." + hit.body))
      << "signed with the secret that came with the state";
  json d = Deliveries(second)["deliveries"];
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0]["status"], "failed");
  EXPECT_EQ(d[1]["status"], "succeeded");
  EXPECT_EQ(d[1]["attempt"], 2);
}

TEST(WebhookDelivery, ResetForgetsEndpointsDeliveriesAndPendingRetries) {
  Receiver receiver;
  receiver.AlwaysAnswer(500);
  TestServer server;
  CreateEndpoint(server, receiver.Url());
  Trigger(server);
  server.Advance("0s");
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  json all = Deliveries(server);
  EXPECT_EQ(all["deliveries"].size(), 0u);
  EXPECT_EQ(all["endpoints"].size(), 0u);
  EXPECT_EQ(server.Get("/_sim/events", "").body["events"].size(), 0u);
  server.Advance("1d");
  EXPECT_EQ(receiver.Count(), 1u);
}

// ---- HTTPS receivers ----------------------------------------------------------------------------------

// A self-signed certificate for 127.0.0.1, written as PEM files in a fresh directory.
struct SelfSigned {
  std::filesystem::path dir, cert, key;
  SelfSigned() {
    dir = std::filesystem::temp_directory_path() /
          ("emsim-tls-" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(dir);
    cert = dir / "cert.pem";
    key = dir / "key.pem";
    EVP_PKEY* pkey = EVP_EC_gen("P-256");
    X509* x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600L * 24 * 365 * 10);
    X509_set_pubkey(x, pkey);
    X509_NAME* name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(x, name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
    for (auto [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"}, std::pair{NID_basic_constraints, "CA:TRUE"}}) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
      X509_add_ext(x, ext, -1);
      X509_EXTENSION_free(ext);
    }
    X509_sign(x, pkey, EVP_sha256());
    FILE* f = std::fopen(cert.c_str(), "w");
    PEM_write_X509(f, x);
    std::fclose(f);
    f = std::fopen(key.c_str(), "w");
    PEM_write_PrivateKey(f, pkey, nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(f);
    X509_free(x);
    EVP_PKEY_free(pkey);
  }
  ~SelfSigned() { std::filesystem::remove_all(dir); }
};

json DeliverOnceTo(const std::string& url, app::Options options) {
  TestServer server(options);
  CreateEndpoint(server, url);
  Trigger(server);
  server.Advance("0s");
  return Deliveries(server)["deliveries"][0];
}

TEST(WebhookDelivery, HttpsReceiverIsVerifiedByDefaultAndTrustedWithACaFileOrInsecure) {
  SelfSigned tls;
  httplib::SSLServer https(tls.cert.c_str(), tls.key.c_str());
  ASSERT_TRUE(https.is_valid());
  Receiver receiver(&https);
  const std::string url = receiver.Url("/secure", "https");

  json d = DeliverOnceTo(url, {});
  EXPECT_EQ(d["status"], "failed") << "verification is on by default: a self-signed certificate is refused";
  EXPECT_NE(d["error"].get<std::string>().find("TLS"), std::string::npos) << d.dump();

  app::Options with_ca;
  with_ca.webhookCaFile = tls.cert.string();
  d = DeliverOnceTo(url, with_ca);
  EXPECT_EQ(d["status"], "succeeded") << d.dump();

  app::Options insecure;
  insecure.webhookInsecure = true;
  d = DeliverOnceTo(url, insecure);
  EXPECT_EQ(d["status"], "succeeded") << d.dump();

  ASSERT_EQ(receiver.HitsTo("/secure").size(), 2u);
  EXPECT_EQ(receiver.Hits()[0].Header("User-Agent"), "Service-Webhooks/1.0");
}

}  // namespace
}  // namespace emsim::testing
