// In-process HTTP tier for the foundation: authentication (Part 5) and the pipeline's every error
// path (the endpoints it was first built with are in tests/api/foundation_endpoints_test.cpp).
// Each test has its own server on port 0.
#include <chrono>
#include <filesystem>
#include <future>
#include <fstream>
#include <regex>
#include <set>

#include "api/routes.hpp"
#include "app/router.hpp"
#include "http/server.hpp"
#include "core/messages.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

// ---- Part 5 authentication ----------------------------------------------------------------------

TEST(Auth, MissingOrWrongApiKeyIs401WithUuidErrorId) {
  TestServer server;
  for (const std::string key : {"", "emsim_test_wrong"}) {
    auto r = server.Get("/v1/workspace/list", key);
    ExpectErrorWithId(r, 401);
    EXPECT_EQ(r.body["message"], model::msg::kInvalidApiKey);
    EXPECT_CONFORMS(server, "resources/error_with_id", r.body);
  }
}

TEST(Auth, WorkspaceHeadersSelectTheWorkspace) {
  TestServer server;
  auto def = server.Get("/v1/domain/list");
  auto labs_key = server.Get("/v1/domain/list", kAliceKey, {{"x-workspace-key", "ws_labs"}});
  auto labs_id = server.Get("/v1/domain/list", kAliceKey, {{"x-workspace-id", "ws_labs"}});
  EXPECT_EQ(def.body["data"]["totalSearchedCount"], 14);
  EXPECT_EQ(labs_key.body["data"]["totalSearchedCount"], 5);
  EXPECT_EQ(labs_id.body["data"], labs_key.body["data"]);
  auto foreign = server.Get("/v1/domain/list", kAliceKey, {{"x-workspace-key", "ws_lumen"}});
  ExpectErrorWithId(foreign, 404);
  auto unknown = server.Get("/v1/domain/list", kAliceKey, {{"x-workspace-key", "ws_nope"}});
  ExpectErrorWithId(unknown, 404);
}

TEST(Auth, ServiceProviderHeaderAcceptsGoogleAndMicrosoftOnly) {
  TestServer server;
  EXPECT_EQ(server.Get("/v1/workspace/list", kAliceKey, {{"x-service-provider", "GOOGLE"}}).status, 200);
  EXPECT_EQ(server.Get("/v1/workspace/list", kAliceKey, {{"x-service-provider", "MICROSOFT"}}).status, 200);
  auto r = server.Get("/v1/workspace/list", kAliceKey, {{"x-service-provider", "YAHOO"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body["errors"][0]["param"], "x-service-provider");
  EXPECT_EQ(r.body["errors"][0]["location"], "headers");
}

// A write route authenticates inside the write transaction that runs its handler (the router
// opens it: one lock per request); whatever else is wrong with the request, a bad key is still
// the first thing reported, as on a read route, and a good key with a bad request gets that
// request's error.
TEST(Auth, AWriteRouteReportsABadKeyBeforeAnyOtherProblem) {
  TestServer server;
  const std::string path = "/v2/placement-tests/purchase";
  const json valid = {{"placementType", "MONTHLY"}, {"testName", "t"}, {"mailboxIds", json::array({"mb_x"})}};
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  struct Case {
    std::string body, content_type;
    httplib::Headers headers;
    int status_with_good_key;
  };
  const std::vector<Case> cases = {
      {valid.dump(), "application/json", {}, 400},                                  // unknown mailbox (handler)
      {R"({"placementType":"WEEKLY"})", "application/json", {}, 400},               // schema
      {"{not json", "application/json", {}, 400},                                   // JSON
      {valid.dump(), "text/plain", {}, 415},                                        // content type
      {valid.dump(), "application/json", {{"x-service-provider", "YAHOO"}}, 400},  // provider header
  };
  for (const auto& c : cases) {
    for (const std::string key : {"", "emsim_test_wrong"}) {
      auto r = server.Send("POST", path, c.body, key, c.headers, c.content_type);
      ExpectErrorWithId(r, 401);
      EXPECT_EQ(r.body["message"], model::msg::kInvalidApiKey) << c.body;
    }
    auto good = server.Send("POST", path, c.body, kAliceKey, c.headers, c.content_type);
    EXPECT_EQ(good.status, c.status_with_good_key) << c.body << " " << good.raw;
  }
  // The account's workspace header is checked in the same section: a foreign one is a 404.
  auto foreign = server.Post(path, valid, kAliceKey, {{"x-workspace-key", "ws_lumen"}});
  ExpectErrorWithId(foreign, 404);
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before) << "a refused write changed the state";
}

// ---- pipeline errors ----------------------------------------------------------------------------

TEST(Pipeline, UnknownPathIs404AndWrongMethodIs405) {
  TestServer server;
  auto r = server.Get("/v1/nothing/here");
  ExpectErrorWithId(r, 404);
  EXPECT_NE(r.body["message"].get<std::string>().find("/v1/nothing/here"), std::string::npos);
  r = server.Send("DELETE", "/v1/domain/list", "", kAliceKey, {});
  ExpectErrorWithId(r, 405);
  r = server.Post("/v1/workspace/list", json::object());
  ExpectErrorWithId(r, 405);
}

TEST(Pipeline, BodyOverTheLimitIs413AndChangesNothing) {
  app::Options o;
  o.maxBodyBytes = 4096;
  TestServer server(o);
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  json body = FullBillingBody();
  body["company"] = std::string(5000, 'x');
  auto r = server.Post("/v1/billing-details/add-or-update", body);
  ExpectErrorWithId(r, 413);
  EXPECT_NE(r.body["message"].get<std::string>().find("4096"), std::string::npos);
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before);
}

TEST(Pipeline, DefaultLimitIsOneMebibyte) {
  TestServer server;
  json body = FullBillingBody();
  body["company"] = std::string(1024 * 1024 + 10, 'x');
  ExpectErrorWithId(server.Post("/v1/billing-details/add-or-update", body), 413);
  body["company"] = std::string(1000, 'x');
  EXPECT_EQ(server.Post("/v1/billing-details/add-or-update", body).status, 200);
}

TEST(Pipeline, NonJsonContentTypeIs415) {
  TestServer server;
  auto r = server.Send("POST", "/v1/billing-details/add-or-update", FullBillingBody().dump(), kAliceKey, {}, "text/plain");
  ExpectErrorWithId(r, 415);
  EXPECT_NE(r.body["message"].get<std::string>().find("application/json"), std::string::npos);
  auto ok = server.Send("POST", "/v1/billing-details/add-or-update", FullBillingBody().dump(), kAliceKey, {},
                        "application/json; charset=utf-8");
  EXPECT_EQ(ok.status, 200) << ok.raw;
}

TEST(Pipeline, MalformedJsonSaysWhereItBrokeAndChangesNothing) {
  TestServer server;
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  auto r = server.Send("POST", "/v1/billing-details/add-or-update", "{\n  \"firstName\": \"Ada\",\n  oops\n}", kAliceKey, {});
  EXPECT_EQ(r.status, 400);
  EXPECT_CONFORMS(server, "resources/error_validation", r.body);
  EXPECT_EQ(r.body["errors"][0]["param"], "body");
  EXPECT_NE(r.body["message"].get<std::string>().find("line 3"), std::string::npos) << r.raw;
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before);
}

TEST(Pipeline, EachSchemaFailureNamesItsParam) {
  TestServer server;
  struct Case {
    std::string field;
    json value;
    std::string msg;
  };
  for (const Case& c : std::vector<Case>{
           {"firstName", 42, "firstName must be a string"},
           {"country", "United Kingdom", "country must be an ISO 3166-1 alpha-2 country code such as US or GB"},
           {"country", "XX", "country must be an ISO 3166-1 alpha-2 country code such as US or GB"},
           {"addressLineTwo", true, "addressLineTwo must be a string or a null"},
           {"phone", "", "phone must be at least 1 character(s) long"},
       }) {
    json body = FullBillingBody();
    body[c.field] = c.value;
    auto r = server.Post("/v1/billing-details/add-or-update", body);
    ASSERT_EQ(r.status, 400) << c.field;
    EXPECT_CONFORMS(server, "resources/error_validation", r.body);
    ASSERT_EQ(r.body["errors"].size(), 1u) << r.raw;
    EXPECT_EQ(r.body["errors"][0]["param"], c.field);
    EXPECT_EQ(r.body["errors"][0]["location"], "body");
    EXPECT_EQ(r.body["errors"][0]["msg"], c.msg);
  }
  json body = FullBillingBody();
  body.erase("city");
  auto r = server.Post("/v1/billing-details/add-or-update", body);
  ASSERT_EQ(r.status, 400);
  EXPECT_EQ(r.body["errors"][0]["param"], "city");
  EXPECT_EQ(r.body["errors"][0]["msg"], "city is required");
  r = server.Send("POST", "/v1/billing-details/add-or-update", "[1,2]", kAliceKey, {});
  ASSERT_EQ(r.status, 400);
  EXPECT_EQ(r.body["errors"][0]["param"], "body");
  auto q = server.Get("/v1/mailbox/list?page=abc");
  ASSERT_EQ(q.status, 400);
  EXPECT_EQ(q.body["errors"][0]["param"], "page");
  EXPECT_EQ(q.body["errors"][0]["location"], "query");
  q = server.Get("/v1/mailbox/details");
  ASSERT_EQ(q.status, 400);
  EXPECT_EQ(q.body["errors"][0]["param"], "id");
  EXPECT_EQ(q.body["errors"][0]["msg"], "id is required");
}

TEST(Pipeline, UnexpectedExceptionIs500AndTheServerKeepsServing) {
  TestServer server;
  static const std::vector<app::Route> routes = {
      {"GET", "/v1/workspace/list", "workspaces.list", app::Access::kWorkspace,
       [](app::Ctx&) -> app::Reply { throw std::runtime_error("boom"); }},
  };
  app::Router router(server.svc(), routes);
  http::RawRequest raw{"GET", "/v1/workspace/list", "", {{"x-auth-service", kAliceKey}}, {}};
  auto res = router.Handle(raw);
  EXPECT_EQ(res.status, 500);
  EXPECT_EQ(res.body["message"], model::msg::kInternalError);
  EXPECT_TRUE(IsUuid4(res.body["errorId"].get<std::string>()));
  auto again = router.Handle(raw);
  EXPECT_EQ(again.status, 500);
  EXPECT_NE(again.body["errorId"], res.body["errorId"]);
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 200);  // the real server is unaffected
}

// Find answers a path without parameters from a table made at construction (the scan was ~2% of
// a purchase); it must answer as the scan of every route does: a parameter route listed before a
// static one wins, a method no route of the path has is a 405 (path known), other spellings are
// scanned.
TEST(Pipeline, RouteLookupAnswersAsTheScanOfEveryRoute) {
  TestServer server;
  static const std::vector<app::Route> routes = {
      {"GET", "/v1/things/:id", "workspaces.list", app::Access::kWorkspace,
       [](app::Ctx&) -> app::Reply { return app::Json(json::object()); }},
      {"GET", "/v1/things/list", "domains.list", app::Access::kWorkspace,
       [](app::Ctx&) -> app::Reply { return app::Json(json::object()); }},
      {"POST", "/v1/things/list", "mailboxes.list", app::Access::kWorkspace,
       [](app::Ctx&) -> app::Reply { return app::Json(json::object()); }},
  };
  app::Router router(server.svc(), routes);
  auto get = router.Find("GET", "/v1/things/list");
  ASSERT_EQ(get.route, &routes[0]) << "the first route in the table that matches, as before";
  EXPECT_EQ(get.params.at("id"), "list");
  auto post = router.Find("POST", "/v1/things/list");
  EXPECT_EQ(post.route, &routes[2]);
  EXPECT_TRUE(post.params.empty());
  auto del = router.Find("DELETE", "/v1/things/list");
  EXPECT_EQ(del.route, nullptr);
  EXPECT_TRUE(del.pathKnown);
  auto spelled = router.Find("GET", "//v1/things//list/");
  EXPECT_EQ(spelled.route, &routes[0]);
  EXPECT_EQ(spelled.params.at("id"), "list");
  auto param = router.Find("GET", "/v1/things/42");
  EXPECT_EQ(param.route, &routes[0]);
  EXPECT_EQ(param.params.at("id"), "42");
  auto none = router.Find("GET", "/v1/nothing");
  EXPECT_EQ(none.route, nullptr);
  EXPECT_FALSE(none.pathKnown);
  // Every route of the real table is found by its own pattern and method.
  const std::vector<app::Route> table = api::Routes(server.svc().schemas.Operations());
  app::Router real(server.svc(), table);
  for (const auto& r : table) {
    auto m = real.Find(r.method, r.pattern);
    ASSERT_NE(m.route, nullptr) << r.method << " " << r.pattern;
    EXPECT_EQ(std::string(m.route->method), r.method);
    EXPECT_EQ(app::SplitPath(m.route->pattern).size(), app::SplitPath(r.pattern).size()) << r.pattern;
  }
}

TEST(Pipeline, EveryResponseCarriesARequestIdAndIsJournaled) {
  TestServer server;
  auto ok = server.Get("/v1/workspace/list");
  auto bad = server.Get("/v1/workspace/list", "wrong");
  EXPECT_FALSE(ok.Header("x-request-id").empty());
  EXPECT_NE(ok.Header("x-request-id"), bad.Header("x-request-id"));
  auto j = server.Get("/_sim/requests?operationId=workspaces.list", "");
  ASSERT_EQ(j.status, 200);
  ASSERT_EQ(j.body["requests"].size(), 2u);
  EXPECT_EQ(j.body["requests"][0]["id"], ok.Header("x-request-id"));
  EXPECT_EQ(j.body["requests"][1]["status"], 401);
  auto v = server.Get("/v1/mailbox/list?page=0");
  j = server.Get("/_sim/requests?status=400&limit=1", "");
  ASSERT_EQ(j.body["requests"].size(), 1u);
  EXPECT_EQ(j.body["requests"][0]["validationErrors"][0]["param"], "page");
}

// GETs are answered from httplib's pre-routing hook (http/server.cpp), other methods after its
// routing. What the hook must keep: query parameters reach the router, several GETs on one
// keep-alive connection are each answered and journaled, a HEAD still takes the routed path
// (the router has no HEAD routes: 405), and a GET of a target that is not a path gets the spec's
// 404, journaled, rather than httplib's own.
TEST(Pipeline, GetsAnsweredBeforeHttplibRoutingKeepEveryBehaviour) {
  TestServer server;
  std::set<std::string> ids;
  for (int i = 0; i < 3; ++i) {  // one httplib::Client: a keep-alive connection
    auto r = server.Get("/v1/workspace/list");
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.body["data"].size(), 2u);
    ids.insert(r.Header("x-request-id"));
  }
  EXPECT_EQ(ids.size(), 3u);
  auto q = server.Get("/v1/domain/list?contains=north&page=1");
  ASSERT_EQ(q.status, 200) << q.raw;
  ASSERT_FALSE(q.body["data"]["domains"].empty()) << q.raw;
  for (const auto& d : q.body["data"]["domains"])
    EXPECT_NE(d["domain"].get<std::string>().find("north"), std::string::npos) << d;
  auto bad = server.Get("/v1/mailbox/list?page=0");
  ASSERT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["errors"][0]["param"], "page");

  auto head = server.Send("HEAD", "/v1/workspace/list", "", kAliceKey, {});
  EXPECT_EQ(head.status, 405);

  httplib::Client raw("127.0.0.1", server.port());
  httplib::Request star;
  star.method = "GET";
  star.path = "*";
  auto res = raw.send(star);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  auto body = json::parse(res->body, nullptr, false);
  EXPECT_EQ(body.value("status", 0), 404) << res->body;
  EXPECT_TRUE(body.contains("errorId")) << res->body;

  auto journal = server.Get("/_sim/requests?method=GET", "");
  ASSERT_EQ(journal.status, 200);
  size_t lists = 0, stars = 0;
  for (const auto& e : journal.body["requests"]) {
    if (e["path"] == "/v1/workspace/list") ++lists;
    if (e["path"] == "*") ++stars;
  }
  EXPECT_EQ(lists, 3u);
  EXPECT_EQ(stars, 1u);
}

// A server stopped before its serving thread started listening ends anyway. cpp-httplib's stop()
// did nothing before its listen loop ran, so a test that started emsim and stopped it at once
// could hang in App::Stop (a ctest timeout). The wait_for only bounds a failure: it never
// decides a pass.
TEST(Pipeline, AServerStoppedBeforeItServesEnds) {
  TestServer server;
  const std::vector<app::Route> table = api::Routes(server.svc().schemas.Operations());
  app::Router router(server.svc(), table);
  {
    http::HttpServer early(http::ServerOptions{}, router);
    early.Bind("127.0.0.1", 0);
    early.Stop();  // before Serve() is even called
    auto served = std::async(std::launch::async, [&] { early.Serve(); });
    ASSERT_EQ(served.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  }
  // Stop racing the serving thread's start, at every point of it.
  for (int i = 0; i < 50; ++i) {
    http::HttpServer racing(http::ServerOptions{}, router);
    racing.Bind("127.0.0.1", 0);
    auto served = std::async(std::launch::async, [&] { racing.Serve(); });
    racing.Stop();
    ASSERT_EQ(served.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "round " << i;
  }
}

TEST(Pipeline, JournalIsBounded) {
  app::Options o;
  o.journalCapacity = 5;
  TestServer server(o);
  for (int i = 0; i < 12; ++i) server.Get("/_sim/health?n=" + std::to_string(i), "");
  // The newest five, oldest first, after the ring has wrapped around twice.
  const auto listed = server.Get("/_sim/requests", "").body["requests"];
  ASSERT_EQ(listed.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(listed[i]["query"]["n"], std::to_string(7 + i)) << listed.dump();
  // Cleared by reset, then filled again from empty.
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  server.Get("/_sim/health?n=x", "");
  const auto after = server.Get("/_sim/requests", "").body["requests"];
  ASSERT_GE(after.size(), 1u);
  EXPECT_EQ(after.back()["query"]["n"], "x");
}

TEST(Startup, RefusesARouteWithoutItsSchema) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "emsim-missing-schema";
  fs::remove_all(dir);
  fs::copy(cli::DefaultSchemasDir(), dir, fs::copy_options::recursive);
  fs::remove(dir / "requests" / "domains.list.json");
  app::Options o;
  o.schemasDir = dir.string();
  const std::string refusal = StartupRefusal(o);
  EXPECT_NE(refusal, "") << "started without a schema";
  EXPECT_NE(refusal.find("domains.list"), std::string::npos) << refusal;
  fs::remove_all(dir);
}

TEST(Startup, RefusesAMalformedFixtureNamingFileAndLine) {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / "emsim-bad-fixture.yaml";
  std::ofstream(file) << "accounts:\n  - id: a\n    apiKey: 7\n    user: {id: u, email: e}\n    workspaces: nope\n";
  app::Options o;
  o.fixtures = file.string();
  EXPECT_EQ(StartupRefusal(o), "fixture: " + file.string() + ":5: accounts[0].workspaces: must be a non-empty list");
  fs::remove(file);
}

}  // namespace
}  // namespace emsim::testing
