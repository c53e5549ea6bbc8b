// Part 6: every emitted event fits schemas/events/<type>.json. The one check (schema/event_check.hpp)
// and the two places that run it: the test server on teardown, the scenario runner at the end.
#include <filesystem>

#include "api/control/scenarios.hpp"
#include "cli/scenario_command.hpp"
#include "schema/event_check.hpp"
#include "scenario/parse.hpp"
#include "scenario/run.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

namespace fs = std::filesystem;

TEST(EventCheck, NamesTheEventAndTheFieldThatDoesNotFit) {
  TestServer server;
  auto good = server.Post("/_sim/events", {{"type", "domain.updated"}, {"apiKey", kAliceKey}, {"objectId", "dom_nw_01"}}, "");
  ASSERT_EQ(good.status, 201) << good.raw;
  auto bad = server.Post("/_sim/events", {{"type", "domain.updated"}, {"apiKey", kAliceKey}, {"objectId", "dom_nw_01"},
                                          {"data", {{"previousState", {{"status", "GONE"}}}}}}, "");
  ASSERT_EQ(bad.status, 201) << bad.raw;
  const std::string bad_id = bad.body["event"]["id"];
  server.AllowInvalidEvent(bad_id);  // this test looks at the check itself

  const auto events = server.Get("/_sim/events", "");
  const auto problems = schema::EventListProblems(server.svc().schemas, events.body);
  ASSERT_EQ(problems.size(), 1u) << ::testing::PrintToString(problems);
  EXPECT_EQ(problems[0].rfind("events[1] " + bad_id + " domain.updated: schema events/domain.updated: "
                              "/data/previousState/status ", 0), 0u)
      << problems[0];
  // The listing's accountId is emsim's bookkeeping, not part of the envelope a receiver gets.
  EXPECT_TRUE(schema::EventSchemaProblems(server.svc().schemas, events.body["events"][0]).empty());
  // No schema for a type is a problem too, and so is something that is not an event.
  json odd = events.body["events"][0];
  odd["type"] = "domain.deleted";
  EXPECT_EQ(schema::EventSchemaProblems(server.svc().schemas, odd),
            std::vector<std::string>{"no schema events/domain.deleted.json for this event type"});
  EXPECT_EQ(schema::EventSchemaProblems(server.svc().schemas, json::array()).size(), 1u);
}

TEST(EventCheck, ATriggeredEventOfAnObjectAsItIsFitsItsSchema) {
  // The README's trigger example: the payload of the object as it is, previousState {} (Part 6:
  // only the fields that changed, and none did). Every event type with an object to describe.
  TestServer server;
  const std::pair<const char*, const char*> triggers[] = {
      {"domain.updated", "dom_nw_01"},
      {"domain.connection_status_changed", "dom_nw_01"},
      {"mailbox.updated", "mbx_nw_01_01"},
      {"subscription.status_changed", "sub_alice_ent"},
      {"subscription.billing_changed", "sub_alice_ent"},
      {"workspace.status_changed", "ws_northwind"},
      {"workspace.invitations", "ws_northwind"},
  };
  for (const auto& [type, object] : triggers) {
    auto r = server.Post("/_sim/events", {{"type", type}, {"apiKey", kAliceKey}, {"objectId", object}}, "");
    ASSERT_EQ(r.status, 201) << type << ": " << r.raw;
    EXPECT_EQ(r.body["event"]["data"]["previousState"], json::object()) << type;
    EXPECT_EQ(r.body["schemaIssues"], json::array()) << type;
  }
  // ...and the teardown check of this server finds them all valid.
}

scenario::ScenarioReport RunYaml(TestServer& server, const std::string& yaml) {
  const fs::path fixtures = fs::path(cli::DefaultFixturePath()).parent_path();
  scenario::Scenario sc = scenario::ParseScenarioText(yaml, "e.yaml", fixtures.string());
  return scenario::RunScenario(sc, api::ScenarioOptionsFor(server.svc()));
}

TEST(EventCheck, AScenarioFailsWhenAnEventItCausedDoesNotFit) {
  TestServer server;
  const auto good = RunYaml(server, R"(
name: valid trigger
steps:
  - trigger: {type: domain.updated, as: alice, objectId: dom_nw_01}
  - expect_events: {type: domain.updated, count: 1}
)");
  EXPECT_TRUE(good.ok()) << scenario::FormatReportText(good);
  EXPECT_EQ(good.steps.size(), 2u) << "no extra report line when every event fits";

  // The same trigger with a payload broken on purpose; no step looks at the events, the end of
  // the run still does.
  const auto bad = RunYaml(server, R"(
name: broken trigger
steps:
  - trigger: {type: mailbox.updated, as: alice, data: {mailboxDetails: 42}}
)");
  ASSERT_FALSE(bad.ok()) << scenario::FormatReportText(bad);
  EXPECT_EQ(bad.passed, 1);
  EXPECT_EQ(bad.failed, 1);
  ASSERT_EQ(bad.steps.size(), 2u);
  const scenario::StepReport& last = bad.steps.back();
  EXPECT_EQ(last.label, "events");
  EXPECT_EQ(last.outcome, scenario::StepOutcome::kFailed);
  ASSERT_EQ(last.problems.size(), 1u);
  EXPECT_NE(last.problems[0].find("mailbox.updated: schema events/mailbox.updated: /data/mailboxDetails"), std::string::npos)
      << last.problems[0];
  const std::string text = scenario::FormatReportText(bad);
  EXPECT_NE(text.find("  FAIL events every event in GET /_sim/events fits schemas/events/<type>.json"), std::string::npos)
      << text;
  EXPECT_NE(scenario::FormatJUnit({bad}).find("<testcase name=\"events: every event fits its schema\""), std::string::npos);
  // The scenario's reset put the world back; this server's own teardown check sees no event.
  EXPECT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
}

}  // namespace
}  // namespace emsim::testing
