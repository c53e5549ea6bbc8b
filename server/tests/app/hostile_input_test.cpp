// Hostile input never crashes emsim, never answers 5xx and never changes state (STYLE.md habit 11:
// limits before work). Each test sends one of the inputs that once crashed or poisoned the server,
// expects a clear 4xx in the spec's shape (Part 7), then checks the server still answers and the
// state is what it was.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "api/routes.hpp"
#include "app/router.hpp"
#include "core/json_out.hpp"
#include "core/json_limits.hpp"
#include "core/messages.hpp"
#include "fixture/fixtures.hpp"
#include "scenario/match.hpp"
#include "scenario/parse.hpp"
#include "fixture/yaml_doc.hpp"
#include "tests/support/test_server.hpp"

namespace emsim {
namespace {

using testing::HttpResult;
using testing::kAliceKey;
using testing::TestServer;

std::string Nested(size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

// `{"data": {"a": {"a": ... }}}` `depth` levels deep below "data".
std::string DeepObjectUnder(const std::string& prefix, size_t depth) {
  std::string s = prefix;
  for (size_t i = 0; i < depth; ++i) s += "{\"a\":";
  s += "1";
  s += std::string(depth, '}');
  s += "}";
  return s;
}

// A 4xx in the spec's shape: {status, message, errors[{msg, param, location}]} for 400,
// {status, message, errorId} otherwise; the raw answer is valid JSON (UTF-8).
void ExpectClientError(const HttpResult& r, int status) {
  EXPECT_EQ(r.status, status) << r.raw.substr(0, 500);
  ASSERT_TRUE(r.body.is_object()) << "not JSON: " << r.raw.substr(0, 200);
  EXPECT_EQ(r.body["status"], status);
  EXPECT_TRUE(r.body["message"].is_string());
  if (status == 400) {
    ASSERT_TRUE(r.body["errors"].is_array());
    ASSERT_FALSE(r.body["errors"].empty());
    for (const auto& e : r.body["errors"]) {
      EXPECT_TRUE(e["msg"].is_string());
      EXPECT_TRUE(e["param"].is_string());
      EXPECT_TRUE(e["location"].is_string());
    }
  } else {
    EXPECT_TRUE(r.body["errorId"].is_string());
  }
}

// The server answers, its journal lists, and its state is `before`.
void ExpectAliveAndUnchanged(TestServer& server, const json& before) {
  EXPECT_EQ(server.Get("/_sim/health", "").status, 200);
  const HttpResult journal = server.Get("/_sim/requests", "");
  EXPECT_EQ(journal.status, 200) << journal.raw.substr(0, 300);
  EXPECT_TRUE(journal.body.is_object());
  const HttpResult after = server.Get("/_sim/state", "");
  ASSERT_EQ(after.status, 200);
  EXPECT_TRUE(after.body == before) << "the state changed";
}

json StateOf(TestServer& server) {
  const HttpResult r = server.Get("/_sim/state", "");
  EXPECT_EQ(r.status, 200);
  return r.body;
}

std::string MessageOf(const HttpResult& r) { return r.body.is_object() ? r.body.value("message", "") : ""; }

// ---- the limited JSON parser (model) -----------------------------------------------------------

TEST(JsonLimits, RefusesEachLimitWithAMessageNamingIt) {
  const model::JsonLimits small{4, 8, 3, 20};
  auto depth = model::ParseJsonLimited("[[[[[1]]]]]", small);
  ASSERT_FALSE(depth);
  EXPECT_NE(depth.error().message.find("deeper than 4 levels"), std::string::npos) << depth.error().message;
  EXPECT_EQ(depth.error().errors.at(0).param, "body");
  EXPECT_TRUE(model::ParseJsonLimited("[[[[1]]]]", small)) << "exactly the limit is fine";

  auto str = model::ParseJsonLimited(R"(["123456789"])", small);
  ASSERT_FALSE(str);
  EXPECT_NE(str.error().message.find("longer than 8 bytes"), std::string::npos);
  auto key = model::ParseJsonLimited(R"({"123456789": 1})", small);
  ASSERT_FALSE(key);
  EXPECT_NE(key.error().message.find("longer than 8 bytes"), std::string::npos);

  auto items = model::ParseJsonLimited("[1,2,3,4]", small);
  ASSERT_FALSE(items);
  EXPECT_NE(items.error().message.find("more than 3 items"), std::string::npos);
  auto members = model::ParseJsonLimited(R"({"a":1,"b":2,"c":3,"d":4})", small);
  ASSERT_FALSE(members);
  EXPECT_NE(members.error().message.find("more than 3 members"), std::string::npos);

  auto values = model::ParseJsonLimited("[[1,2,3],[1,2,3],[1,2,3],[1,2,3]]", {4, 8, 4, 10});
  ASSERT_FALSE(values);
  EXPECT_NE(values.error().message.find("more than 10 values"), std::string::npos);
}

TEST(JsonLimits, NumbersOutsideInt64AreRefusedNotRounded) {
  for (const char* text : {"[1e400]", "[-1e400]", "[9223372036854775808]", "[18446744073709551616]",
                           "[-9223372036854775809]", "[1e19]", "[123456789012345678901234567890]"}) {
    auto r = model::ParseJsonLimited(text);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().message.find("out of range"), std::string::npos) << text << ": " << r.error().message;
  }
  auto max = model::ParseJsonLimited("[9223372036854775807, -9223372036854775808, 1.5e18]");
  ASSERT_TRUE(max);
  EXPECT_EQ((*max)[0].get<std::int64_t>(), INT64_MAX);
  EXPECT_EQ((*max)[1].get<std::int64_t>(), INT64_MIN);
}

TEST(JsonLimits, ThirtyThousandLevelsAreRefusedWithoutBuildingThem) {
  auto r = model::ParseJsonLimited(Nested(30000));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("deeper than 64 levels"), std::string::npos);
}

TEST(JsonLimits, ParsesWhatPlainParseParsesWithinTheLimits) {
  const std::string text = R"({"a":[1,2.5,-3,"x\u00e9",true,null,{"b":{}}],"c":"","d":[]})";
  auto r = model::ParseJsonLimited(text);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, json::parse(text));
  auto dup = model::ParseJsonLimited(R"({"a":1,"a":2})");
  ASSERT_TRUE(dup);
  EXPECT_EQ(*dup, json::parse(R"({"a":1,"a":2})"));  // the last one wins, as nlohmann's
}

TEST(JsonLimits, SyntaxErrorsQuoteOnlyValidUtf8) {
  auto r = model::ParseJsonLimited("{\"a\": \"\xff\xfe\"}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.rfind("Malformed JSON body at line 1, column ", 0), 0u) << r.error().message;
  EXPECT_TRUE(model::IsValidUtf8(r.error().message));
  auto bad_literal = model::ParseJsonLimited("\n  tru\xc3");
  ASSERT_FALSE(bad_literal);
  EXPECT_NE(bad_literal.error().message.find("line 2"), std::string::npos) << bad_literal.error().message;
  EXPECT_TRUE(model::IsValidUtf8(bad_literal.error().message));
}

TEST(Utf8, ValidityPrefixAndSafeText) {
  EXPECT_TRUE(model::IsValidUtf8("plain ascii, long enough for the 8-byte path"));
  EXPECT_TRUE(model::IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(model::IsValidUtf8("\xc3"));                  // cut sequence
  EXPECT_FALSE(model::IsValidUtf8("\xc0\xaf"));              // overlong
  EXPECT_FALSE(model::IsValidUtf8("\xed\xa0\x80"));          // surrogate
  EXPECT_FALSE(model::IsValidUtf8("\xf4\x90\x80\x80"));      // above U+10FFFF
  EXPECT_FALSE(model::IsValidUtf8("abcdefgh\xff"));
  // A cut inside "é" backs up to before it.
  EXPECT_EQ(model::Utf8Prefix("ab\xc3\xa9", 3), "ab");
  EXPECT_EQ(model::Utf8Prefix("ab\xc3\xa9", 4), "ab\xc3\xa9");
  EXPECT_EQ(model::Utf8Prefix("a\xf0\x9f\x98\x80", 4), "a");
  EXPECT_EQ(model::SafeText("ok"), "ok");
  EXPECT_EQ(model::SafeText("a\xff" "b"), "a\xef\xbf\xbd" "b");
  const std::string cut = model::SafeText(std::string(10, 'x') + "\xc3\xa9", 11);
  EXPECT_EQ(cut, std::string(10, 'x') + "...(12 bytes)");
  EXPECT_TRUE(model::IsValidUtf8(cut));
}

TEST(Numbers, ParseIntegerChecksRangeAndShape) {
  EXPECT_EQ(model::ParseInteger("42"), 42);
  EXPECT_EQ(model::ParseInteger("-7"), -7);
  EXPECT_EQ(model::ParseInteger("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(model::ParseInteger("9223372036854775808"));
  EXPECT_FALSE(model::ParseInteger("99999999999999999999999"));
  EXPECT_FALSE(model::ParseInteger(""));
  EXPECT_FALSE(model::ParseInteger("-"));
  EXPECT_FALSE(model::ParseInteger("+1"));
  EXPECT_FALSE(model::ParseInteger(" 1"));
  EXPECT_FALSE(model::ParseInteger("1e3"));
  EXPECT_FALSE(model::ParseInteger("5", 6, 10));
}

// ---- requests ------------------------------------------------------------------------------------

TEST(HostileRequests, A60kEmailIsRefusedBeforeAnyRegexAndBeforeAuthentication) {
  TestServer server;
  const json before = StateOf(server);
  const std::string email = std::string(60000, 'a') + "@example.com";
  for (const std::string& key : {std::string(kAliceKey), std::string()}) {
    const HttpResult r = server.Post("/v1/domain/add-dmarc", {{"email", email}}, key);
    if (key.empty()) {
      ExpectClientError(r, 401);
    } else {
      ExpectClientError(r, 400);
      EXPECT_EQ(r.body["errors"][0]["param"], "email");
      EXPECT_NE(r.body["errors"][0]["msg"].get<std::string>().find("at most 4096 bytes"), std::string::npos) << r.raw;
    }
  }
  // Each element of an array under a pattern is bounded too (webhook URLs, event names...).
  const HttpResult url = server.Post("/v2/webhooks/endpoints",
                                     {{"url", "https://x.example/" + std::string(70000, 'p')}, {"enabled_events", {"domain.updated"}}});
  EXPECT_GE(url.status, 400);
  EXPECT_LT(url.status, 500) << url.raw.substr(0, 300);
  ExpectAliveAndUnchanged(server, before);
}

TEST(HostileRequests, ThirtyThousandLevelsDeepIsA400AndTheJournalStillLists) {
  TestServer server;
  const json before = StateOf(server);
  const HttpResult r = server.Send("POST", "/v1/domain/add-dmarc", Nested(30000), kAliceKey, {});
  ExpectClientError(r, 400);
  EXPECT_NE(MessageOf(r).find("deeper than 64 levels"), std::string::npos) << MessageOf(r);
  const HttpResult obj = server.Send("POST", "/v1/domain/add-dmarc", Nested(30000, '{', '}'), kAliceKey, {});
  ExpectClientError(obj, 400);  // `{{` is a syntax error before it is deep
  const HttpResult deep_value = server.Send("POST", "/v1/domain/add-dmarc", DeepObjectUnder("{\"email\":", 30000), kAliceKey, {});
  ExpectClientError(deep_value, 400);
  ExpectAliveAndUnchanged(server, before);
}

TEST(HostileRequests, DeepEventAndFaultBodiesAreRefused) {
  TestServer server;
  const json before = StateOf(server);
  const std::string event = DeepObjectUnder(
      std::string("{\"type\":\"workspace.invitations\",\"apiKey\":\"") + kAliceKey + "\",\"data\":", 30000);
  ExpectClientError(server.Send("POST", "/_sim/events", event, "", {}), 400);
  const std::string fault = DeepObjectUnder("{\"path\":\"/v1/workspace/list\",\"body\":", 30000);
  ExpectClientError(server.Send("POST", "/_sim/faults", fault, "", {}), 400);
  const std::string patch = "{\"path\":\"/v1/workspace/list\",\"patch\":[{\"op\":\"add\",\"path\":\"/x\",\"value\":" +
                            DeepObjectUnder("", 30000) + "}]}";
  ExpectClientError(server.Send("POST", "/_sim/faults", patch, "", {}), 400);
  ExpectAliveAndUnchanged(server, before);
  // Just inside the limit is accepted, and its journal entry (redacted recursively) lists.
  const std::string ok_fault = DeepObjectUnder("{\"path\":\"/v1/workspace/list\",\"times\":1,\"body\":", 60);
  EXPECT_EQ(server.Send("POST", "/_sim/faults", ok_fault, "", {}).status, 201);
  EXPECT_EQ(server.Get("/_sim/requests", "").status, 200);
  EXPECT_EQ(server.Get("/_sim/faults", "").status, 200);
}

TEST(HostileRequests, NumbersBeyondRangeAreA400NeverInfinity) {
  TestServer server;
  const json before = StateOf(server);
  for (const char* n : {"1e400", "-1e400", "9223372036854775808", "18446744073709551616", "1e300"}) {
    const std::string body = std::string("{\"path\":\"/v1/workspace/list\",\"status\":") + n + "}";
    const HttpResult r = server.Send("POST", "/_sim/faults", body, "", {});
    ExpectClientError(r, 400);
    EXPECT_NE(MessageOf(r).find("out of range"), std::string::npos) << n << ": " << MessageOf(r);
    const HttpResult advance = server.Send("POST", "/_sim/clock/advance", std::string("{\"seconds\":") + n + "}", "", {});
    ExpectClientError(advance, 400);
  }
  ExpectAliveAndUnchanged(server, before);
}

TEST(HostileRequests, HugeQueryIntegersAreA400NamingTheParameter) {
  TestServer server;
  const json before = StateOf(server);
  const std::string huge = "99999999999999999999999";
  for (const std::string& path : {"/_sim/requests?limit=" + huge, "/_sim/requests?status=" + huge,
                                 std::string("/_sim/requests?status=-1"), "/_sim/events?limit=" + huge,
                                 "/_sim/deliveries?limit=" + huge}) {
    const HttpResult r = server.Get(path, "");
    ExpectClientError(r, 400);
    EXPECT_EQ(r.body["errors"][0]["location"], "query") << path;
  }
  for (const std::string& path : {"/v1/domain/list?page=" + huge, "/v1/mailbox/list?page=" + huge,
                                 "/v2/onebox/search-emails?limit=" + huge, "/v2/onebox/search-emails?page=" + huge}) {
    const HttpResult r = server.Get(path);
    ExpectClientError(r, 400);
    EXPECT_EQ(r.body["errors"][0]["location"], "query") << path;
  }
  const HttpResult ok = server.Get("/_sim/requests?status=400&limit=2", "");
  EXPECT_EQ(ok.status, 200);
  EXPECT_LE(ok.body["requests"].size(), 2u);
  ExpectAliveAndUnchanged(server, before);
}

TEST(HostileRequests, InvalidUtf8IsA400AndEveryAnswerIsValidJson) {
  TestServer server;
  const json before = StateOf(server);
  // In a JSON string: the parser refuses it.
  ExpectClientError(server.Send("POST", "/v1/domain/add-dmarc", "{\"email\":\"a\xff@b.com\"}", kAliceKey, {}), 400);
  // Outside a string, as a token.
  ExpectClientError(server.Send("POST", "/v1/domain/add-dmarc", "{\"email\":\xc3}", kAliceKey, {}), 400);
  // In the path and the query.
  const HttpResult path = server.Get("/v1/domain/list/\xff\xfe", kAliceKey);
  ExpectClientError(path, 400);
  EXPECT_EQ(path.body["errors"][0]["location"], "path");
  const HttpResult query = server.Get("/v1/domain/list?contains=%FF%FE", kAliceKey);
  ExpectClientError(query, 400);
  EXPECT_EQ(query.body["errors"][0]["param"], "contains");
  // In headers that messages quote: the content type (415) and the workspace (404).
  ExpectClientError(server.Send("POST", "/v1/domain/add-dmarc", "{}", kAliceKey, {}, "text/\xff\xfe"), 415);
  ExpectClientError(server.Get("/v1/domain/list", kAliceKey, {{"x-workspace-key", "ws_\xff\xfe"}}), 404);
  // A body that is not JSON, with bytes that are not UTF-8, is journaled safely.
  ExpectClientError(server.Send("POST", "/v1/domain/add-dmarc", "\xff\xfe\xfd", kAliceKey, {}, "text/plain"), 415);
  const HttpResult journal = server.Get("/_sim/requests", "");
  ASSERT_EQ(journal.status, 200);
  EXPECT_TRUE(model::IsValidUtf8(journal.raw));
  ExpectAliveAndUnchanged(server, before);
}

// The socket transport refuses unknown methods itself, but the router is also driven in process
// (scenario runs): a method with bytes that are not UTF-8 was quoted into the 404's message and
// the journal, and that answer could not be written as JSON.
TEST(HostileRequests, AMethodThatIsNotATokenIsA400QuotedAsSafeText) {
  TestServer server;
  const json before = StateOf(server);
  const std::vector<app::Route> table = api::Routes(server.svc().schemas.Operations());
  app::Router router(server.svc(), table);
  for (const std::string& method : {std::string("GE\xa3\xdf"), std::string("GET /x"), std::string(), std::string(40, 'G')}) {
    const http::Response res = router.Handle(http::RawRequest{method, "/v1/workspace/list", "", {{"x-auth-service", kAliceKey}}, {}});
    EXPECT_EQ(res.status, 400) << method;
    const std::string text = res.raw ? *res.raw : core::DumpJson(res.body);  // throws if not UTF-8
    EXPECT_TRUE(model::IsValidUtf8(text));
    EXPECT_NE(text.find("\"param\":\"method\""), std::string::npos) << text;
  }
  // Both the method and the path bad: the path is made safe too before the journal quotes it.
  EXPECT_EQ(router.Handle(http::RawRequest{"G\xff", "/v1/\xfe", "", {}, {}}).status, 400);
  const HttpResult journal = server.Get("/_sim/requests", "");
  ASSERT_EQ(journal.status, 200) << journal.raw.substr(0, 300);
  EXPECT_TRUE(model::IsValidUtf8(journal.raw));
  ExpectAliveAndUnchanged(server, before);
}

TEST(HostileRequests, AJournalEntryCutInsideACharacterStillLists) {
  TestServer server;
  // 4,095 bytes then "é" (2 bytes): the 4,096-byte cut falls inside it.
  const std::string body = std::string(4095, 'x') + "\xc3\xa9" + std::string(100, 'y');
  ExpectClientError(server.Send("POST", "/v1/domain/add-dmarc", body, kAliceKey, {}, "text/plain"), 415);
  for (int i = 0; i < 2; ++i) {  // every later listing, not only the first
    const HttpResult journal = server.Get("/_sim/requests", "");
    ASSERT_EQ(journal.status, 200) << journal.raw.substr(0, 300);
    const json& last = journal.body["requests"].back();
    const std::string raw = last.value("rawBody", "");
    EXPECT_EQ(raw.rfind(std::string(4095, 'x'), 0), 0u);
    EXPECT_EQ(raw.find("\xc3"), std::string::npos) << "half a character kept";
  }
}

TEST(HostileRequests, AnExceptionIsA500WhoseErrorIdTheLogCarries) {
  TestServer server;
  static const std::vector<app::Route> routes = {
      {"GET", "/v1/workspace/list", "workspaces.list", app::Access::kWorkspace,
       [](app::Ctx&) -> app::Reply { throw std::runtime_error("boom \xff"); }},
  };
  app::Router router(server.svc(), routes);
  ::testing::internal::CaptureStderr();
  const http::Response res = router.Handle(http::RawRequest{"GET", "/v1/workspace/list", "", {{"x-auth-service", kAliceKey}}, {}});
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(res.status, 500);
  const std::string error_id = res.body.value("errorId", "");
  ASSERT_FALSE(error_id.empty());
  EXPECT_NE(log.find(error_id), std::string::npos) << log;
  EXPECT_EQ(server.Get("/_sim/health", "").status, 200);
}

// ---- PUT /_sim/state: all or nothing ---------------------------------------------------------------

TEST(HostileState, ABadStateDocumentIsA400AndLeavesTheStateByteForByte) {
  TestServer server;
  const HttpResult dump = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(dump.status, 200);
  const std::string before = dump.raw;
  const json good = dump.body;
  std::vector<std::pair<std::string, json>> bad;
  {
    json d = good;
    d["accounts"][0]["walletCents"] = "lots";
    bad.emplace_back("state.accounts[0]", d);
  }
  {
    json d = good;
    d["clock"] = {{"mode", "manual"}, {"epochMs", INT64_MAX - 1}};
    bad.emplace_back("clock.epochMs", d);
  }
  {
    json d = good;
    d["clock"] = {{"mode", 5}};
    bad.emplace_back("clock.mode", d);
  }
  {
    json d = good;
    d["clock"] = "noon";
    bad.emplace_back("clock", d);
  }
  {
    json d = good;
    d["domains"][0]["createdAt"] = INT64_MAX - 5;
    bad.emplace_back("domains", d);
  }
  {
    json d = good;
    d["jobs"] = json::array({{{"seq", 1}, {"dueMs", -5}, {"kind", "x"}, {"args", "{}"}}});
    bad.emplace_back("jobs", d);
  }
  {
    json d = good;
    d["faults"] = json::array({{{"id", "flt_1"}, {"path", "/v1/x"}, {"delayMs", 86400000}}});
    bad.emplace_back("delayMs", d);
  }
  {
    json d = good;
    d["timings"] = {{"dmarcSeconds", INT64_MAX}};
    bad.emplace_back("timings", d);
  }
  {
    // The wall-clock time of an attempt is a time like the simulated one: GET /_sim/deliveries
    // formats both.
    json d = good;
    d["deliveries"] = json::array({{{"id", "dlv_1"}, {"sentAtWall", INT64_MAX - 5}}});
    bad.emplace_back("sentAtWall", d);
  }
  {
    json d = good;
    d["workspaces"][0]["accountId"] = "acc_nobody";
    bad.emplace_back("unknown account", d);
  }
  for (const auto& [what, doc] : bad) {
    const HttpResult r = server.Put("/_sim/state", doc);
    ExpectClientError(r, 400);
    EXPECT_NE(MessageOf(r).find(what), std::string::npos) << what << ": " << MessageOf(r);
    const HttpResult after = server.Get("/_sim/state?secrets=true", "");
    EXPECT_EQ(after.raw, before) << what << ": the state changed";
  }
  // Not an object at all, and a state nested past the limit.
  ExpectClientError(server.Send("PUT", "/_sim/state", "[1]", "", {}), 400);
  ExpectClientError(server.Send("PUT", "/_sim/state", DeepObjectUnder("{\"events\":", 200), "", {}), 400);
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").raw, before);
  // The good document still loads.
  EXPECT_EQ(server.Put("/_sim/state", good).status, 200);
}

TEST(HostileState, ADumpWithEventDataAtTheRequestLimitLoadsAgain) {
  TestServer server;
  const std::string event = DeepObjectUnder(
      std::string("{\"type\":\"workspace.invitations\",\"apiKey\":\"") + kAliceKey + "\",\"data\":", 62);
  const HttpResult emitted = server.Send("POST", "/_sim/events", event, "", {});
  ASSERT_EQ(emitted.status, 201);
  server.AllowInvalidEvent(emitted.body["event"]["id"]);  // its data is the deep object, on purpose
  const HttpResult dump = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(dump.status, 200);
  const HttpResult load = server.Send("PUT", "/_sim/state", dump.raw, "", {});
  EXPECT_EQ(load.status, 200) << load.raw.substr(0, 300);
}

// ---- scenarios and fixtures ------------------------------------------------------------------------

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("emsim_hostile_" + std::to_string(::getpid()) + "_" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void Write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

// The classic "billion laughs": 9 levels of 9 aliases, 536 bytes, 10^9 nodes once expanded.
std::string AliasBomb(const std::string& key) {
  std::string s = key + ":\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  const char* names = "abcdefghi";
  for (int i = 1; i < 9; ++i) {
    const std::string prev(1, names[i - 1]);
    s += std::string("  ") + names[i] + ": &" + names[i] + " [";
    for (int k = 0; k < 9; ++k) s += (k ? ",*" : "*") + prev;
    s += "]\n";
  }
  return s;
}

TEST(HostileScenarios, AnAliasBombIsRefusedNotExpanded) {
  try {
    scenario::ParseScenarioText("name: bomb\nvars:\n  x: *i\n" + AliasBomb("anchors") + "steps: []\n", "bomb.yaml", ".");
    ADD_FAILURE() << "the alias bomb parsed";
  } catch (const scenario::ScenarioParseError& e) {
    // Either the budget or an earlier rule stops it; what matters is that it stops.
    SUCCEED() << e.what();
  }
  const std::string bomb = "name: bomb\n" + AliasBomb("vars") + "steps:\n  - set: {y: 1}\n";
  EXPECT_THROW(scenario::ParseScenarioText(bomb, "bomb.yaml", "."), scenario::ScenarioParseError);
  try {
    scenario::ParseScenarioText(bomb, "bomb.yaml", ".");
  } catch (const scenario::ScenarioParseError& e) {
    EXPECT_NE(std::string(e.what()).find("alias"), std::string::npos) << e.what();
  }
  try {
    fixture::yaml::Document::Parse(AliasBomb("accounts"));
    ADD_FAILURE() << "the alias bomb parsed";
  } catch (const fixture::yaml::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("alias"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fixture::LoadFixtureText(AliasBomb("accounts"), "bomb.yaml", 1), std::exception);
}

TEST(HostileScenarios, LongScalarsParseWithoutARegex) {
  const std::string digits(200000, '7');
  const std::string word(200000, 'w');
  const scenario::Scenario sc = scenario::ParseScenarioText("name: long\nvars:\n  n: " + digits + "\n  w: " + word +
                                                      "\n  f: 1." + digits + "\nsteps:\n  - GET: /_sim/health\n",
                                                  "long.yaml", ".");
  EXPECT_EQ(sc.header.vars.at("n"), digits);  // past int64: kept as text
  EXPECT_EQ(sc.header.vars.at("w"), word);
  EXPECT_TRUE(sc.header.vars.at("f").is_number_float());
  EXPECT_THROW(scenario::ParseScenarioText("name: big\nvars:\n  x: 1e400\nsteps:\n  - GET: /_sim/health\n", "b.yaml", "."),
               scenario::ScenarioParseError);
  // A long ${name}: checked by hand, not by std::regex.
  EXPECT_THROW(scenario::ParseScenarioText("name: v\nsteps:\n  - GET: /_sim/health\n    expect: {body: {status: \"${" + word +
                                          "}\"}}\n",
                                      "v.yaml", "."),
               scenario::ScenarioParseError);
  // A deep value: refused with a message, not a stack overflow.
  std::string deep = "name: deep\nvars:\n  x: ";
  deep += std::string(200, '[') + std::string(200, ']') + "\nsteps:\n  - GET: /_sim/health\n";
  EXPECT_THROW(scenario::ParseScenarioText(deep, "d.yaml", "."), scenario::ScenarioParseError);
}

TEST(HostileScenarios, MatcherRegexesAreBoundedOnBothSides) {
  const json regex = {{"$regex", "^a.*b$"}};
  EXPECT_TRUE(scenario::MatchJson(regex, std::string(10000, 'a') + "b").empty());  // an export's CSV fits
  const auto long_text = scenario::MatchJson(regex, std::string(200000, 'a') + "b");
  ASSERT_EQ(long_text.size(), 1u);
  EXPECT_NE(scenario::FormatMismatches(long_text, "").find("too long"), std::string::npos);
  const auto long_format = scenario::MatchJson({{"$match", "uuid"}}, std::string(200000, 'a'));
  EXPECT_EQ(long_format.size(), 1u);
  EXPECT_TRUE(scenario::CheckMatcherTree({{"$regex", std::string(1000, 'a')}}).has_value());
  EXPECT_FALSE(scenario::CheckMatcherTree({{"$regex", "^ok$"}}).has_value());
  // Numeric text is read by hand, whatever its length.
  EXPECT_TRUE(scenario::MatchJson({{"$gte", 1}}, "12.50").empty());
  EXPECT_EQ(scenario::MatchJson({{"$gte", 1}}, std::string(200000, '9')).size(), 1u);
}

TEST(HostileScenarios, FixtureReferencesStayInsideTheScenarioFolder) {
  TempDir dir;
  std::ifstream in{std::filesystem::path(cli::DefaultFixturePath())};
  std::stringstream fixture;
  fixture << in.rdbuf();
  dir.Write("mine.yaml", fixture.str());
  std::filesystem::create_directories(dir.path / "sub");
  std::filesystem::create_symlink("/etc/passwd", dir.path / "out.yaml");
  std::filesystem::create_symlink("/dev/zero", dir.path / "zero.yaml");
  const auto parse = [&](const std::string& ref) {
    return scenario::ParseScenarioText("name: f\nfixtures: " + std::string(ref) + "\nsteps:\n  - GET: /_sim/health\n", "f.yaml",
                                  dir.path.string());
  };
  EXPECT_EQ(parse("mine.yaml").header.fixtures, std::filesystem::canonical(dir.path / "mine.yaml").string());
  for (const char* ref : {"/dev/zero", "/proc/self/environ", "/etc/passwd", "../mine.yaml", "sub/../../x.yaml",
                                "out.yaml", "zero.yaml", "sub", "missing.yaml"}) {
    try {
      parse(ref);
      ADD_FAILURE() << ref << " was accepted";
    } catch (const scenario::ScenarioParseError& e) {
      EXPECT_NE(std::string(e.what()).find("fixtures:"), std::string::npos) << e.what();
    }
  }
  // Loading a fixture checks the opened file too: a device is refused, not read for ever.
  EXPECT_THROW(fixture::LoadFixtureFile("/dev/zero", 1), fixture::FixtureError);
}

TEST(HostileScenarios, OverHttpAFixtureOutsideTheFolderIsA400) {
  TestServer server;
  const json before = StateOf(server);
  for (const char* ref : {"/dev/zero", "/proc/self/environ", "../README.md"}) {
    const HttpResult r = server.Send("POST", "/_sim/scenarios/run",
                                     "name: f\nfixtures: " + std::string(ref) + "\nsteps:\n  - GET: /_sim/health\n", "", {},
                                     "application/yaml");
    ExpectClientError(r, 400);
    EXPECT_NE(MessageOf(r).find("fixtures:"), std::string::npos) << MessageOf(r);
  }
  const HttpResult bomb = server.Send("POST", "/_sim/scenarios/run", "name: bomb\n" + AliasBomb("vars") + "steps: []\n",
                                      "", {}, "application/yaml");
  ExpectClientError(bomb, 400);
  ExpectAliveAndUnchanged(server, before);
}

TEST(HostileFixtures, TimesOutsideTheYearsAndHugeTimingsAreRefused) {
  std::ifstream in{std::filesystem::path(cli::DefaultFixturePath())};
  std::stringstream text;
  text << in.rdbuf();
  const std::string fixture = text.str();
  EXPECT_NO_THROW(fixture::LoadFixtureText(fixture, "default.yaml", 1));
  const std::string far = std::regex_replace(fixture, std::regex("start: \"[^\"]*\""), "start: \"10000-01-01T00:00:00.000Z\"", std::regex_constants::format_first_only);
  ASSERT_NE(far, fixture) << "the default fixture has a clock start";
  EXPECT_THROW(fixture::LoadFixtureText(far, "far.yaml", 1), fixture::FixtureError);
  EXPECT_THROW(fixture::LoadFixtureText("timings:\n  dmarcSeconds: 9223372036854775807\n", "t.yaml", 1), fixture::FixtureError);
}

}  // namespace
}  // namespace emsim
