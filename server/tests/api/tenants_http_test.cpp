// HTTP tests for POST /_sim/tenants: a fresh account cloned from a fixture account, usable at
// once with its own API key, isolated from every other account, gone after a reset.
#include <set>
#include <thread>

#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

json NewTenant(TestServer& server, const json& body = json::object()) {
  auto r = server.Post("/_sim/tenants", body, "");
  EXPECT_EQ(r.status, 201) << r.raw;
  return r.body;
}

TEST(SimTenants, ATenantIsAFreshCopyOfItsTemplateWithItsOwnKeyAndIds) {
  TestServer server;
  json t = NewTenant(server, {{"template", "acc_alice"}});
  ASSERT_TRUE(t["apiKey"].is_string());
  EXPECT_NE(t["apiKey"], kAliceKey);
  EXPECT_NE(t["accountId"], "acc_alice");
  ASSERT_EQ(t["workspaces"].size(), 2u);
  EXPECT_EQ(t["workspaces"][0]["default"], true);
  EXPECT_EQ(t["workspaces"][1]["default"], false);

  auto alice = server.Get("/v1/workspace/list");
  auto mine = server.Get("/v1/workspace/list", t["apiKey"]);
  ASSERT_EQ(mine.status, 200) << mine.raw;
  EXPECT_CONFORMS(server, "responses/workspaces.list", mine.body);
  ASSERT_EQ(mine.body["data"].size(), alice.body["data"].size());
  for (size_t i = 0; i < mine.body["data"].size(); ++i) {
    const json& a = alice.body["data"][i];
    const json& m = mine.body["data"][i];
    EXPECT_EQ(m["id"], t["workspaces"][i]["id"]);
    EXPECT_NE(m["id"], a["id"]);
    EXPECT_EQ(m["name"], a["name"]);
    EXPECT_EQ(m["domainCount"], a["domainCount"]);
    EXPECT_EQ(m["mailboxCount"], a["mailboxCount"]);
  }
  // Same domains under unique names, and different ids.
  auto alice_domains = server.Get("/v1/domain/list");
  auto my_domains = server.Get("/v1/domain/list", t["apiKey"]);
  ASSERT_EQ(my_domains.status, 200);
  ASSERT_EQ(my_domains.body["data"]["domains"].size(), alice_domains.body["data"]["domains"].size());
  const json& first_mine = my_domains.body["data"]["domains"][0];
  const json& first_alice = alice_domains.body["data"]["domains"][0];
  EXPECT_EQ(first_mine["domain"], t["tag"].get<std::string>() + "-" + first_alice["domain"].get<std::string>());
  EXPECT_NE(first_mine["id"], first_alice["id"]);
  EXPECT_EQ(first_mine["status"], first_alice["status"]);
  // Emails are searchable under the tenant's own addresses.
  auto search = server.Get("/v2/onebox/search-emails", t["apiKey"]);
  ASSERT_EQ(search.status, 200);
  EXPECT_EQ(search.Header("x-total-count"), server.Get("/v2/onebox/search-emails").Header("x-total-count"));
  EXPECT_NE(search.body["data"][0]["account"].get<std::string>().find(t["tag"].get<std::string>() + "-"),
            std::string::npos);
}

// A proxy in front of several emsims routes by the key alone (deploy/haproxy.cfg): the shard is
// the key's second `_` field, and /_sim/health names it.
TEST(SimTenants, KeysCarryTheShard) {
  TestServer plain;
  EXPECT_EQ(NewTenant(plain)["apiKey"].get<std::string>().rfind("emsim_test_t", 0), 0u);
  EXPECT_EQ(plain.Get("/_sim/health", "").body["shard"], "test");

  app::Options o;
  o.shardId = "s2";
  TestServer shard(o);
  json t = NewTenant(shard);
  const std::string key = t["apiKey"];
  EXPECT_EQ(key.rfind("emsim_s2_" + t["tag"].get<std::string>() + "_", 0), 0u) << key;
  EXPECT_EQ(shard.Get("/v1/workspace/list", key).status, 200);
  EXPECT_EQ(shard.Get("/_sim/health", "").body["shard"], "s2");

  // Same --seed, another shard: other ids, so no two shards hold an account of the same id.
  o.shardId = "s3";
  TestServer other(o);
  EXPECT_NE(NewTenant(other)["accountId"], t["accountId"]);
}

TEST(SimTenants, DefaultTemplateIsTheFirstFixtureAccountAndBobCanBeCloned) {
  TestServer server;
  auto no_body = server.Send("POST", "/_sim/tenants", "", "", {});
  ASSERT_EQ(no_body.status, 201) << no_body.raw;
  EXPECT_EQ(no_body.body["workspaces"].size(), 2u);  // Alice's two
  json bob = NewTenant(server, {{"template", "acc_bob"}});
  ASSERT_EQ(bob["workspaces"].size(), 1u);
  EXPECT_EQ(bob["workspaces"][0]["name"], "Lumen Leads");
}

TEST(SimTenants, BadRequestsAre400s) {
  TestServer server;
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  for (const json& body : {json{{"template", "acc_nobody"}}, json{{"template", 5}}, json{{"template", ""}},
                           json{{"templat", "acc_alice"}}, json::array()}) {
    auto r = server.Post("/_sim/tenants", body, "");
    EXPECT_EQ(r.status, 400) << body.dump();
    EXPECT_CONFORMS(server, "resources/error_validation", r.body);
  }
  auto unknown = server.Post("/_sim/tenants", {{"template", "acc_nobody"}}, "");
  EXPECT_EQ(unknown.body["errors"][0]["param"], "template");
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before);
}

TEST(SimTenants, WhatOneTenantDoesIsInvisibleToTheOthers) {
  TestServer server;
  json a = NewTenant(server), b = NewTenant(server);
  const std::string key_a = a["apiKey"], key_b = b["apiKey"];
  ASSERT_NE(key_a, key_b);

  ASSERT_EQ(server.Post("/v1/exports/export-mailboxes", {{"apps", json::array({"MANUAL"})}}, key_a).status, 200);
  ASSERT_EQ(server.Post("/v1/exports/update-third-party-account",
                        {{"email", "ops@example.com"}, {"password", "pw"}, {"app", "LEMLIST"}}, key_a)
                .status,
            200);
  // The export runs on A's own clock: A advances it.
  ASSERT_EQ(server.Post("/_sim/clock/advance", {{"duration", "5m"}}, key_a).status, 200);
  EXPECT_EQ(server.Get("/_sim/exports", key_a).body["exports"].size(), 1u);
  EXPECT_TRUE(server.Get("/_sim/exports", key_b).body["exports"].empty());
  EXPECT_TRUE(server.Get("/_sim/exports", kAliceKey).body["exports"].empty());
  // A's export holds A's mailboxes only.
  auto csv = server.Get("/_sim/exports/" + server.Get("/_sim/exports", key_a).body["exports"][0]["id"].get<std::string>() +
                        "?format=csv", key_a);
  ASSERT_EQ(csv.status, 200);
  EXPECT_NE(csv.raw.find("@" + a["tag"].get<std::string>() + "-"), std::string::npos);
  EXPECT_EQ(csv.raw.find("@" + b["tag"].get<std::string>() + "-"), std::string::npos);

  // Money is per tenant too: emptying A's wallet leaves B's and Alice's as the fixture has them.
  const json alice_wallet = server.Get("/_sim/wallet", kAliceKey).body;
  ASSERT_EQ(server.Send("PUT", "/_sim/wallet", json{{"balance", 1}}.dump(), key_a, {}).status, 200);
  EXPECT_EQ(server.Get("/_sim/wallet", key_a).body["balance"], 1);
  EXPECT_EQ(server.Get("/_sim/wallet", key_b).body["balance"], alice_wallet["balance"]);
  EXPECT_EQ(server.Get("/_sim/wallet", kAliceKey).body, alice_wallet);

  // A tenant cannot act on another tenant's workspace.
  const std::string b_workspace = b["workspaces"][0]["id"];
  EXPECT_EQ(server.Get("/v1/domain/list", key_a, {{"x-workspace-key", b_workspace}}).status, 404);
  // B's view is exactly what it was: same workspaces and counts as a fresh clone.
  json fresh = NewTenant(server);
  auto b_list = server.Get("/v1/workspace/list", key_b).body["data"];
  auto fresh_list = server.Get("/v1/workspace/list", fresh["apiKey"]).body["data"];
  ASSERT_EQ(b_list.size(), fresh_list.size());
  for (size_t i = 0; i < b_list.size(); ++i) EXPECT_EQ(b_list[i]["mailboxCount"], fresh_list[i]["mailboxCount"]);
}

TEST(SimTenants, ConcurrentCreationGivesDistinctTenants) {
  TestServer server;
  constexpr int kThreads = 6;
  std::vector<std::string> keys(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client client("127.0.0.1", server.port());
      auto res = client.Post("/_sim/tenants", "{}", "application/json");
      if (res && res->status == 201) keys[i] = json::parse(res->body)["apiKey"];
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  EXPECT_FALSE(distinct.count(""));
  for (const auto& k : keys) EXPECT_EQ(server.Get("/v1/workspace/list", k).status, 200);
}

TEST(SimTenants, ResetRemovesTenants) {
  TestServer server;
  json t = NewTenant(server);
  ASSERT_EQ(server.Get("/v1/workspace/list", t["apiKey"]).status, 200);
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(server.Get("/v1/workspace/list", t["apiKey"]).status, 401);
  // And the next tenant after a reset is the same one again (ids come from the seed).
  EXPECT_EQ(NewTenant(server)["apiKey"], t["apiKey"]);
}

}  // namespace
}  // namespace emsim::testing
