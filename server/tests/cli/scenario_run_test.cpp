// Scenario runner over HTTP (in-process emsim on port 0), the `emsim scenario` command, and
// POST /_sim/scenarios/run.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/control/scenarios.hpp"
#include "cli/scenario_command.hpp"
#include "scenario/parse.hpp"
#include "scenario/run.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

namespace fs = std::filesystem;

fs::path RepoRoot() { return fs::path(cli::DefaultFixturePath()).parent_path().parent_path(); }

scenario::ScenarioReport RunText(TestServer& server, const std::string& yaml, bool prepare = true) {
  scenario::Scenario sc = scenario::ParseScenarioText(yaml, "t.yaml", (RepoRoot() / "fixtures").string());
  scenario::ScenarioRunOptions o = api::ScenarioOptionsFor(server.svc());
  o.prepare = prepare;
  return scenario::RunScenario(sc, o);
}

std::string AllProblems(const scenario::ScenarioReport& r) {
  std::string out = r.setupError;
  for (const auto& s : r.steps)
    for (const auto& p : s.problems) out += p + "\n";
  return out;
}

// A temporary folder with files, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("emsim_scn_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

TEST(ScenarioRun, AStoryWithVariablesRepeatAndState) {
  TestServer server;
  auto r = RunText(server, R"(
name: story
as: alice
steps:
  - GET: /v1/workspace/list
    save: {labs: /data/1/id}
  - GET: /v1/domain/list
    workspace: ${labs}
    expect:
      body: {data: {totalSearchedCount: 5, domains: {$len: 5}}}
    save: {first: data.domains.0}
  - repeat:
      times: 2
      steps:
        - GET: "/v1/domain/list?contains=${first.domain}"
          workspace: ${labs}
          expect: {body: {data: {domains: [{id: "${first.id}"}]}}}
  - advance: 90m
  - GET: /_sim/clock
    expect: {body: {now: "2026-01-01T10:30:00.000Z", mode: manual}}
  - expect_state:
      accounts: {$contains: [{id: acc_bob, walletCents: 4000}]}
)");
  EXPECT_TRUE(r.ok()) << scenario::FormatReportText(r);
  EXPECT_EQ(r.passed, 6);
  EXPECT_EQ(r.steps[2].summary, "repeat 2 times: 2 steps passed");
  EXPECT_EQ(r.steps[3].summary, "advance 90m -> 200 (now 2026-01-01T10:30:00.000Z, 0 jobs run)");
}

TEST(ScenarioRun, AFailureReportsTheDiffAndSkipsTheRest) {
  TestServer server;
  auto r = RunText(server, R"(
name: failing
steps:
  - GET: /v1/domain/list
    as: alice
    expect:
      body: {data: {totalSearchedCount: 3, domains: {$contains: [{domain: nowhere.com}]}}}
  - advance: 1m
)");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.steps.size(), 2u);
  const auto& f = r.steps[0];
  EXPECT_EQ(f.outcome, scenario::StepOutcome::kFailed);
  EXPECT_EQ(f.line, 4);
  ASSERT_EQ(f.problems.size(), 2u) << AllProblems(r);
  EXPECT_EQ(f.problems[0].substr(0, 72),
            "body/data/domains: expected an item matching {\"domain\":\"nowhere.com\"} am");
  EXPECT_EQ(f.problems[1], "body/data/totalSearchedCount: expected 3, got 14");
  EXPECT_EQ(f.request["path"], "/v1/domain/list");
  EXPECT_EQ(f.request["headers"]["x-auth-service"], kAliceKey);
  EXPECT_EQ(f.response["status"], 200);
  EXPECT_EQ(f.response["body"]["data"]["totalSearchedCount"], 14);
  EXPECT_EQ(r.steps[1].outcome, scenario::StepOutcome::kSkipped);
  // The skipped advance never ran.
  EXPECT_EQ(server.Get("/_sim/clock", "").body["now"], "2026-01-01T09:00:00.000Z");
}

TEST(ScenarioRun, StatusDefaultsTo2xx) {
  TestServer server;
  auto r = RunText(server, "name: s\nsteps:\n  - GET: /v1/workspace/list\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(AllProblems(r), "status: expected 2xx, got 401 (write expect: {status: 401} if that is intended)\n");
  auto ok = RunText(server, "name: s\nsteps:\n  - GET: /v1/workspace/list\n    expect: 401\n");
  EXPECT_TRUE(ok.ok()) << scenario::FormatReportText(ok);
}

TEST(ScenarioRun, ResponseSchemaIsAlwaysChecked) {
  TestServer server;
  scenario::Scenario sc = scenario::ParseScenarioText("name: s\nas: alice\nsteps:\n  - GET: /v1/workspace/list\n", "t.yaml", ".");
  scenario::ScenarioRunOptions o = api::ScenarioOptionsFor(server.svc());
  EXPECT_TRUE(scenario::RunScenario(sc, o).ok());
  // Pretend the route were domains.list: its schema does not fit a workspace list.
  o.operationOf = [](const std::string&, const std::string&) { return std::string("domains.list"); };
  auto r = scenario::RunScenario(sc, o);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(AllProblems(r).find("schema responses/domains.list: /data"), std::string::npos) << AllProblems(r);
  // Errors are checked against Part 7's shapes.
  scenario::Scenario e = scenario::ParseScenarioText("name: s\nsteps:\n  - GET: /v1/workspace/list\n    expect: 401\n", "t.yaml", ".");
  o.operationOf = api::ScenarioOptionsFor(server.svc()).operationOf;
  EXPECT_TRUE(scenario::RunScenario(e, o).ok());
  const schema::Catalogue& ops = server.svc().schemas.Operations();
  EXPECT_EQ(api::OperationIdOf(ops, "GET", "/v1/domain/list"), "domains.list");
  EXPECT_EQ(api::OperationIdOf(ops, "POST", "/v1/domain/list"), "");
  EXPECT_EQ(api::OperationIdOf(ops, "GET", "/_sim/health"), "");
}

TEST(ScenarioRun, PrepareResetsTheWorldAndSetsTheHeadersClock) {
  TestServer server;
  // Someone used this emsim before: the clock moved on and Alice's billing changed.
  server.Advance("2d");
  json billing = {{"firstName", "Zed"},      {"lastName", "Z"},   {"company", "Z"},  {"addressLineOne", "1"},
                  {"city", "X"},             {"state", "Y"},      {"country", "FR"}, {"postalCode", "1"},
                  {"phoneCc", "+33"},        {"phone", "1"},      {"workspaceId", "ws_northwind"}};
  ASSERT_EQ(server.Post("/v1/billing-details/add-or-update", billing).status, 200);
  auto r = RunText(server, R"(
name: prepared
clock: {start: "2026-01-01T08:00:00.000Z", mode: real}
as: alice
steps:
  - GET: /_sim/clock
    expect: {body: {mode: real, now: {$regex: "^2026-01-01T08:00"}}}
  - GET: /v1/workspace/list
    expect: {body: {data: {$contains: [{id: ws_northwind, billingDetails: {firstName: Alice}}]}}}
)");
  EXPECT_TRUE(r.ok()) << scenario::FormatReportText(r);
  // The clock mode is put back afterwards.
  EXPECT_EQ(server.Get("/_sim/clock", "").body["mode"], "manual");
}

TEST(ScenarioRun, NoResetKeepsTheState) {
  TestServer server;
  server.Advance("1h");
  auto r = RunText(server, R"(
name: keep
reset: false
steps:
  - GET: /_sim/clock
    expect: {body: {now: "2026-01-01T10:00:00.000Z"}}
)");
  EXPECT_TRUE(r.ok()) << scenario::FormatReportText(r);
}

TEST(ScenarioRun, HeaderSeedAndFixtureApplyOnARunningEmsim) {
  TestServer server;
  TempDir dir;
  std::ifstream in(RepoRoot() / "fixtures" / "default.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string fixture = text.str();
  const std::string from = "walletBalance: \"40.00\"";
  ASSERT_NE(fixture.find(from), std::string::npos);
  fixture.replace(fixture.find(from), from.size(), "walletBalance: \"7.25\"");
  dir.Write("rich.yaml", fixture);
  scenario::Scenario sc = scenario::ParseScenarioText(R"(
name: own fixture
fixtures: rich.yaml
seed: 9
steps:
  - expect_state:
      ids: {seed: 9}
      accounts: {$contains: [{id: acc_bob, walletCents: 725}]}
  - GET: /_sim/clock
    expect: {body: {now: "2026-01-01T09:00:00.000Z"}}
)", "t.yaml", dir.path.string());
  server.Advance("3h");
  auto r = scenario::RunScenario(sc, api::ScenarioOptionsFor(server.svc()));
  EXPECT_TRUE(r.ok()) << scenario::FormatReportText(r);
}

TEST(ScenarioRun, UnknownAccountStopsTheRunBeforeAnyStep) {
  TestServer server;
  auto r = RunText(server, "name: s\nsteps:\n  - advance: 1h\n  - GET: /v1/workspace/list\n    as: carol\n");
  EXPECT_EQ(r.setupError,
            "t.yaml:4: as: no account 'carol' (known: alice, bob; or a tenant a step creates, or ${var} holding an API key)");
  EXPECT_EQ(r.skipped, 2);
  EXPECT_EQ(server.Get("/_sim/clock", "").body["now"], "2026-01-01T09:00:00.000Z");
}

TEST(ScenarioRun, ApiKeyFromAVariableAndHeaderAccounts) {
  TestServer server;
  auto r = RunText(server, std::string(R"(
name: keys
vars: {key: ")") + kBobKey + R"("}
accounts: {robert: )" + kBobKey + R"(}
steps:
  - GET: /v1/workspace/list
    as: ${key}
    expect: {body: {data: [{id: ws_lumen}]}}
  - GET: /v1/workspace/list
    as: robert
    expect: {body: {data: [{id: ws_lumen}]}}
  - GET: /v1/workspace/list
    headers: {x-auth-service: nope}
    expect: {status: 401, body: {errorId: {$match: uuid4}}, headers: {x-request-id: {$regex: "^req_"}}}
)");
  EXPECT_TRUE(r.ok()) << scenario::FormatReportText(r);
}

TEST(ScenarioRun, RawBodiesAndQueryStrings) {
  TestServer server;
  auto r = RunText(server, R"(
name: raw
as: alice
steps:
  - POST: /v1/billing-details/add-or-update
    raw_body: "{not json"
    content_type: application/json
    expect: {status: 400, body: {errors: [{param: body, location: body}]}}
  - POST: /v1/billing-details/add-or-update
    raw_body: "a=b"
    content_type: text/plain
    expect: {status: 415}
  - GET: /v1/domain/list?contains=north
    query: {page: "1"}
    expect: {body: {data: {domains: {$len: {$gte: 1}}}}}
)");
  EXPECT_TRUE(r.ok()) << scenario::FormatReportText(r);
}

TEST(ScenarioRun, RepeatFailureNamesTheIteration) {
  TestServer server;
  auto r = RunText(server, R"(
name: rep
steps:
  - repeat:
      times: 5
      var: n
      steps:
        - advance: 1h
        - GET: /_sim/clock
          expect: {body: {now: {$not: "2026-01-01T12:00:00.000Z"}}}
)");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].outcome, scenario::StepOutcome::kFailed);
  EXPECT_EQ(r.steps[0].label, "1.2 [n=3]");
  EXPECT_EQ(r.steps[0].summary, "repeat 5 times, iteration 3: GET /_sim/clock -> 200");
  EXPECT_EQ(AllProblems(r), "body/now: expected anything but \"2026-01-01T12:00:00.000Z\", got \"2026-01-01T12:00:00.000Z\"\n");
}

TEST(ScenarioRun, EventsAndDeliveriesAreSelectedCheckedAndSaved) {
  TestServer server;
  const std::string story = R"(
name: deliveries
steps:
  - sink: hook
    config: {failFirst: 1}
  - POST: /v2/webhooks/endpoints
    as: alice
    body: {url: "${hook.url}", enabled_events: [domain.updated]}
  - transition: {domain: dom_nw_01, status: CONNECTED}
  - transition: {domain: dom_lu_01, status: CONNECTED}
  - expect_events:
      type: domain.updated
      as: alice
      where: {data: {domainDetails: {id: dom_nw_01}}}
      count: 1
    save: {ev: /0/id}
  - expect_events: {type: domain.updated, as: bob, count: 1, items: [{data: {domainDetails: {id: dom_lu_01}}}]}
  - advance: 10m
  - expect_deliveries:
      sink: hook
      event: ${ev}
      count: 2
      attempts_after_event: ATTEMPTS
      items: [{status: failed, responseStatus: 500}, {status: succeeded, responseStatus: 200}]
      signature_verified: true
)";
  auto with = [&](const std::string& attempts) {
    std::string y = story;
    y.replace(y.find("ATTEMPTS"), 8, attempts);
    return y;
  };
  auto ok = RunText(server, with("[0s, 1m]"));
  EXPECT_TRUE(ok.ok()) << scenario::FormatReportText(ok);

  auto late = RunText(server, with("[0s, 2m]"));
  ASSERT_FALSE(late.ok());
  const std::string problems = AllProblems(late);
  EXPECT_NE(problems.find("attempts_after_event: attempt 2 ("), std::string::npos) << problems;
  EXPECT_NE(problems.find(" attempt 2) was sent 1m after the event, expected 2m"), std::string::npos) << problems;
  EXPECT_NE(problems.find("(2 of 2 deliveries selected; the response below shows them)"), std::string::npos) << problems;
  // The report shows what the checks ran on: the selected deliveries.
  const auto& failed = late.steps.back();
  ASSERT_TRUE(failed.response["body"].is_array());
  EXPECT_EQ(failed.response["body"].size(), 2u);
}

TEST(ScenarioRun, ATenantIsAnAccountAlias) {
  TestServer server;
  auto r = RunText(server, R"(
name: tenant
steps:
  - tenant: carol
    config: {template: acc_bob}
  - GET: /_sim/wallet
    as: carol
    expect: {body: {balance: 40, accountId: "${carol.accountId}"}}
  - GET: /v1/workspace/list
    as: carol
    expect: {body: {data: [{id: "${carol.workspaces.0.id}"}]}}
  - GET: /v1/domain/list
    as: carol
    save: {dom: data.domains.0.id}
  - transition: {domain: "${dom}", status: CONNECTED}
  - expect_events: {as: carol, type: domain.updated, count: 1, items: [{data: {domainDetails: {id: "${dom}"}}}]}
  - expect_events: {as: bob, count: 0}
)");
  EXPECT_TRUE(r.ok()) << scenario::FormatReportText(r);
}

// ---- the deliberately wrong file fails with a clear report ---------------------------------------

TEST(ScenarioRun, DeliberatelyWrongScenarioFailsClearly) {
  TestServer server;
  scenario::Scenario sc = scenario::ParseScenarioFile((RepoRoot() / "scenarios" / "tests" / "deliberately_wrong.yaml").string());
  auto r = scenario::RunScenario(sc, api::ScenarioOptionsFor(server.svc()));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.passed, 1);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.skipped, 1);
  const std::string text = scenario::FormatReportText(r);
  for (const char* line : {
           "  FAIL 2 wrong count, wrong status text, wrong id format: GET /v1/domain/list as alice -> 200  (line 13)",
           "         expected vs actual:",
           "           body/data/domains: expected 2 item(s), got 14 (use {$contains: [...]} to match some items in any order)",
           "           body/data/domains/0/status: expected \"PENDING\", got \"ACTIVE\"",
           "           body/data/domains/1/id: expected a UUID, got \"dom_nw_02\"",
           "           body/data/totalSearchedCount: expected 15, got 14",
           "         request: GET /v1/domain/list",
           "         response: 200",
           "  skip 3 never runs: advance 1h  (line 23)",
           "FAILED: Deliberately wrong (must fail): 1 passed, 1 failed, 1 skipped"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\n" << text;
  }
}

// ---- emsim scenario run -------------------------------------------------------------------------

TEST(ScenarioCommand, ExitCodesAndJUnit) {
  TempDir dir;
  const std::string good = dir.Write("good.yaml", "name: good\nsteps:\n  - advance: 5m\n  - GET: /_sim/health\n");
  const std::string bad = (RepoRoot() / "scenarios" / "tests" / "deliberately_wrong.yaml").string();
  const std::string broken = dir.Write("broken.yaml", "name: broken\nsteps:\n  - advanse: 5m\n");
  const std::string junit = (dir.path / "out.xml").string();
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli::ScenarioCommand({"run", good}), 0);
  EXPECT_EQ(cli::ScenarioCommand({"run", good, bad, "--junit", junit}), 1);
  // A file that does not parse stops everything before anything runs.
  EXPECT_EQ(cli::ScenarioCommand({"run", good, broken}), 2);
  EXPECT_EQ(cli::ScenarioCommand({"run"}), 2);
  EXPECT_EQ(cli::ScenarioCommand({"walk", good}), 2);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("PASSED: good: 2 passed, 0 failed, 0 skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("scenarios: 1 passed, 1 failed"), std::string::npos) << out;
  EXPECT_NE(err.find(broken + ":3: step 1: unknown key 'advanse'"), std::string::npos) << err;
  EXPECT_NE(err.find("1 file(s) do not parse; nothing was run"), std::string::npos) << err;
  std::ifstream in(junit);
  std::stringstream xml;
  xml << in.rdbuf();
  EXPECT_NE(xml.str().find("<testsuites name=\"emsim scenarios\" tests=\"5\" failures=\"1\" skipped=\"1\">"),
            std::string::npos)
      << xml.str();
}

TEST(ScenarioCommand, BaseUrlRunsAgainstARunningEmsim) {
  TestServer server;
  TempDir dir;
  const std::string file = dir.Write("remote.yaml", R"(
name: remote
clock: {start: "2026-05-01T00:00:00.000Z"}
steps:
  - GET: /_sim/clock
    expect: {body: {now: "2026-05-01T00:00:00.000Z", mode: manual}}
  - GET: /v1/workspace/list
    as: bob
    expect: {body: {data: [{id: ws_lumen}]}}
)");
  ::testing::internal::CaptureStdout();
  const int rc = cli::ScenarioCommand({"run", file, "--base-url", server.baseUrl()});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0) << out;
}

// ---- POST /_sim/scenarios/run --------------------------------------------------------------------

TEST(SimScenariosRun, RunsYamlOnTheLiveEmsimAndAnswersTheReport) {
  TestServer server;
  const std::string yaml = R"(
name: live
as: alice
steps:
  - advance: 10m
  - GET: /v1/workspace/list
    expect: {body: {data: {$len: 2}}}
)";
  auto r = server.Send("POST", "/_sim/scenarios/run?name=live.yaml", yaml, "", {}, "application/yaml");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["passed"], true) << r.raw;
  EXPECT_EQ(r.body["file"], "live.yaml");
  EXPECT_EQ(r.body["counts"], (json{{"passed", 2}, {"failed", 0}, {"skipped", 0}}));
  EXPECT_EQ(r.body["steps"][0]["summary"], "advance 10m -> 200 (now 2026-01-01T09:10:00.000Z, 0 jobs run)")
      << r.raw;
  EXPECT_NE(r.body["text"].get<std::string>().find("PASSED: live"), std::string::npos);
  // It ran on this emsim: the clock moved.
  EXPECT_EQ(server.Get("/_sim/clock", "").body["now"], "2026-01-01T09:10:00.000Z");
  // The journal shows the run and the requests it made.
  auto journal = server.Get("/_sim/requests?operationId=workspaces.list", "");
  EXPECT_EQ(journal.body["requests"].size(), 1u) << journal.raw;

  auto failing = server.Send("POST", "/_sim/scenarios/run", "name: f\nsteps:\n  - GET: /v1/workspace/list\n", "", {},
                             "text/yaml");
  ASSERT_EQ(failing.status, 200) << failing.raw;
  EXPECT_EQ(failing.body["passed"], false);
  EXPECT_EQ(failing.body["steps"][0]["problems"][0],
            "status: expected 2xx, got 401 (write expect: {status: 401} if that is intended)");
  EXPECT_EQ(failing.body["steps"][0]["response"]["status"], 401);
}

TEST(SimScenariosRun, BadInputIsRefusedBeforeAnythingRuns) {
  TestServer server;
  auto wrong_type = server.Send("POST", "/_sim/scenarios/run", "name: x\nsteps: [{advance: 1m}]\n", "", {}, "text/plain");
  EXPECT_EQ(wrong_type.status, 415) << wrong_type.raw;
  EXPECT_EQ(wrong_type.body["message"], "Content-Type must be application/yaml or text/yaml (got 'text/plain')");
  auto empty = server.Send("POST", "/_sim/scenarios/run", "", "", {}, "application/yaml");
  EXPECT_EQ(empty.status, 400) << empty.raw;
  auto typo = server.Send("POST", "/_sim/scenarios/run", "name: x\nsteps:\n  - advance: 1m\n  - adv: 1m\n", "", {},
                          "application/yaml");
  ASSERT_EQ(typo.status, 400) << typo.raw;
  EXPECT_EQ(typo.body["errors"][0]["param"], "body");
  EXPECT_EQ(typo.body["errors"][0]["msg"].get<std::string>().rfind("scenario.yaml:4: step 2: unknown key 'adv'", 0), 0u)
      << typo.raw;
  EXPECT_CONFORMS(server, "resources/error_validation", typo.body);
  // Nothing ran: the clock did not move.
  EXPECT_EQ(server.Get("/_sim/clock", "").body["now"], "2026-01-01T09:00:00.000Z");
}

}  // namespace
}  // namespace emsim::testing

namespace emsim::testing {
namespace {

// All or nothing: a scenario whose fixture file cannot be loaded stops before its preparation
// changes anything, even with `reset: true`.
TEST(ScenarioRun, ABadFixtureFileLeavesTheEmsimAsItWas) {
  TestServer server;
  TempDir dir;
  dir.Write("broken.yaml", "accounts: [this is not a fixture\n");
  ASSERT_EQ(server.Put("/_sim/wallet", {{"balanceCents", 123}}, kAliceKey).status, 200);
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  scenario::Scenario sc = scenario::ParseScenarioText(
      "name: broken fixture\nreset: true\nfixtures: broken.yaml\nsteps:\n  - GET: /_sim/health\n", "b.yaml", dir.path.string());
  const scenario::ScenarioReport r = scenario::RunScenario(sc, api::ScenarioOptionsFor(server.svc()));
  EXPECT_FALSE(r.setupError.empty()) << "the fixture's error is the run's";
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before) << "not reset, not loaded: as it was";
}

}  // namespace
}  // namespace emsim::testing
