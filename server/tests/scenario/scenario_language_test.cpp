// Scenario language without sockets: the parser (and its errors, with line numbers), the
// matchers and their expected-vs-actual lines, variables, and the report formats.
#include <gtest/gtest.h>

#include "core/messages.hpp"
#include "scenario/match.hpp"
#include "scenario/parse.hpp"
#include "scenario/report.hpp"
#include "scenario/vars.hpp"

namespace emsim::scenario {
namespace {

Scenario Parse(const std::string& text) { return ParseScenarioText(text, "t.yaml", "."); }

// The parse error's message, or "" when it parses.
std::string ParseError(const std::string& text) {
  try {
    Parse(text);
    return "";
  } catch (const ScenarioParseError& e) {
    return e.what();
  }
}

std::vector<std::string> Lines(const std::vector<Mismatch>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(m.path + ": " + m.message);
  return out;
}

// ---- parser: what a valid file becomes -----------------------------------------------------------

TEST(ScenarioParse, HeaderAndRequestStep) {
  Scenario s = Parse(R"(
name: Smoke
description: two steps
clock: {start: "2026-02-01T00:00:00.000Z", mode: real}
seed: 42
as: alice
vars: {limit: 3}
steps:
  - name: list
    GET: /v1/domain/list?contains=north&page=2
    workspace: ws_labs
    headers: {x-service-provider: GOOGLE}
    expect: {status: 200, body: {data: {currentPage: 2}}}
    save: {first: data.domains.0.id}
  - POST: /v1/billing-details/add-or-update
    as: bob
    body: {firstName: "Ada", count: 2, ratio: 1.5, flag: true, none: null, quoted: "7"}
    expect: 400
  - GET: /_sim/health
)");
  EXPECT_EQ(s.header.name, "Smoke");
  EXPECT_EQ(s.header.clockMode, "real");
  EXPECT_EQ(s.header.clockStart, model::ParseIso("2026-02-01T00:00:00.000Z"));
  EXPECT_EQ(s.header.seed, 42u);
  EXPECT_EQ(s.header.vars["limit"], 3);
  ASSERT_EQ(s.steps.size(), 3u);
  const ScenarioStep& a = s.steps[0];
  EXPECT_EQ(a.kind, StepKind::kRequest);
  EXPECT_EQ(a.line, 9);
  EXPECT_EQ(a.call.method, "GET");
  EXPECT_EQ(a.call.path, "/v1/domain/list");
  EXPECT_EQ(a.call.query, (json{{"contains", "north"}, {"page", "2"}}));
  EXPECT_EQ(a.call.as, "alice");  // the header's default account
  EXPECT_EQ(a.call.workspace, "ws_labs");
  EXPECT_EQ(a.expectStatus, 200);
  EXPECT_EQ(a.save.at(0), (std::pair<std::string, std::string>{"first", "data.domains.0.id"}));
  const ScenarioStep& b = s.steps[1];
  EXPECT_EQ(b.call.as, "bob");
  // YAML 1.2 core typing; quoted stays text.
  EXPECT_EQ(*b.call.body, (json{{"firstName", "Ada"}, {"count", 2}, {"ratio", 1.5}, {"flag", true},
                                {"none", nullptr}, {"quoted", "7"}}));
  EXPECT_EQ(b.expectStatus, 400);
  EXPECT_EQ(s.steps[2].call.as, "");  // /_sim calls take no API key
  EXPECT_TRUE(s.steps[2].expectStatus.is_null());  // default: any 2xx
}

TEST(ScenarioParse, ControlStepsLowerToTheSimContract) {
  Scenario s = Parse(R"(
name: Control
steps:
  - advance: 2h30m
  - at: "2026-01-03T00:00:00.000Z"
  - sink: hook
    config: {status: 500}
  - update_sink: hook
    config: {status: 200}
  - fault: {method: GET, path: /v1/domain/list, status: 500, times: 2}
  - clear_faults: true
  - transition: {domain: dom_nw_01, status: CONNECTED}
  - wallet: {as: alice, balance: 10}
  - trigger: {type: domain.updated, as: alice, objectId: dom_nw_01}
  - tenant: carol
  - expect_state: {accounts: {$contains: [{id: acc_alice}]}}
  - expect_events: {type: domain.updated, as: alice, count: 1}
  - expect_deliveries: {sink: hook, count: {$gte: 1}, signature_verified: true}
  - set: {x: "${hook.id}"}
  - repeat: {times: 3, var: n, steps: [{advance: 1m}, {GET: "/_sim/sinks/${hook.id}"}]}
)");
  auto call = [&](size_t i) { return s.steps.at(i).call; };
  EXPECT_EQ(call(0).path, "/_sim/clock/advance");
  EXPECT_EQ(*call(0).body, (json{{"seconds", 9000.0}}));
  EXPECT_EQ(call(1).method, "PUT");
  EXPECT_EQ(*call(1).body, (json{{"now", "2026-01-03T00:00:00.000Z"}}));
  EXPECT_EQ(s.steps[2].bind, "hook");
  EXPECT_EQ(call(2).path, "/_sim/sinks");
  EXPECT_EQ(*call(2).body, (json{{"status", 500}}));
  EXPECT_EQ(call(3).method, "PATCH");
  EXPECT_EQ(call(3).path, "/_sim/sinks/${hook.id}");
  EXPECT_EQ(call(4).path, "/_sim/faults");
  EXPECT_EQ(call(5).method, "DELETE");
  EXPECT_EQ(call(6).path, "/_sim/domains/dom_nw_01/transition");
  EXPECT_EQ(*call(6).body, (json{{"status", "CONNECTED"}}));
  EXPECT_EQ(call(7).method, "PUT");
  EXPECT_EQ(call(7).path, "/_sim/wallet");
  EXPECT_EQ(call(7).as, "alice");
  EXPECT_EQ(*call(7).body, (json{{"balance", 10}}));
  EXPECT_EQ(call(8).path, "/_sim/events");
  EXPECT_EQ(*call(8).body, (json{{"type", "domain.updated"}, {"objectId", "dom_nw_01"}}));
  EXPECT_EQ(call(9).path, "/_sim/tenants");
  EXPECT_EQ(call(10).path, "/_sim/state");
  EXPECT_EQ(call(11).path, "/_sim/events");
  EXPECT_EQ(s.steps[11].list.filter, (json{{"type", "domain.updated"}}));
  EXPECT_EQ(*s.steps[11].list.count, 1);
  EXPECT_EQ(s.steps[12].sinkVar, "hook");
  EXPECT_EQ(s.steps[12].signatureVerified, true);
  EXPECT_EQ(s.steps[13].kind, StepKind::kSet);
  const ScenarioStep& rep = s.steps[14];
  EXPECT_EQ(rep.times, 3);
  EXPECT_EQ(rep.loopVar, "n");
  ASSERT_EQ(rep.steps.size(), 2u);
  EXPECT_EQ(rep.steps[1].call.path, "/_sim/sinks/${hook.id}");
}

// ---- parser: errors name the file, the line and what was expected -------------------------------

TEST(ScenarioParseErrors, UnknownHeaderKey) {
  EXPECT_EQ(ParseError("name: x\nfixture: a.yaml\nsteps: [{advance: 1m}]\n"),
            "t.yaml:2: the scenario header: unknown key 'fixture' (expected one of name, description, fixtures, "
            "clock, seed, reset, as, vars, accounts, steps)");
}

TEST(ScenarioParseErrors, MisspeltStepKeyPointsAtIt) {
  const std::string e = ParseError("name: x\nsteps:\n  - advance: 1m\n  - name: list\n    GETT: /v1/domain/list\n");
  EXPECT_EQ(e.rfind("t.yaml:5: step 2: unknown key 'GETT'; a step needs exactly one of GET, POST", 0), 0u) << e;
}

TEST(ScenarioParseErrors, UnknownKeyBesideAStep) {
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /v1/domain/list\n    expct: 200\n"),
            "t.yaml:4: step 1 (GET): unknown key 'expct' (expected one of GET, name, as, workspace, headers, query, "
            "body, raw_body, content_type, expect, save)");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - advance: 1m\n    body: {}\n"),
            "t.yaml:4: step 1 (advance): unknown key 'body' (expected one of name, as, expect, save, advance)");
}

TEST(ScenarioParseErrors, DuplicateKeys) {
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    expect: 200\n    expect: 404\n"),
            "t.yaml:5: step 1 (GET): duplicate key 'expect' (first on line 4)");
}

TEST(ScenarioParseErrors, TwoThingsInOneStep) {
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    advance: 1m\n"),
            "t.yaml:3: step 1: has GET, advance; a step does exactly one of them (split it into several steps)");
}

TEST(ScenarioParseErrors, MalformedValues) {
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - advance: soon\n"),
            "t.yaml:3: step 1: advance: 'soon' is not " + std::string(model::msg::kDurationGrammar));
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - at: tomorrow\n"),
            "t.yaml:3: step 1: at: expected an ISO 8601 UTC time like 2026-01-02T09:00:00.000Z, got 'tomorrow'");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: v1/domain/list\n"),
            "t.yaml:3: step 1: the path must start with '/' (or be a URL or a ${variable} holding one), got "
            "'v1/domain/list'");
  EXPECT_EQ(ParseError("name: x\nclock: {mode: fast}\nsteps: [{advance: 1m}]\n"),
            "t.yaml:2: clock.mode: expected manual or real");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - repeat: {times: 0, steps: [{advance: 1m}]}\n"),
            "t.yaml:3: step 1: repeat times must be 1..10000");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    expect: {status: two hundred}\n"),
            "t.yaml:4: step 1: expect.status: expected a status code or a matcher like {$gte: 400}");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - transition: {status: ACTIVE}\n"),
            "t.yaml:3: step 1: transition needs `domain:` (a domain id) and `status:`");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - expect_events: {type: domain.updated}\n"),
            "t.yaml:3: step 1: expect_events checks nothing; give count, items, contains");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - expect_deliveries: {count: 1, signature_verified: true}\n"),
            "t.yaml:3: step 1: signature_verified needs `sink:` (the sink that recorded the requests)");
}

TEST(ScenarioParseErrors, HeaderProblems) {
  EXPECT_EQ(ParseError("description: no name\nsteps: [{advance: 1m}]\n"),
            "t.yaml:1: the scenario header: `name` is required");
  EXPECT_EQ(ParseError("name: x\n"), "t.yaml:1: the scenario header: `steps` is missing (a list of steps)");
  EXPECT_EQ(ParseError("name: x\nsteps: []\n"), "t.yaml:2: steps: expected a non-empty list of steps");
  EXPECT_EQ(ParseError("name: x\nreset: false\nseed: 3\nsteps: [{advance: 1m}]\n"),
            "t.yaml:2: reset: false keeps the running emsim's state, so fixtures, clock.start and seed cannot apply");
  EXPECT_EQ(ParseError("name: x\nfixtures: nowhere.yaml\nsteps: [{advance: 1m}]\n"),
            "t.yaml:2: fixtures: nowhere.yaml: no such file");
  EXPECT_EQ(ParseError("- just\n- a list\n"), "t.yaml:1: a scenario is a map with at least `name` and `steps`");
}

TEST(ScenarioParseErrors, BadYamlNamesTheLine) {
  const std::string e = ParseError("name: x\nsteps:\n  - GET: /a\n    query: {id: a${b}\n");
  EXPECT_EQ(e.rfind("t.yaml:", 0), 0u);
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
}

TEST(ScenarioParseErrors, MatchersAreCheckedBeforeRunning) {
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    expect: {body: {id: {$mtch: uuid}}}\n"),
            "t.yaml:4: at /id: unknown matcher $mtch (expected one of $contains, $exact, $exists, $gt, $gte, $len, "
            "$lt, $lte, $match, $not, $one_of, $regex, $type)");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    expect:\n      body:\n        id: {$match: guid}\n"),
            "t.yaml:6: at /id: $match needs one of uuid, uuid4, uuid7, event_id, iso8601, url, https_url, email, "
            "numeric_text, whsec, non_empty, got \"guid\"");
  EXPECT_NE(ParseError("name: x\nsteps:\n  - GET: /a\n    expect: {body: {id: {$regex: \"(\"}}}\n")
                .find("t.yaml:4: at /id: $regex \"(\" does not compile"),
            std::string::npos);
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    expect: {body: {a: {$type: text}}}\n"),
            "t.yaml:4: at /a: $type needs one of string, number, integer, boolean, object, array, null; got \"text\"");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    expect: {body: {a: {$gte: 1, id: 2}}}\n"),
            "t.yaml:4: at /a: a matcher's keys all start with '$'; this object mixes them with field names");
}

TEST(ScenarioParseErrors, VariablesMustBeDefinedBeforeUse) {
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: \"/v1/mailbox/details?id=${mbx}\"\n"),
            "t.yaml:3: ${mbx}: no variable 'mbx' is defined before this step (defined so far: none); `save`, `set`, "
            "`sink`, `tenant`, `repeat` and the header's `vars` define variables");
  // A step cannot use what it saves itself; the next one can.
  EXPECT_NE(ParseError("name: x\nsteps:\n  - GET: \"/a/${id}\"\n    save: {id: data.id}\n"), "");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: /a\n    save: {id: data.id}\n  - GET: \"/a/${id}\"\n"), "");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - sink: s\n  - GET: \"/_sim/sinks/${s.id}\"\n"), "");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - repeat: {times: 2, steps: [{GET: \"/a/${i}\"}]}\n"), "");
  EXPECT_EQ(ParseError("name: x\nvars: {k: 1}\nsteps:\n  - GET: \"/a/${k}\"\n"), "");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - update_sink: nope\n    config: {status: 200}\n"),
            "t.yaml:3: ${nope}: no variable 'nope' is defined before this step (defined so far: none); `save`, `set`, "
            "`sink`, `tenant`, `repeat` and the header's `vars` define variables");
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: \"/a/${}\"\n"),
            "t.yaml:3: ${}: expected a variable name like ${endpointId} or ${sink.url}");
  // $${ is a literal ${.
  EXPECT_EQ(ParseError("name: x\nsteps:\n  - GET: \"/a/$${x}\"\n"), "");
}

// ---- matchers -----------------------------------------------------------------------------------

TEST(ScenarioMatch, ObjectsMatchPartially) {
  const json actual = {{"status", 200}, {"data", {{"id", "a"}, {"extra", 1}}}};
  EXPECT_TRUE(MatchJson(json{{"data", {{"id", "a"}}}}, actual).empty());
  EXPECT_EQ(Lines(MatchJson(json{{"data", {{"id", "b"}, {"missing", 1}}}}, actual)),
            (std::vector<std::string>{"/data/id: expected \"b\", got \"a\"", "/data/missing: missing (expected 1)"}));
  EXPECT_EQ(Lines(MatchJson(json{{"data", {{"id", "a"}}}}, json{{"data", json::array()}})),
            (std::vector<std::string>{"/data: expected an object {\"id\":\"a\"}, got []"}));
}

TEST(ScenarioMatch, ScalarsCompareAsJson) {
  EXPECT_TRUE(MatchJson(2, 2.0).empty());
  EXPECT_EQ(Lines(MatchJson(2, "2")), (std::vector<std::string>{": expected 2, got \"2\""}));
  EXPECT_EQ(Lines(MatchJson(nullptr, false)), (std::vector<std::string>{": expected null, got false"}));
}

TEST(ScenarioMatch, ListsByPositionWithTheirLength) {
  EXPECT_TRUE(MatchJson(json{{{"id", 1}}, {{"id", 2}}}, json{{{"id", 1}, {"x", 0}}, {{"id", 2}}}).empty());
  EXPECT_EQ(Lines(MatchJson(json{{{"id", 1}}}, json{{{"id", 2}}, {{"id", 1}}})),
            (std::vector<std::string>{
                ": expected 1 item(s), got 2 (use {$contains: [...]} to match some items in any order)",
                "/0/id: expected 1, got 2"}));
}

TEST(ScenarioMatch, ContainsFindsDistinctItemsInAnyOrder) {
  const json list = json::array({{{"type", "a"}, {"n", 1}}, {{"type", "b"}, {"n", 2}}, {{"type", "a"}, {"n", 3}}});
  EXPECT_TRUE(MatchJson(json{{"$contains", {{{"type", "b"}}, {{"type", "a"}}}}}, list).empty());
  EXPECT_TRUE(MatchJson(json{{"$contains", {{{"type", "a"}}, {{"type", "a"}}}}}, list).empty());
  // Each expected item needs its own actual item.
  EXPECT_EQ(Lines(MatchJson(json{{"$contains", {{{"type", "b"}}, {{"type", "b"}}}}}, list)),
            (std::vector<std::string>{
                ": expected an item matching {\"type\":\"b\"} among 3 item(s), none matches; closest is item 0 "
                "(/0/type: expected \"b\", got \"a\")"}));
  EXPECT_TRUE(MatchJson(json{{"$contains", "world"}}, "hello world").empty());
  EXPECT_EQ(Lines(MatchJson(json{{"$contains", "mars"}}, "hello world")),
            (std::vector<std::string>{": expected text containing \"mars\", got \"hello world\""}));
}

TEST(ScenarioMatch, NamedFormatsRegexAndTypes) {
  EXPECT_TRUE(MatchJson(json{{"$match", "uuid4"}}, "0b7e4a4e-2d5e-4a7b-9c1d-3e5f7a9b1c2d").empty());
  EXPECT_FALSE(MatchJson(json{{"$match", "uuid4"}}, "0b7e4a4e-2d5e-7a7b-9c1d-3e5f7a9b1c2d").empty());
  EXPECT_TRUE(MatchJson(json{{"$match", "event_id"}}, "evt_018f3c2a-1b2c-7d3e-8f4a-5b6c7d8e9f0a").empty());
  EXPECT_TRUE(MatchJson(json{{"$match", "iso8601"}}, "2026-01-01T09:00:00.000Z").empty());
  EXPECT_EQ(Lines(MatchJson(json{{"$match", "iso8601"}}, "2026-01-01 09:00")),
            (std::vector<std::string>{
                ": expected an ISO 8601 UTC timestamp with milliseconds, got \"2026-01-01 09:00\""}));
  EXPECT_TRUE(MatchJson(json{{"$regex", "^whsec_"}}, "whsec_abc").empty());
  EXPECT_EQ(Lines(MatchJson(json{{"$regex", "^whsec_"}}, 12)),
            (std::vector<std::string>{": expected text matching /^whsec_/, got 12"}));
  EXPECT_TRUE(MatchJson(json{{"$type", "integer"}}, 3.0).empty());
  EXPECT_FALSE(MatchJson(json{{"$type", "integer"}}, 3.5).empty());
  EXPECT_TRUE(MatchJson(json{{"$type", "null"}}, nullptr).empty());
}

TEST(ScenarioMatch, RangesAcceptNumbersAndNumericText) {
  EXPECT_TRUE(MatchJson(json{{"$gte", 1}, {"$lte", 5}}, 5).empty());
  EXPECT_TRUE(MatchJson(json{{"$gt", 12}}, "12.99").empty());
  EXPECT_EQ(Lines(MatchJson(json{{"$gte", 1}, {"$lte", 5}}, 6)),
            (std::vector<std::string>{": expected a number <= 5, got 6"}));
  EXPECT_EQ(Lines(MatchJson(json{{"$lt", 5}}, "five")),
            (std::vector<std::string>{": expected a number < 5, got \"five\""}));
}

TEST(ScenarioMatch, LengthExistsOneOfNotExact) {
  EXPECT_TRUE(MatchJson(json{{"$len", 2}}, json{1, 2}).empty());
  EXPECT_TRUE(MatchJson(json{{"$len", {{"$gte", 1}}}}, "ab").empty());
  EXPECT_EQ(Lines(MatchJson(json{{"$len", 3}}, json{1, 2})),
            (std::vector<std::string>{": expected length 3, got 2 ([1,2])"}));
  EXPECT_TRUE(MatchJson(json{{"secret", {{"$exists", false}}}}, json{{"id", 1}}).empty());
  EXPECT_EQ(Lines(MatchJson(json{{"secret", {{"$exists", false}}}}, json{{"secret", "whsec_x"}})),
            (std::vector<std::string>{"/secret: expected to be absent, got \"whsec_x\""}));
  EXPECT_TRUE(MatchJson(json{{"$one_of", {"PENDING", "CONNECTED"}}}, "CONNECTED").empty());
  EXPECT_EQ(Lines(MatchJson(json{{"$one_of", {"PENDING", "CONNECTED"}}}, "ACTIVE")),
            (std::vector<std::string>{": expected one of [\"PENDING\",\"CONNECTED\"], got \"ACTIVE\""}));
  EXPECT_TRUE(MatchJson(json{{"$not", "ACTIVE"}}, "PENDING").empty());
  EXPECT_FALSE(MatchJson(json{{"$not", "ACTIVE"}}, "ACTIVE").empty());
  // $exact turns partial matching off for that value.
  EXPECT_TRUE(MatchJson(json{{"a", 1}}, json{{"a", 1}, {"b", 2}}).empty());
  EXPECT_FALSE(MatchJson(json{{"$exact", {{"a", 1}}}}, json{{"a", 1}, {"b", 2}}).empty());
}

TEST(ScenarioMatch, MatcherTreeCheck) {
  EXPECT_FALSE(CheckMatcherTree(json{{"data", {{"id", {{"$match", "uuid"}}}}}}));
  EXPECT_EQ(CheckMatcherTree(json{{"list", {1, {{"$len", true}}}}}).value_or(""), "at /list/1: $len needs a whole number or a matcher like {$gte: 1}");
  EXPECT_EQ(CheckMatcherTree(json{{"a", {{"$exists", "yes"}}}}).value_or(""), "at /a: $exists needs true or false");
  EXPECT_EQ(CheckMatcherTree(json{{"a", {{"$one_of", json::array()}}}}).value_or(""), "at /a: $one_of needs a non-empty list");
  EXPECT_EQ(CheckMatcherTree(json{{"a", {{"$not", {{"$bogus", 1}}}}}}).value_or("").substr(0, 29), "at /a: unknown matcher $bogus");
}

TEST(ScenarioMatch, DiffOutputIsOneLinePerMismatch) {
  const auto ms = MatchJson(json{{"data", {{"walletBalance", {{"currentBalance", 246}}}, {"status", "ACTIVE"}}}},
                            json{{"data", {{"walletBalance", {{"currentBalance", 248}}}, {"status", "PENDING"}}}});
  EXPECT_EQ(FormatMismatches(ms, "  "),
            "  /data/status: expected \"ACTIVE\", got \"PENDING\"\n"
            "  /data/walletBalance/currentBalance: expected 246, got 248\n");
  EXPECT_EQ(FormatMismatches(MatchJson(1, 2), ""), "(body): expected 1, got 2\n");
  EXPECT_EQ(Brief(json(std::string(300, 'x')), 10), "\"xxxxxxxxx...");
}

// ---- variables ----------------------------------------------------------------------------------

TEST(ScenarioVars, InterpolationKeepsTypesOrSplicesText) {
  const json vars = {{"n", 3}, {"sink", {{"id", "snk_1"}, {"url", "http://127.0.0.1:1/x"}}}, {"list", {"a", "b"}}};
  EXPECT_EQ(Interpolate("${n}", vars), 3);
  EXPECT_EQ(Interpolate("${sink}", vars), vars["sink"]);
  EXPECT_EQ(Interpolate("/_sim/sinks/${sink.id}?n=${n}", vars), "/_sim/sinks/snk_1?n=3");
  EXPECT_EQ(Interpolate("${list.1}${list[0]}", vars), "ba");
  EXPECT_EQ(Interpolate("$${n} is literal", vars), "${n} is literal");
  EXPECT_EQ(Interpolate(json{{"k", {"${n}", "x${n}"}}}, vars), (json{{"k", {3, "x3"}}}));
  try {
    Interpolate("${sink.secret}", vars);
    FAIL() << "no error";
  } catch (const VariableError& e) {
    EXPECT_EQ(std::string(e.what()),
              "${sink.secret}: 'sink' holds {\"id\":\"snk_1\",\"url\":\"http://127.0.0.1:1/x\"}, which has nothing at .secret");
  }
  EXPECT_THROW(Interpolate("${ghost}", vars), VariableError);
}

TEST(ScenarioVars, LookupByPointerOrDottedPath) {
  const json doc = {{"data", {{"domains", {{{"id", "d1"}}, {{"id", "d2"}}}}}}, {"a/b", 1}};
  EXPECT_EQ(LookupPath(doc, "/data/domains/1/id"), json("d2"));
  EXPECT_EQ(LookupPath(doc, "data.domains.0.id"), json("d1"));
  EXPECT_EQ(LookupPath(doc, "/a~1b"), json(1));
  EXPECT_FALSE(LookupPath(doc, "data.domains.5.id"));
  EXPECT_FALSE(LookupPath(doc, "/data/nope"));
}

// ---- reports ------------------------------------------------------------------------------------

ScenarioReport FailedReport() {
  ScenarioReport r;
  r.file = "scenarios/x.yaml";
  r.name = "X & <Y>";
  StepReport ok;
  ok.label = "1";
  ok.line = 5;
  ok.summary = "GET /v1/workspace/list as alice -> 200";
  ok.outcome = StepOutcome::kPassed;
  StepReport bad;
  bad.label = "2";
  bad.line = 9;
  bad.name = "buy";
  bad.summary = "POST /v1/domain/buy-domain as alice -> 400";
  bad.outcome = StepOutcome::kFailed;
  bad.problems = {"status: expected 200, got 400"};
  bad.request = {{"method", "POST"}, {"path", "/v1/domain/buy-domain"}, {"body", {{"domainName", "x.com"}}}};
  bad.response = {{"status", 400}, {"body", {{"status", 400}, {"message", "Validation failed"}}}};
  StepReport skipped;
  skipped.label = "3";
  skipped.line = 14;
  skipped.summary = "advance 5m";
  skipped.outcome = StepOutcome::kSkipped;
  r.steps = {ok, bad, skipped};
  r.passed = 1;
  r.failed = 1;
  r.skipped = 1;
  return r;
}

TEST(ScenarioReportFormat, TextShowsRequestResponseAndDiffOfTheFailure) {
  const std::string text = FormatReportText(FailedReport());
  EXPECT_NE(text.find("  ok   1 GET /v1/workspace/list as alice -> 200  (line 5)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  FAIL 2 buy: POST /v1/domain/buy-domain as alice -> 400  (line 9)\n"
                      "         expected vs actual:\n"
                      "           status: expected 200, got 400\n"
                      "         request: POST /v1/domain/buy-domain\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("         response: 400\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\"message\": \"Validation failed\""), std::string::npos) << text;
  EXPECT_NE(text.find("  skip 3 advance 5m  (line 14)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("FAILED: X & <Y>: 1 passed, 1 failed, 1 skipped"), std::string::npos) << text;
  const std::string failures = FormatReportText(FailedReport(), true);
  EXPECT_EQ(failures.find("  ok   1"), std::string::npos);
  EXPECT_NE(failures.find("  FAIL 2"), std::string::npos);
}

TEST(ScenarioReportFormat, JsonAndJUnit) {
  const json j = ReportToJson(FailedReport());
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["counts"], (json{{"passed", 1}, {"failed", 1}, {"skipped", 1}}));
  EXPECT_EQ(j["steps"][1]["outcome"], "failed");
  EXPECT_EQ(j["steps"][1]["problems"][0], "status: expected 200, got 400");
  EXPECT_EQ(j["steps"][1]["response"]["status"], 400);
  EXPECT_FALSE(j["steps"][0].contains("problems"));
  const std::string xml = FormatJUnit({FailedReport()});
  EXPECT_NE(xml.find("<testsuites name=\"emsim scenarios\" tests=\"3\" failures=\"1\" skipped=\"1\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"X &amp; &lt;Y&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("line=\"9\"><failure message=\"status: expected 200, got 400\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"an earlier step failed\"/>"), std::string::npos) << xml;
}

}  // namespace
}  // namespace emsim::scenario
