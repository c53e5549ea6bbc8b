// /_sim/sinks: emsim's built-in receiver. Deliveries reach it over real HTTP (emsim calling
// itself), so these tests also prove that advance -> delivery -> sink request does not deadlock.
#include <set>

#include "core/time.hpp"
#include "tests/support/webhook_receiver.hpp"
#include "tests/support/fixture_clock.hpp"

namespace emsim::testing {
namespace {


json CreateSink(TestServer& server, const json& body = json::object()) {
  auto r = server.Post("/_sim/sinks", body, "");
  EXPECT_EQ(r.status, 201) << r.raw;
  return r.body;
}

json GetSink(TestServer& server, const std::string& id) {
  auto r = server.Get("/_sim/sinks/" + id, "");
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body;
}

TEST(Sinks, RecordsTheSignedDeliveryAndVerifiesItWithTheEndpointSecret) {
  TestServer server;
  json sink = CreateSink(server, {{"name", "orders"}});
  EXPECT_EQ(sink["url"], server.baseUrl() + "/_sim/sinks/" + sink["id"].get<std::string>() + "/receive");
  auto endpoint = CreateEndpoint(server, sink["url"]);
  json event = Trigger(server);
  server.Advance("0s");

  json got = GetSink(server, sink["id"]);
  EXPECT_EQ(got["received"], 1);
  ASSERT_EQ(got["requests"].size(), 1u);
  json req = got["requests"][0];
  EXPECT_EQ(req["method"], "POST");
  EXPECT_EQ(req["signatureValid"], true) << req.dump();
  EXPECT_EQ(req["endpointId"], endpoint.id);
  EXPECT_EQ(req["headers"]["user-agent"], "Service-Webhooks/1.0");
  EXPECT_EQ(req["headers"]["content-type"], "application/json");
  for (const char* pseudo : {"remote_addr", "remote_port", "local_addr", "local_port"})
    EXPECT_FALSE(req["headers"].contains(pseudo)) << pseudo << ": only headers that were sent";
  EXPECT_EQ(json::parse(req["body"].get<std::string>())["id"], event["id"]);
  EXPECT_EQ(req["answeredStatus"], 200);
  EXPECT_EQ(req["receivedAt"], FixtureTimeIso(0));
  // The raw body is recorded byte for byte: the test's own HMAC over it matches the header.
  const std::string sig = req["headers"]["x-service-signature"];
  const std::string t = sig.substr(2, sig.find(',') - 2);
  EXPECT_EQ(sig.substr(sig.find("v1=") + 3), TestHmacSha256Hex(endpoint.secret, t + "." + req["body"].get<std::string>()));
  EXPECT_EQ(Deliveries(server)["deliveries"][0]["status"], "succeeded");
}

TEST(Sinks, FailFirstNTimesThenSucceedRunsTheRetrySchedule) {
  TestServer server;
  json sink = CreateSink(server, {{"failFirst", 2}, {"failStatus", 503}});
  CreateEndpoint(server, sink["url"]);
  Trigger(server);
  server.Advance("0s");
  server.Advance("10m");
  json d = Deliveries(server)["deliveries"];
  ASSERT_EQ(d.size(), 3u) << d.dump(1);
  EXPECT_EQ(d[0]["responseStatus"], 503);
  EXPECT_EQ(d[1]["responseStatus"], 503);
  EXPECT_EQ(d[1]["scheduledAt"], FixtureTimeIso(60));
  EXPECT_EQ(d[2]["status"], "succeeded");
  EXPECT_EQ(d[2]["scheduledAt"], FixtureTimeIso(360));
  EXPECT_EQ(GetSink(server, sink["id"])["received"], 3);
}

TEST(Sinks, RedirectIsRecordedAndNotFollowed) {
  TestServer server;
  json target = CreateSink(server);
  json sink = CreateSink(server, {{"redirectTo", target["url"]}, {"redirectStatus", 307}});
  CreateEndpoint(server, sink["url"]);
  CreateEndpoint(server, target["url"], {"domain.updated"});  // so the target could verify, if reached
  Trigger(server);
  server.Advance("0s");
  json d = Deliveries(server, "?status=failed")["deliveries"];
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0]["responseStatus"], 307);
  EXPECT_EQ(GetSink(server, sink["id"])["requests"][0]["answer"], "redirect 307 -> " + target["url"].get<std::string>());
  EXPECT_EQ(GetSink(server, target["id"])["received"], 0) << "Part 6: redirects are not followed";
}

TEST(Sinks, ClosingTheConnectionWithoutAnsweringIsANetworkFailure) {
  TestServer server;
  json sink = CreateSink(server, {{"closeConnection", true}});
  CreateEndpoint(server, sink["url"]);
  Trigger(server);
  server.Advance("0s");
  json d = Deliveries(server)["deliveries"][0];
  EXPECT_EQ(d["status"], "failed");
  EXPECT_TRUE(d["responseStatus"].is_null()) << d.dump();
  EXPECT_NE(d["error"].get<std::string>().find("connection closed"), std::string::npos) << d.dump();
  json req = GetSink(server, sink["id"])["requests"][0];
  EXPECT_EQ(req["answer"], "closed without answering");
  EXPECT_TRUE(req["answeredStatus"].is_null());
  EXPECT_EQ(req["signatureValid"], true);
}

TEST(Sinks, DelayPastTheWebhookTimeoutIsATimeout) {
  app::Options o;
  o.webhookTimeoutMs = 200;
  TestServer server(o);
  json sink = CreateSink(server, {{"delayMs", 1500}});
  CreateEndpoint(server, sink["url"]);
  Trigger(server);
  server.Advance("0s");
  json d = Deliveries(server)["deliveries"][0];
  EXPECT_EQ(d["status"], "failed");
  EXPECT_NE(d["error"].get<std::string>().find("timeout"), std::string::npos) << d.dump();
}

TEST(Sinks, PatchChangesTheBehaviourAndBadValuesAreRefused) {
  TestServer server;
  json sink = CreateSink(server, {{"status", 500}});
  const std::string id = sink["id"];
  CreateEndpoint(server, sink["url"]);
  Trigger(server);
  server.Advance("0s");
  EXPECT_EQ(Deliveries(server, "?status=failed")["deliveries"].size(), 1u);

  auto bad = server.Patch("/_sim/sinks/" + id, {{"status", 700}}, "");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["errors"][0]["param"], "status");
  EXPECT_EQ(server.Patch("/_sim/sinks/" + id, {{"redirectStatus", 200}}, "").status, 400);
  EXPECT_EQ(GetSink(server, id)["behaviour"]["status"], 500) << "a refused PATCH changes nothing";

  auto ok = server.Patch("/_sim/sinks/" + id, {{"status", 202}, {"name", "fixed"}}, "");
  ASSERT_EQ(ok.status, 200) << ok.raw;
  EXPECT_EQ(ok.body["behaviour"]["status"], 202);
  EXPECT_EQ(ok.body["name"], "fixed");
  server.Advance("1m");
  EXPECT_EQ(Deliveries(server, "?status=succeeded")["deliveries"][0]["responseStatus"], 202);

  EXPECT_EQ(server.Get("/_sim/sinks/snk_nope", "").status, 404);
  EXPECT_EQ(server.Patch("/_sim/sinks/snk_nope", {{"status", 200}}, "").status, 404);
  EXPECT_EQ(server.Post("/_sim/sinks/snk_nope/receive", json::object(), "").status, 404);
  auto list = server.Get("/_sim/sinks", "");
  ASSERT_EQ(list.body["sinks"].size(), 1u);
  EXPECT_FALSE(list.body["sinks"][0].contains("requests"));
}

TEST(Sinks, ReportsMissingOrWrongSignatures) {
  TestServer server;
  json lonely = CreateSink(server);
  json sink = CreateSink(server);
  CreateEndpoint(server, sink["url"]);
  const std::string path = "/_sim/sinks/" + sink["id"].get<std::string>() + "/receive";

  server.Post(path, {{"id", "evt_x"}}, "");
  server.Post(path, {{"id", "evt_x"}}, "", {{"X-Service-Signature", "t=1767258000,v1=" + std::string(64, '0')}});
  server.Post(path, {{"id", "evt_x"}}, "", {{"X-Service-Signature", "garbage"}});
  server.Post("/_sim/sinks/" + lonely["id"].get<std::string>() + "/receive", {{"id", "evt_x"}}, "");

  json reqs = GetSink(server, sink["id"])["requests"];
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0]["signatureValid"], false);
  EXPECT_EQ(reqs[0]["signatureCheck"], "no X-Service-Signature header");
  EXPECT_EQ(reqs[1]["signatureValid"], false);
  EXPECT_NE(reqs[1]["signatureCheck"].get<std::string>().find("does not match"), std::string::npos);
  EXPECT_EQ(reqs[2]["signatureValid"], false);
  EXPECT_NE(reqs[2]["signatureCheck"].get<std::string>().find("malformed"), std::string::npos);
  json other = GetSink(server, lonely["id"])["requests"][0];
  EXPECT_TRUE(other["signatureValid"].is_null()) << "no endpoint points at this sink";
}

// A sink with a receiver acts on what it accepts (model/sinks.hpp): the idempotent one refuses a
// request whose signature does not verify and applies an event id once; the naive one applies
// whatever comes, repeats included.
TEST(Sinks, AnIdempotentReceiverRefusesUnsignedRequestsAndAppliesAnEventOnce) {
  TestServer server;
  json careful = CreateSink(server, {{"receiver", "idempotent"}});
  json naive = CreateSink(server, {{"receiver", "naive"}});
  CreateEndpoint(server, careful["url"]);
  CreateEndpoint(server, naive["url"]);
  const json event = Trigger(server);
  server.Advance("0s");
  // A replay by hand of the same body without a signature: refused by one, applied by the other.
  const json body = json::parse(GetSink(server, careful["id"])["requests"][0]["body"].get<std::string>());
  const std::string careful_path = "/_sim/sinks/" + careful["id"].get<std::string>() + "/receive";
  const std::string naive_path = "/_sim/sinks/" + naive["id"].get<std::string>() + "/receive";
  auto refused = server.Post(careful_path, body, "");
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.raw.find("signature does not verify"), std::string::npos) << refused.raw;
  EXPECT_EQ(server.Post(naive_path, body, "").status, 200);

  const json c = GetSink(server, careful["id"])["processing"];
  EXPECT_EQ(c["receiver"], "idempotent");
  EXPECT_EQ(c["applied"], json::array({event["id"]}));
  EXPECT_EQ(c["badSignatureRejected"], 1);
  EXPECT_EQ(c["objects"]["ws_northwind"]["eventId"], event["id"]);
  const json n = GetSink(server, naive["id"])["processing"];
  EXPECT_EQ(n["applied"], json::array({event["id"], event["id"]}));
  EXPECT_FALSE(CreateSink(server).contains("processing")) << "a plain sink only records";

  for (const json& bad : {json{{"receiver", "smart"}}, json{{"toleranceSeconds", 0}}, json{{"toleranceSeconds", "5"}}}) {
    auto r = server.Patch("/_sim/sinks/" + careful["id"].get<std::string>(), bad, "");
    EXPECT_EQ(r.status, 400) << bad.dump();
  }
  EXPECT_EQ(GetSink(server, careful["id"])["behaviour"]["receiver"], "idempotent");
}

TEST(Sinks, AreStateResetClearsThemDumpAndLoadBringThemBack) {
  TestServer server;
  json sink = CreateSink(server, {{"failFirst", 1}});
  CreateEndpoint(server, sink["url"]);
  Trigger(server);
  server.Advance("0s");
  json dump = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(server.Get("/_sim/sinks", "").body["sinks"].size(), 0u);
  ASSERT_EQ(server.Put("/_sim/state", dump).status, 200);
  json got = GetSink(server, sink["id"]);
  EXPECT_EQ(got["received"], 1);
  EXPECT_EQ(got["behaviour"]["failFirst"], 1);
  server.Advance("1m");  // the pending retry came back too, and now succeeds
  EXPECT_EQ(GetSink(server, sink["id"])["received"], 2);
  EXPECT_EQ(Deliveries(server, "?status=succeeded")["deliveries"].size(), 1u);
}

// A sink finds the endpoints that deliver to it through State::webhookEndpointsByPath (an index: scanning every endpoint per received request cost more than the handler):
// the index follows a PATCHed url (query strings ignored, creation order kept) and a state load.
TEST(Sinks, FindTheirEndpointsAfterAUrlChangeAndAStateLoad) {
  TestServer server;
  json a = CreateSink(server);
  json b = CreateSink(server);
  auto first = CreateEndpoint(server, a["url"]);
  auto second = CreateEndpoint(server, b["url"]);
  ASSERT_EQ(server.Patch("/v2/webhooks/endpoints/" + first.id, {{"url", b["url"].get<std::string>() + "?from=a"}}).status,
            200);
  Trigger(server);
  server.Advance("0s");

  EXPECT_EQ(GetSink(server, a["id"])["received"], 0);
  json reqs = GetSink(server, b["id"])["requests"];
  ASSERT_EQ(reqs.size(), 2u) << reqs.dump(1);
  std::set<std::string> verified_by;
  for (const auto& r : reqs) {
    EXPECT_EQ(r["signatureValid"], true) << r.dump();
    verified_by.insert(r["endpointId"].get<std::string>());
  }
  EXPECT_EQ(verified_by, (std::set<std::string>{first.id, second.id})) << "each with its own endpoint's secret";
  server.Post("/_sim/sinks/" + a["id"].get<std::string>() + "/receive", {{"id", "evt_x"}}, "");
  EXPECT_TRUE(GetSink(server, a["id"])["requests"][0]["signatureValid"].is_null()) << "no endpoint points at A any more";

  json dump = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  ASSERT_EQ(server.Put("/_sim/state", dump).status, 200);
  Trigger(server);
  server.Advance("0s");
  reqs = GetSink(server, b["id"])["requests"];
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[2]["signatureValid"], true) << reqs[2].dump();
  EXPECT_EQ(reqs[3]["signatureValid"], true) << reqs[3].dump();
}

}  // namespace
}  // namespace emsim::testing
