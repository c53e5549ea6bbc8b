// `emsim proxy` (cli/proxy_command.hpp, api/control/proxy.hpp): an emsim with faults injected
// through its /_sim/faults stands in for the real deployment; the proxy in front of it replays
// every request on its shadow, seeded from the same fixtures. Without faults the two agree; each
// fault makes one kind of difference, which the report must name by operation, field and rule,
// while the client still gets the real answer unchanged.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include <gtest/gtest.h>

#include "cli/proxy_command.hpp"
#include "tests/support/refusing_port.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

class ShadowProxyTest : public ::testing::Test {
 protected:
  void StartProxy(bool allow_mutations, const std::string& target = "", size_t max_answer_bytes = 0,
                  const std::string& admin_token = "") {
    cli::ProxyFlags flags;
    flags.proxy.target = target.empty() ? real_.baseUrl() : target;
    flags.proxy.allowMutations = allow_mutations;
    flags.shadow.host = "127.0.0.1";
    flags.shadow.port = 0;
    flags.shadow.logLevel = "error";  // one line per difference would bury a failure's output
    flags.targetTimeoutMs = 10000;
    if (max_answer_bytes) flags.maxAnswerBytes = max_answer_bytes;
    flags.shadow.adminToken = admin_token;
    proxy_ = std::make_unique<cli::ProxyServer>(flags);
    const int port = proxy_->Start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port);
    client_->set_read_timeout(30, 0);
  }

  HttpResult Send(const std::string& method, const std::string& path, const std::string& body = "",
                  const std::string& api_key = kAliceKey, const std::string& accept = "") {
    httplib::Request req;
    req.method = method;
    req.path = path;
    if (!api_key.empty()) req.headers.emplace("x-auth-service", api_key);
    if (!accept.empty()) req.headers.emplace("Accept", accept);
    if (!body.empty()) {
      req.body = body;
      req.headers.emplace("Content-Type", "application/json");
    }
    HttpResult out;
    auto res = client_->send(req);
    if (!res) {
      ADD_FAILURE() << method << " " << path << " through the proxy: no response";
      return out;
    }
    out.status = res->status;
    out.raw = res->body;
    out.headers = res->headers;
    out.body = json::parse(res->body, nullptr, false);
    if (out.body.is_discarded()) out.body = nullptr;
    return out;
  }

  json Report() {
    auto r = Send("GET", "/_sim/proxy/report", "", "");
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.body;
  }
  std::string ReportText() { return Send("GET", "/_sim/proxy/report?format=text", "", "").raw; }

  // Injects a fault on the "real" emsim.
  void Fault(const json& spec) {
    auto r = real_.Post("/_sim/faults", spec, "");
    ASSERT_EQ(r.status, 201) << r.raw;
  }

  // The report's example of `rule` for `op` at `field`, or null.
  static json Example(const json& report, const std::string& op, const std::string& rule, const std::string& field) {
    const json ops = report.value("operations", json::object());
    if (!ops.contains(op)) return nullptr;
    const json rules = ops[op].value("rules", json::object());
    if (!rules.contains(rule)) return nullptr;
    for (const auto& e : rules[rule]["examples"])
      if (e.value("field", "") == field) return e;
    return nullptr;
  }

  TestServer real_;  // the "real" deployment: outlives the proxy in front of it
  std::unique_ptr<cli::ProxyServer> proxy_;
  std::unique_ptr<httplib::Client> client_;
};

constexpr const char* kProxyReads[] = {"/v1/workspace/list",   "/v1/mailbox/list",      "/v1/domain/list",
                                       "/v1/domain/list?page=2", "/v1/user/subscriptions", "/v2/dns-shield/available-slots",
                                       "/v2/webhooks/events",  "/v2/webhooks/endpoints", "/v2/onebox/search-emails"};

TEST_F(ShadowProxyTest, ReadsOfTheSameWorldShowNoDifferenceAndPassTheRealAnswerThrough) {
  StartProxy(false);
  for (const char* path : kProxyReads) {
    const HttpResult via = Send("GET", path);
    const HttpResult direct = real_.Get(path);
    EXPECT_EQ(via.status, direct.status) << path;
    EXPECT_EQ(via.raw, direct.raw) << path;
    EXPECT_EQ(via.Header("Content-Type"), direct.Header("Content-Type")) << path;
  }
  const json report = Report();
  EXPECT_EQ(report["requests"], std::size(kProxyReads)) << report.dump(2);
  EXPECT_EQ(report["forwarded"], std::size(kProxyReads));
  EXPECT_EQ(report["differences"], 0) << ReportText();
}

TEST_F(ShadowProxyTest, AChangedStatusCodeIsReported) {
  StartProxy(false);
  Fault({{"method", "GET"}, {"path", "/v1/domain/list"}, {"status", 503}});
  const HttpResult r = Send("GET", "/v1/domain/list");
  EXPECT_EQ(r.status, 503) << r.raw;  // the real answer, not the shadow's 200
  const json e = Example(Report(), "domains.list", "status-code", "HTTP status");
  ASSERT_FALSE(e.is_null()) << ReportText();
  EXPECT_EQ(e["real"], "503");
  EXPECT_EQ(e["shadow"], "200");
}

TEST_F(ShadowProxyTest, ARemovedFieldIsAPresenceDifferenceAndASchemaViolation) {
  StartProxy(false);
  Fault({{"path", "/v1/domain/list"}, {"patch", json::array({{{"op", "remove"}, {"path", "/data/domains/0/status"}}})}});
  const HttpResult r = Send("GET", "/v1/domain/list");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_FALSE(r.body["data"]["domains"][0].contains("status")) << r.raw;  // unchanged: as the real one sent it
  const json report = Report();
  const json presence = Example(report, "domains.list", "field-presence", "/data/domains/*/status");
  ASSERT_FALSE(presence.is_null()) << ReportText();
  EXPECT_EQ(presence["real"], "absent");
  EXPECT_EQ(presence["shadow"], "string");
  EXPECT_FALSE(Example(report, "domains.list", "response-schema", "/data/domains/*/status").is_null()) << ReportText();
}

TEST_F(ShadowProxyTest, AFieldOfAnotherTypeIsReported) {
  StartProxy(false);
  Fault({{"path", "/v1/domain/list"},
         {"patch", json::array({{{"op", "replace"}, {"path", "/data/totalPages"}, {"value", "1"}}})}});
  const HttpResult r = Send("GET", "/v1/domain/list");
  EXPECT_EQ(r.body["data"]["totalPages"], "1") << r.raw;
  const json report = Report();
  const json e = Example(report, "domains.list", "field-type", "/data/totalPages");
  ASSERT_FALSE(e.is_null()) << ReportText();
  EXPECT_EQ(e["real"], "string");
  EXPECT_EQ(e["shadow"], "integer");
  EXPECT_FALSE(Example(report, "domains.list", "response-schema", "/data/totalPages").is_null()) << ReportText();
}

TEST_F(ShadowProxyTest, ABrokenEnvelopeIsReported) {
  StartProxy(false);
  Fault({{"path", "/v1/workspace/list"}, {"patch", json::array({{{"op", "replace"}, {"path", "/status"}, {"value", 201}}})}});
  const HttpResult r = Send("GET", "/v1/workspace/list");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["status"], 201) << r.raw;
  const json e = Example(Report(), "workspaces.list", "envelope", "/status");
  ASSERT_FALSE(e.is_null()) << ReportText();
  EXPECT_EQ(e["real"], "201");
}

TEST_F(ShadowProxyTest, AnEnumValueTheSchemaDoesNotListIsReported) {
  StartProxy(false);
  const HttpResult direct = real_.Get("/v1/user/subscriptions");
  ASSERT_TRUE(direct.body["data"].is_array() && !direct.body["data"].empty()) << direct.raw;
  Fault({{"path", "/v1/user/subscriptions"},
         {"patch", json::array({{{"op", "replace"}, {"path", "/data/0/subscriptionStatus"}, {"value", "PAUSED"}}})}});
  const HttpResult r = Send("GET", "/v1/user/subscriptions");
  EXPECT_EQ(r.body["data"][0]["subscriptionStatus"], "PAUSED") << r.raw;
  const json e = Example(Report(), "subscriptions.list", "enum-value", "/data/*/subscriptionStatus");
  ASSERT_FALSE(e.is_null()) << ReportText();
  EXPECT_EQ(e["real"], "\"PAUSED\"");
}

TEST_F(ShadowProxyTest, AnInvalidRequestIsReportedAgainstItsSchema) {
  StartProxy(false);
  const HttpResult r = Send("POST", "/v1/domain/available", json{{"years", 1}}.dump());
  EXPECT_EQ(r.status, 400) << r.raw;  // both sides refuse it alike: no status difference
  const json report = Report();
  EXPECT_FALSE(Example(report, "domains.available", "request-schema", "body.domainName").is_null()) << ReportText();
  EXPECT_TRUE(Example(report, "domains.available", "status-code", "HTTP status").is_null()) << ReportText();
}

TEST_F(ShadowProxyTest, AMutationIsRefusedWithoutTheFlagAndNeverReachesTheTarget) {
  StartProxy(false);
  const json endpoint = {{"url", "https://example.com/hooks"}, {"enabled_events", {"domain.updated"}}};
  const HttpResult r = Send("POST", "/v2/webhooks/endpoints", endpoint.dump());
  EXPECT_EQ(r.status, 403) << r.raw;
  EXPECT_EQ(r.body["status"], 403) << r.raw;
  EXPECT_NE(r.body.value("message", "").find("--allow-mutations"), std::string::npos) << r.raw;
  EXPECT_TRUE(IsUuid4(r.body.value("errorId", ""))) << r.raw;
  const json count = real_.Post("/_sim/requests/count", {{"method", "POST"}, {"path", "/v2/webhooks/endpoints"}}, "").body;
  EXPECT_EQ(count["count"], 0) << count.dump();
  const json report = Report();
  EXPECT_EQ(report["refused"], 1);
  EXPECT_FALSE(Example(report, "webhooks.create", "mutation-refused", "request").is_null()) << ReportText();
}

TEST_F(ShadowProxyTest, AWriteToAPathTheCatalogueDoesNotListIsRefusedToo) {
  StartProxy(false);
  const HttpResult r = Send("POST", "/v1/workspace/create", json{{"name", "x"}}.dump());
  EXPECT_EQ(r.status, 403) << r.raw;
  EXPECT_EQ(real_.Post("/_sim/requests/count", {{"path", "/v1/workspace/create"}}, "").body["count"], 0);
  EXPECT_FALSE(Example(Report(), "unknown", "mutation-refused", "request").is_null()) << ReportText();
  EXPECT_EQ(Send("GET", "/v1/workspace/members").status, 404);  // a read goes through: the real one's 404
}

TEST_F(ShadowProxyTest, AMutationTheRealDeploymentRefusedAndEmsimMadeIsAStateChange) {
  StartProxy(true);
  const json refusal = {{"status", 400}, {"message", "Validation failed"}, {"errors", json::array()}};
  Fault({{"method", "POST"}, {"path", "/v2/webhooks/endpoints"}, {"status", 400}, {"body", refusal}});
  const json endpoint = {{"url", "https://example.com/hooks"}, {"enabled_events", {"domain.updated"}}};
  const HttpResult r = Send("POST", "/v2/webhooks/endpoints", endpoint.dump());
  EXPECT_EQ(r.status, 400) << r.raw;
  EXPECT_EQ(r.body, refusal) << r.raw;
  const json count = real_.Post("/_sim/requests/count", {{"method", "POST"}, {"path", "/v2/webhooks/endpoints"}}, "").body;
  EXPECT_EQ(count["count"], 1) << count.dump();  // forwarded: --allow-mutations
  const json e = Example(Report(), "webhooks.create", "state-change", "effect");
  ASSERT_FALSE(e.is_null()) << ReportText();
  EXPECT_EQ(e["real"], "400 (refused)");
  EXPECT_EQ(e["shadow"], "200 (changed)");
}

TEST_F(ShadowProxyTest, ARecordOnlyTheRealDeploymentHasIsUnknownToTheShadowNotAMismatch) {
  StartProxy(true);
  // Made on the real deployment behind the proxy's back: the shadow never saw it.
  const auto made = real_.Post("/v2/webhooks/endpoints", {{"url", "https://example.com/a"}, {"enabled_events", {"domain.updated"}}});
  ASSERT_EQ(made.status / 100, 2) << made.raw;
  const std::string id = made.body["data"].value("id", "");
  ASSERT_FALSE(id.empty()) << made.raw;
  const HttpResult listed = Send("GET", "/v2/webhooks/endpoints");  // the proxy learns the ids it lists
  EXPECT_NE(listed.raw.find(id), std::string::npos) << listed.raw;
  const HttpResult r = Send("PATCH", "/v2/webhooks/endpoints/" + id, json{{"status", "active"}}.dump());
  EXPECT_EQ(r.status, 200) << r.raw;  // the real one has it; the shadow answers 404
  const json report = Report();
  EXPECT_FALSE(Example(report, "webhooks.update", "unknown-to-shadow", "id " + id).is_null()) << ReportText();
  EXPECT_TRUE(Example(report, "webhooks.update", "state-change", "effect").is_null()) << ReportText();
}

TEST_F(ShadowProxyTest, ATargetThatDoesNotAnswerIsA502InPart7Shape) {
  RefusingPort closed;
  StartProxy(false, "http://127.0.0.1:" + std::to_string(closed.port()));
  const HttpResult r = Send("GET", "/v1/domain/list");
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_EQ(r.body["status"], 502) << r.raw;
  EXPECT_TRUE(IsUuid4(r.body.value("errorId", ""))) << r.raw;
  EXPECT_NE(r.body.value("message", "").find("did not answer"), std::string::npos) << r.raw;
  EXPECT_FALSE(Example(Report(), "domains.list", "target-unreachable", "target").is_null()) << ReportText();
}

TEST_F(ShadowProxyTest, AnAnswerLargerThanTheLimitIsA502NotHeldInMemory) {
  StartProxy(false, "", 256);
  EXPECT_GT(real_.Get("/v1/domain/list").raw.size(), 256u);
  const HttpResult r = Send("GET", "/v1/domain/list");
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_NE(r.body.value("message", "").find("larger than 256 bytes"), std::string::npos) << r.raw;
  EXPECT_EQ(Send("GET", "/v2/webhooks/endpoints").status, 200);  // a small one still goes through
}

TEST_F(ShadowProxyTest, TheReportReadsAsTextAndClears) {
  StartProxy(false);
  Fault({{"method", "GET"}, {"path", "/v1/domain/list"}, {"status", 500}});
  Send("GET", "/v1/domain/list");
  const std::string text = ReportText();
  EXPECT_NE(text.find("domains.list: 1 requests"), std::string::npos) << text;
  EXPECT_NE(text.find("status-code x1"), std::string::npos) << text;
  EXPECT_EQ(Send("GET", "/_sim/proxy/report", "", "", "text/plain").raw, text);
  const HttpResult cleared = Send("DELETE", "/_sim/proxy/report", "", "");
  EXPECT_EQ(cleared.status, 200) << cleared.raw;
  EXPECT_EQ(Report()["requests"], 0);
  // The rest of /_sim is the shadow's own control plane.
  EXPECT_EQ(Send("GET", "/_sim/health", "", "").status, 200);
}

TEST_F(ShadowProxyTest, HostileBodiesMeetServesLimitsBeforeAnythingIsForwarded) {
  StartProxy(false);
  // Over --max-body-bytes (1 MiB by default): refused from the headers, never sent on.
  const std::string huge = "{\"domainName\":\"" + std::string(1100 * 1024, 'a') + "\"}";
  EXPECT_EQ(Send("POST", "/v1/domain/available", huge).status, 413);
  const json count = real_.Post("/_sim/requests/count", {{"path", "/v1/domain/available"}}, "").body;
  EXPECT_EQ(count["count"], 0) << count.dump();
  // Deeper than the JSON limits: the proxy names it, the answers are the real one's.
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  const HttpResult r = Send("POST", "/v1/domain/available", deep);
  EXPECT_EQ(r.status, 400) << r.raw;
  EXPECT_FALSE(Example(Report(), "domains.available", "request-schema", "body").is_null()) << ReportText();
}

TEST_F(ShadowProxyTest, WithAnAdminTokenTheReportNeedsItLikeTheRestOfSim) {
  StartProxy(false, "", 0, "s3cret");
  EXPECT_EQ(Send("GET", "/_sim/proxy/report", "", "").status, 401);
  EXPECT_EQ(Send("DELETE", "/_sim/proxy/report", "", "").status, 401);
  httplib::Headers with_token = {{"Authorization", "Bearer s3cret"}};
  auto res = client_->Get("/_sim/proxy/report", with_token);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(Send("GET", "/v1/domain/list").status, 200);  // the API itself needs no admin token
}

TEST_F(ShadowProxyTest, ItsFlagsNeedATargetAndReadTheKeyMap) {
  auto no_env = [](const char*) -> const char* { return nullptr; };
  EXPECT_THROW(cli::ParseProxyFlags({"--port", "0"}, no_env), cli::FlagError);
  EXPECT_THROW(cli::ParseProxyFlags({"--target", "ftp://x"}, no_env), cli::FlagError);
  EXPECT_THROW(cli::ParseProxyFlags({"--target", "http://x", "--api-key-map", "novalue"}, no_env), cli::FlagError);
  const cli::ProxyFlags f = cli::ParseProxyFlags(
      {"--target=https://real.example/api", "--api-key-map", "real1=emsim_a,real2=emsim_b", "--allow-mutations", "--port", "0"},
      no_env);
  EXPECT_EQ(f.proxy.target, "https://real.example/api");
  EXPECT_EQ(f.proxy.apiKeyMap.at("real2"), "emsim_b");
  EXPECT_TRUE(f.proxy.allowMutations);
  EXPECT_EQ(f.shadow.port, 0);
}

}  // namespace
}  // namespace emsim::testing
