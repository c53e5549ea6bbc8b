// JUnit test-case names come from the scenario as written, so CI tools that track a test by its
// name see the same names on every run, whatever ids, times and statuses the run produced.
#include <filesystem>
#include <regex>

#include "api/control/scenarios.hpp"
#include "cli/scenario_command.hpp"
#include "scenario/parse.hpp"
#include "scenario/run.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

namespace fs = std::filesystem;

// Values that differ between two emsims (seed: ids; start time: clock) reach the steps through
// ${variables}: sink and domain ids in paths, times in the advance answer.
constexpr const char* kScenario = R"(
name: names stay put
as: alice
steps:
  - sink: hook
  - name: read the sink
    GET: /_sim/sinks/${hook.id}
  - POST: /v2/webhooks/endpoints
    body: {url: "${hook.url}", enabled_events: [domain.updated]}
    save: {endpoint: /data/id}
  - GET: /v1/domain/list
    save: {dom: data.domains.0.id}
  - transition: {domain: "${dom}", status: PENDING}
  - advance: 90s
  - set: {seen: "${endpoint}"}
  - repeat:
      times: 2
      steps:
        - GET: "/v2/webhooks/endpoints?x=${seen}"
  - expect_deliveries:
      sink: hook
      count: {$gte: 1}
)";

std::vector<std::string> CaseNames(const std::string& xml) {
  std::vector<std::string> out;
  static const std::regex kName("<testcase name=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), kName); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

scenario::ScenarioReport RunOn(app::Options options) {
  TestServer server(std::move(options));
  const fs::path fixtures = fs::path(cli::DefaultFixturePath()).parent_path();
  scenario::Scenario sc = scenario::ParseScenarioText(kScenario, "names.yaml", fixtures.string());
  scenario::ScenarioRunOptions o = api::ScenarioOptionsFor(server.svc());
  o.prepare = false;
  return scenario::RunScenario(sc, o);
}

TEST(ScenarioJUnit, TestCaseNamesAreTheSameOnEveryRun) {
  app::Options first;
  first.seed = 1;
  first.startTime = model::ParseIso("2026-01-01T09:00:00.000Z");
  app::Options second;
  second.seed = 987654321;
  second.startTime = model::ParseIso("2027-06-15T17:45:30.000Z");
  const scenario::ScenarioReport a = RunOn(first), b = RunOn(second);
  ASSERT_TRUE(a.ok()) << scenario::FormatReportText(a);
  ASSERT_TRUE(b.ok()) << scenario::FormatReportText(b);
  // The runs really differ: the readable summaries carry their ids and times...
  ASSERT_EQ(a.steps.size(), b.steps.size());
  EXPECT_NE(a.steps[1].summary, b.steps[1].summary) << "sink ids should differ with the seed";
  EXPECT_NE(a.steps[5].summary, b.steps[5].summary) << "the advance answers another time";
  // ...and the JUnit names do not.
  const auto names_a = CaseNames(scenario::FormatJUnit({a})), names_b = CaseNames(scenario::FormatJUnit({b}));
  ASSERT_EQ(names_a.size(), 9u) << scenario::FormatJUnit({a});
  EXPECT_EQ(names_a, names_b);
  EXPECT_EQ(names_a[0], "step 1: sink hook");
  EXPECT_EQ(names_a[1], "step 2 read the sink: GET /_sim/sinks/${hook.id}");
  EXPECT_EQ(names_a[4], "step 5: transition ${dom} -&gt; PENDING");
  EXPECT_EQ(names_a[5], "step 6: advance 90s");
  EXPECT_EQ(names_a[7], "step 8: repeat 2 times");
  for (const auto& n : names_a) {
    EXPECT_EQ(n.find("snk_"), std::string::npos) << n;
    EXPECT_EQ(n.find("->"), std::string::npos) << n << ": no status in a name";
    EXPECT_EQ(n.find("2026-"), std::string::npos) << n;
  }
}

TEST(ScenarioJUnit, AFailingRunKeepsTheNamesOfAPassingOne) {
  // The same file, once with a check that holds and once with one that does not: the failing
  // step keeps its name (CI shows "was passing, now failing" for the same test).
  TestServer server;
  const fs::path fixtures = fs::path(cli::DefaultFixturePath()).parent_path();
  auto run = [&](const std::string& count) {
    scenario::Scenario sc = scenario::ParseScenarioText(
        "name: n\nas: alice\nsteps:\n  - GET: /v1/domain/list\n    save: {d: data.domains.0.domain}\n"
        "  - GET: \"/v1/domain/list?contains=${d}\"\n    expect: {body: {data: {totalSearchedCount: " + count + "}}}\n",
        "n.yaml", fixtures.string());
    scenario::ScenarioRunOptions o = api::ScenarioOptionsFor(server.svc());
    return scenario::RunScenario(sc, o);
  };
  const auto good = run("1"), bad = run("2");
  ASSERT_TRUE(good.ok()) << scenario::FormatReportText(good);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(CaseNames(scenario::FormatJUnit({good})), CaseNames(scenario::FormatJUnit({bad})));
}

}  // namespace
}  // namespace emsim::testing
