// The scenario runner's two clients (scenario/client.hpp): the in-process one, which
// POST /_sim/scenarios/run and `emsim scenario run FILE` use, answers what the HTTP one
// (`--base-url`) answers, and a live run needs no worker thread beyond its own request's.
#include "api/control/in_process_client.hpp"
#include "api/control/scenarios.hpp"
#include "scenario/client.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

std::string HeaderOf(const scenario::ClientResponse& r, const std::string& lower_name) {
  for (const auto& [k, v] : r.headers) {
    std::string k2 = k;
    for (auto& c : k2) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (k2 == lower_name) return v;
  }
  return "";
}

TEST(ScenarioClient, InProcessAnswersWhatHttpAnswers) {
  TestServer server;
  ASSERT_NE(server.svc().pipeline, nullptr);
  api::InProcessClient local(*server.svc().pipeline);
  auto remote = scenario::MakeHttpClient(server.baseUrl());
  const scenario::HeaderList alice = {{"X-Auth-Service", kAliceKey}};
  const scenario::HeaderList json_body = {{"Content-Type", "application/json"}};
  const scenario::ClientRequest requests[] = {
      {"GET", "/v1/workspace/list", {}, alice, std::nullopt},
      {"GET", "/v1/domain/list?search=nw&page=1", {}, alice, std::nullopt},
      {"GET", "/v1/domain/list", {{"search", "a b+c"}}, alice, std::nullopt},
      {"GET", "/v1/domain/list?search=a%20b+c", {}, alice, std::nullopt},
      {"GET", "/_sim/clock", {}, {}, std::nullopt},
      {"GET", "/v1/workspace/list", {}, {}, std::nullopt},  // no key: 401
      {"GET", "/v1/no/such/route", {}, alice, std::nullopt},
      {"POST", "/_sim/clock/advance", {}, json_body, std::string("{\"seconds\": \"soon\"}")},
      {"POST", "/_sim/clock/advance", {}, json_body, std::string("{not json")},
      {"POST", "/_sim/clock/advance", {}, json_body, std::string(2 * 1024 * 1024, ' ')},  // over --max-body-bytes
  };
  for (const auto& req : requests) {
    const auto theirs = remote->Send(req);
    const auto ours = local.Send(req);
    const std::string what = req.method + " " + req.path + (req.body ? " (" + std::to_string(req.body->size()) + " bytes)" : "");
    ASSERT_EQ(theirs.error, "") << what;
    EXPECT_EQ(ours.error, "") << what;
    EXPECT_EQ(ours.status, theirs.status) << what;
    EXPECT_EQ(HeaderOf(ours, "content-type"), HeaderOf(theirs, "content-type")) << what;
    json a = json::parse(ours.body, nullptr, false), b = json::parse(theirs.body, nullptr, false);
    ASSERT_FALSE(a.is_discarded()) << what << ": " << ours.body;
    // An error's errorId is drawn per answer; everything else must be the same.
    if (a.is_object() && b.is_object() && a.contains("errorId") && b.contains("errorId")) a["errorId"] = b["errorId"];
    EXPECT_EQ(a, b) << what;
  }
  EXPECT_EQ(local.Send(requests[0]).status, 200);
  EXPECT_EQ(local.Send(requests[9]).status, 413);
}

TEST(SimScenariosRun, ALiveRunWithWebhooksNeedsNoExtraWorkerThreads) {
  // One worker to start with: the run's own requests no longer take a connection, so only the
  // webhook sent to the sink needs another (the pool grows for it).
  app::Options options;
  options.threads = 1;
  TestServer server(options);
  const std::string yaml = R"(
name: one thread
steps:
  - sink: hook
  - POST: /v2/webhooks/endpoints
    as: alice
    body: {url: "${hook.url}", enabled_events: [domain.updated]}
  - transition: {domain: dom_nw_01, status: CONNECTED}
  - advance: 1m
  - expect_deliveries: {sink: hook, count: 1, signature_verified: true}
)";
  auto r = server.Send("POST", "/_sim/scenarios/run", yaml, "", {}, "application/yaml");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["passed"], true) << r.body.value("text", r.raw);
  EXPECT_EQ(r.body["counts"]["passed"], 5) << r.raw;
}

}  // namespace
}  // namespace emsim::testing
