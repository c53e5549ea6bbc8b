// Part 4.10 webhook management over HTTP: webhooks.events, webhooks.create, webhooks.list,
// webhooks.update.
#include <regex>
#include <set>

#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

const char* kUrl = "https://hooks.example.com/emsim";

TEST(WebhooksApi, EventsListsEveryPart6TypeWithLabelDescriptionAndCategory) {
  TestServer server;
  // x-workspace-key is ignored by webhook management (Part 5), even when it names nothing.
  auto r = server.Get("/v2/webhooks/events", kAliceKey, {{"x-workspace-key", "ws_does_not_exist"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/webhooks.events", r.body);
  std::set<std::string> values;
  for (const auto& t : r.body["data"]) values.insert(t["value"]);
  EXPECT_EQ(values, (std::set<std::string>{"domain.updated", "domain.connection_status_changed", "mailbox.updated",
                                           "subscription.status_changed", "subscription.billing_changed",
                                           "export.started", "export.completed", "export.failed", "export.reconnected",
                                           "placement_test.status_changed", "workspace.status_changed",
                                           "workspace.invitations"}));
  for (const auto& t : r.body["data"]) {
    if (t["value"] == "subscription.billing_changed") {
      EXPECT_EQ(t["category"], "Subscriptions");
    }
  }
  EXPECT_EQ(server.Get("/v2/webhooks/events", "").status, 401);
}

TEST(WebhooksApi, CreateShowsTheSecretOnceAndListNeverDoes) {
  TestServer server;
  auto r = server.Post("/v2/webhooks/endpoints", {{"url", kUrl}, {"enabled_events", {"domain.updated"}}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/webhooks.create", r.body);
  const json& e = r.body["data"];
  EXPECT_TRUE(std::regex_match(e["secret"].get<std::string>(), std::regex("whsec_[0-9a-f]{40}")));
  EXPECT_EQ(e["url"], kUrl);
  EXPECT_EQ(e["enabled_events"], json::array({"domain.updated"}));
  EXPECT_EQ(e["status"], "active");

  auto second = server.Post("/v2/webhooks/endpoints", {{"url", kUrl}, {"enabled_events", {"domain.updated"}}});
  EXPECT_NE(second.body["data"]["secret"], e["secret"]) << "every endpoint has its own secret";

  auto list = server.Get("/v2/webhooks/endpoints");
  ASSERT_EQ(list.status, 200);
  EXPECT_CONFORMS(server, "responses/webhooks.list", list.body);
  ASSERT_EQ(list.body["data"].size(), 2u);
  EXPECT_EQ(list.body["data"][0]["id"], e["id"]);
  EXPECT_EQ(list.raw.find("whsec_"), std::string::npos) << "never the secret";
  auto patched = server.Patch("/v2/webhooks/endpoints/" + e["id"].get<std::string>(), {{"url", kUrl}});
  EXPECT_EQ(patched.raw.find("whsec_"), std::string::npos);
}

TEST(WebhooksApi, EndpointsBelongToTheApiKeysAccountOnly) {
  TestServer server;
  auto alice = CreateEndpoint(server, kUrl, {"domain.updated"});
  // x-workspace-key selects nothing here: the same list from any workspace.
  auto from_labs = server.Get("/v2/webhooks/endpoints", kAliceKey, {{"x-workspace-key", "ws_labs"}});
  EXPECT_EQ(from_labs.body["data"].size(), 1u);
  EXPECT_EQ(server.Get("/v2/webhooks/endpoints", kBobKey).body["data"].size(), 0u);

  auto foreign = server.Patch("/v2/webhooks/endpoints/" + alice.id, {{"status", "disabled"}}, kBobKey);
  EXPECT_EQ(foreign.status, 404);
  EXPECT_CONFORMS(server, "resources/error_with_id", foreign.body);
  auto unknown = server.Patch("/v2/webhooks/endpoints/nope", {{"status", "disabled"}});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body["message"], foreign.body["message"]) << "another account's id looks unknown";
  EXPECT_EQ(server.Get("/v2/webhooks/endpoints").body["data"][0]["status"], "active");
  EXPECT_EQ(server.Post("/v2/webhooks/endpoints", {{"url", kUrl}, {"enabled_events", {"domain.updated"}}}, "").status,
            401);
}

TEST(WebhooksApi, UrlMustBeHttpsOrHttpOnALoopbackHost) {
  TestServer server;
  const std::vector<std::pair<std::string, int>> cases = {
      {"https://hooks.example.com/x", 200},
      {"https://hooks.example.com:8443/x?token=1", 200},
      {"HTTPS://hooks.example.com", 200},
      {"http://localhost:9000/hook", 200},
      {"http://127.0.0.1:9000/hook", 200},
      {"http://127.8.9.10/hook", 200},
      {"http://[::1]:9000/hook", 200},
      {"http://hooks.example.com/x", 400},
      {"http://128.0.0.1/x", 400},
      {"http://localhost.evil.com/x", 400},
      {"ftp://hooks.example.com/x", 400},
      {"hooks.example.com/x", 400},
      {"https://", 400},
      {"https://user:pw@hooks.example.com/x", 400},
      {"https://hooks.example.com:99999/x", 400},
      {"https://hooks example.com/x", 400},
      {"https://hooks.example.com/x#frag", 400},
  };
  for (const auto& [url, status] : cases) {
    auto r = server.Post("/v2/webhooks/endpoints", {{"url", url}, {"enabled_events", {"domain.updated"}}});
    EXPECT_EQ(r.status, status) << url << " -> " << r.raw;
    if (status == 400) {
      EXPECT_CONFORMS(server, "resources/error_validation", r.body);
      EXPECT_EQ(r.body["errors"][0]["param"], "url") << url;
    }
  }
}

TEST(WebhooksApi, StrictFlagRequiresHttpsEvenOnLoopback) {
  app::Options o;
  o.strictWebhookUrls = true;
  TestServer server(o);
  auto r = server.Post("/v2/webhooks/endpoints", {{"url", "http://127.0.0.1:9000/h"}, {"enabled_events", {"domain.updated"}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["errors"][0]["param"], "url");
  EXPECT_EQ(server.Post("/v2/webhooks/endpoints", {{"url", kUrl}, {"enabled_events", {"domain.updated"}}}).status, 200);
}

TEST(WebhooksApi, UnknownOrMissingEventTypesAre400NamingEnabledEventsAndChangeNothing) {
  TestServer server;
  auto r = server.Post("/v2/webhooks/endpoints",
                       {{"url", kUrl}, {"enabled_events", {"domain.updated", "domain.deleted", "nope"}}});
  ASSERT_EQ(r.status, 400) << r.raw;
  EXPECT_CONFORMS(server, "resources/error_validation", r.body);
  EXPECT_EQ(r.body["errors"][0]["param"], "enabled_events");
  const std::string msg = r.body["errors"][0]["msg"];
  EXPECT_NE(msg.find("'domain.deleted'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'nope'"), std::string::npos) << msg;

  auto empty = server.Post("/v2/webhooks/endpoints", {{"url", kUrl}, {"enabled_events", json::array()}});
  EXPECT_EQ(empty.status, 400);
  EXPECT_EQ(empty.body["errors"][0]["param"], "enabled_events");
  auto wrong_type = server.Post("/v2/webhooks/endpoints", {{"url", kUrl}, {"enabled_events", "domain.updated"}});
  EXPECT_EQ(wrong_type.status, 400);
  EXPECT_EQ(wrong_type.body["errors"][0]["param"], "enabled_events");
  auto no_url = server.Post("/v2/webhooks/endpoints", {{"enabled_events", {"domain.updated"}}});
  EXPECT_EQ(no_url.status, 400);
  EXPECT_EQ(server.Get("/v2/webhooks/endpoints").body["data"].size(), 0u) << "nothing was created";

  // Duplicates are folded, order kept.
  auto dup = server.Post("/v2/webhooks/endpoints",
                         {{"url", kUrl}, {"enabled_events", {"mailbox.updated", "domain.updated", "mailbox.updated"}}});
  EXPECT_EQ(dup.body["data"]["enabled_events"], json::array({"mailbox.updated", "domain.updated"}));
}

TEST(WebhooksApi, PatchIsPartialAndValidatesEverythingBeforeChangingAnything) {
  TestServer server;
  auto e = CreateEndpoint(server, kUrl, {"domain.updated", "mailbox.updated"});
  const std::string path = "/v2/webhooks/endpoints/" + e.id;

  auto r = server.Patch(path, {{"url", "https://other.example.com/h"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/webhooks.update", r.body);
  EXPECT_EQ(r.body["data"]["url"], "https://other.example.com/h");
  EXPECT_EQ(r.body["data"]["enabled_events"], json::array({"domain.updated", "mailbox.updated"}));

  r = server.Patch(path, {{"enabled_events", {"export.failed"}}});
  EXPECT_EQ(r.body["data"]["url"], "https://other.example.com/h");
  EXPECT_EQ(r.body["data"]["enabled_events"], json::array({"export.failed"}));

  // One bad field: 400 and none of the others applied.
  r = server.Patch(path, {{"url", "https://third.example.com"}, {"enabled_events", {"bogus.event"}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["errors"][0]["param"], "enabled_events");
  r = server.Patch(path, {{"url", "http://public.example.com"}, {"status", "disabled"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["errors"][0]["param"], "url");
  r = server.Patch(path, {{"status", "paused"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["errors"][0]["param"], "status");
  json now = server.Get("/v2/webhooks/endpoints").body["data"][0];
  EXPECT_EQ(now["url"], "https://other.example.com/h");
  EXPECT_EQ(now["status"], "active");

  r = server.Patch(path, {{"status", "disabled"}});
  EXPECT_EQ(r.body["data"]["status"], "disabled");
  r = server.Patch(path, json::object());
  EXPECT_EQ(r.status, 200) << "an empty patch changes nothing";
  EXPECT_EQ(r.body["data"]["status"], "disabled");
  r = server.Patch(path, {{"status", "active"}});
  EXPECT_EQ(r.body["data"]["status"], "active");
}

TEST(WebhooksApi, EndpointsAndSecretsRoundTripThroughAStateDump) {
  TestServer server;
  auto e = CreateEndpoint(server, kUrl, {"domain.updated"});
  json dump = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(dump["webhookEndpoints"].size(), 1u);
  EXPECT_EQ(dump["webhookEndpoints"][0]["secret"], e.secret);
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(server.Get("/v2/webhooks/endpoints").body["data"].size(), 0u);
  ASSERT_EQ(server.Put("/_sim/state", dump).status, 200);
  EXPECT_EQ(server.Get("/v2/webhooks/endpoints").body["data"][0]["id"], e.id);

  dump["webhookEndpoints"][0]["accountId"] = "acc_nobody";
  auto bad = server.Put("/_sim/state", dump);
  EXPECT_EQ(bad.status, 400) << "a dangling account reference is refused";
}

// ---- POST/GET /_sim/events ------------------------------------------------------------------------

TEST(SimEvents, TriggerBuildsThePayloadFromTheObjectAndDataOverridesIt) {
  TestServer server;
  auto r = server.Post("/_sim/events",
                       {{"type", "domain.updated"},
                        {"apiKey", kAliceKey},
                        {"objectId", "dom_nw_01"},
                        {"data", {{"previousState", {{"status", "CONNECTED"}}}}}},
                       "");
  ASSERT_EQ(r.status, 201) << r.raw;
  json ev = r.body["event"];
  EXPECT_CONFORMS(server, "resources/event_envelope", json({{"id", ev["id"]}, {"type", ev["type"]},
                                                            {"created", ev["created"]}, {"api_version", ev["api_version"]},
                                                            {"data", ev["data"]}}));
  EXPECT_EQ(ev["accountId"], "acc_alice");
  EXPECT_EQ(ev["data"]["domainDetails"]["id"], "dom_nw_01");
  EXPECT_EQ(ev["data"]["domainDetails"]["domain"], "northwindreach.com");
  EXPECT_CONFORMS(server, "resources/domain_event_record", ev["data"]["domainDetails"]);
  EXPECT_EQ(ev["data"]["previousState"], json({{"status", "CONNECTED"}}));
  EXPECT_EQ(r.body["schemaIssues"], json::array()) << "fits the domains work's event schema";

  auto mailbox = server.Post("/_sim/events", {{"type", "mailbox.updated"}, {"apiKey", kAliceKey}, {"objectId", "mbx_nw_01_01"}}, "");
  ASSERT_EQ(mailbox.status, 201) << mailbox.raw;
  EXPECT_EQ(mailbox.body["event"]["data"]["mailboxDetails"]["username"], "partnerships");
  EXPECT_EQ(mailbox.body["schemaIssues"], json::array());
  auto broken = server.Post("/_sim/events",
                            {{"type", "mailbox.updated"}, {"apiKey", kAliceKey}, {"data", {{"mailboxDetails", "x"}}}}, "");
  ASSERT_EQ(broken.status, 201) << "the trigger emits what it is told to";
  EXPECT_EQ(broken.body["schemaIssues"].size(), 1u) << "and says the payload no longer fits events/mailbox.updated";
  server.AllowInvalidEvent(broken.body["event"]["id"]);  // malformed on purpose
  auto sub = server.Post("/_sim/events",
                         {{"type", "subscription.status_changed"}, {"apiKey", kAliceKey}, {"objectId", "sub_alice_ent"}}, "");
  ASSERT_EQ(sub.status, 201) << sub.raw;
  EXPECT_EQ(sub.body["event"]["data"]["subscriptionDetails"]["id"], "srec_alice_ent");
  // Part 6: previousState holds only what changed; a trigger changes nothing, so it is {} and fits.
  EXPECT_EQ(sub.body["event"]["data"]["previousState"], json::object());
  EXPECT_EQ(sub.body["schemaIssues"], json::array());
  sub = server.Post("/_sim/events",
                    {{"type", "subscription.status_changed"},
                     {"apiKey", kAliceKey},
                     {"objectId", "sub_alice_ent"},
                     {"data", {{"previousState", {{"subscriptionStatus", "CANCELLED"}}}}}},
                    "");
  EXPECT_EQ(sub.body["schemaIssues"], json::array()) << "with the old value given, it fits";
  auto free_form = server.Post("/_sim/events", {{"type", "export.completed"}, {"apiKey", kBobKey}, {"data", {{"x", 1}}}}, "");
  ASSERT_EQ(free_form.status, 201);
  EXPECT_EQ(free_form.body["event"]["data"], json({{"x", 1}}));
  EXPECT_EQ(free_form.body["schemaIssues"].size(), 3u) << free_form.raw;
  server.AllowInvalidEvent(free_form.body["event"]["id"]);  // malformed on purpose

  auto list = server.Get("/_sim/events?accountId=acc_alice", "");
  EXPECT_EQ(list.body["events"].size(), 5u);
  EXPECT_EQ(server.Get("/_sim/events?type=export.completed", "").body["events"][0]["accountId"], "acc_bob");
  EXPECT_EQ(server.Get("/_sim/events?limit=1", "").body["events"][0]["type"], "export.completed");
}

TEST(SimEvents, TriggerRefusesUnknownTypesKeysAndObjects) {
  TestServer server;
  auto param_of = [&](const json& body) {
    auto r = server.Post("/_sim/events", body, "");
    EXPECT_EQ(r.status, 400) << r.raw;
    return r.body["errors"][0]["param"];
  };
  EXPECT_EQ(param_of({{"type", "domain.deleted"}, {"apiKey", kAliceKey}}), "type");
  EXPECT_EQ(param_of({{"type", "domain.updated"}, {"apiKey", "nope"}}), "apiKey");
  EXPECT_EQ(param_of({{"type", "domain.updated"}, {"apiKey", kBobKey}, {"objectId", "dom_nw_01"}}), "objectId")
      << "another account's domain";
  EXPECT_EQ(param_of({{"type", "export.failed"}, {"apiKey", kAliceKey}, {"objectId", "x"}}), "objectId");
  EXPECT_EQ(param_of({{"type", "domain.updated"}, {"apiKey", kAliceKey}, {"data", "text"}}), "data");
  EXPECT_EQ(param_of({{"apiKey", kAliceKey}}), "type");
  EXPECT_EQ(server.Get("/_sim/events", "").body["events"].size(), 0u);
}

}  // namespace
}  // namespace emsim::testing
