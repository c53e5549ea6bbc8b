#pragma once
// In-process HTTP test fixture (cpp-httplib's own test pattern): an App on port 0 with the
// default fixtures and a manual clock, and a client that speaks to it. Tests never sleep for
// time to pass: they POST /_sim/clock/advance.
#include <httplib.h>

#include <memory>
#include <set>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "api/control/events.hpp"
#include "cli/app.hpp"
#include "core/json.hpp"
#include "fixture/fixtures.hpp"
#include "schema/event_check.hpp"

namespace emsim::testing {

inline constexpr const char* kAliceKey = "emsim_test_alice_3f9c2a7b";
inline constexpr const char* kBobKey = "emsim_test_bob_8d41e6c0";

struct HttpResult {
  int status = 0;
  json body;             // parsed JSON (null when the body was not JSON)
  std::string raw;
  httplib::Headers headers;
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// Why an App with these options refuses to start (StartupError's message), or "" when it starts.
// The App is built only (no socket is served): a refusal comes from the constructor.
inline std::string StartupRefusal(const app::Options& o) {
  try {
    cli::App app(o);
    return "";
  } catch (const cli::StartupError& e) {
    return e.what();
  }
}

class TestServer {
 public:
  // A manual clock unless told otherwise: tests move time with POST /_sim/clock/advance, which
  // works the same on a real clock (runtime/scheduler.hpp), so the time-model tests run in both.
  explicit TestServer(app::Options options = {}, runtime::ClockMode mode = runtime::ClockMode::kManual) {
    options.port = 0;
    options.host = "127.0.0.1";
    options.clockMode = mode;
    // A line per request and per delivery would bury a failing test's output; no test reads them
    // (the cli smoke tier checks the lines of the real binary).
    if (options.logLevel == "info") options.logLevel = "warn";
    app_ = std::make_unique<cli::App>(options);
    port_ = app_->Start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(30, 0);
  }
  ~TestServer() {
    // Every HTTP test also checks that the State's derived indexes survived what it did: a change
    // that bypassed State's mutators would make lists answer stale counts (model/state.hpp).
    EXPECT_EQ(svc().store.Read([](const model::State& s) { return model::IndexProblems(s); }), "");
    CheckEveryEvent();
    app_->Stop();
  }

  // Part 6: every event the test made emsim emit fits schemas/events/<type>.json, in the form
  // GET /_sim/events shows it. Read from the store, not over HTTP: a test may have filled the
  // server's connection cap or set an admin token.
  void CheckEveryEvent() {
    const json events = svc().store.Read([](const model::State& s) {
      json out = json::array();
      for (const auto& e : s.events) out.push_back(api::SimEventJson(e));
      return out;
    });
    for (const auto& e : events) {
      if (e.is_object() && allowedInvalid_.count(e.value("id", ""))) continue;
      const auto problems = schema::EventSchemaProblems(svc().schemas, e);
      if (problems.empty()) continue;
      std::string all;
      for (const auto& p : problems) all += "\n  " + p;
      ADD_FAILURE() << "an emitted event does not fit its schema:" << all << "\n  event: " << e.dump();
    }
  }
  // A test that emits a malformed event on purpose (POST /_sim/events with `data` that breaks
  // the payload) names it here; every other event is still checked.
  void AllowInvalidEvent(const std::string& event_id) { allowedInvalid_.insert(event_id); }

  cli::App& app() { return *app_; }
  app::Services& svc() { return app_->services(); }
  int port() const { return port_; }
  std::string baseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // api_key "" sends no x-auth-service header.
  HttpResult Get(const std::string& path, const std::string& api_key = kAliceKey, httplib::Headers extra = {}) {
    return Send("GET", path, "", api_key, std::move(extra));
  }
  HttpResult Post(const std::string& path, const json& body, const std::string& api_key = kAliceKey,
                  httplib::Headers extra = {}) {
    return Send("POST", path, body.dump(), api_key, std::move(extra));
  }
  HttpResult Put(const std::string& path, const json& body, const std::string& api_key = "") {
    return Send("PUT", path, body.dump(), api_key, {});
  }
  HttpResult Patch(const std::string& path, const json& body, const std::string& api_key = kAliceKey) {
    return Send("PATCH", path, body.dump(), api_key, {});
  }
  HttpResult Delete(const std::string& path, const std::string& api_key = kAliceKey) {
    return Send("DELETE", path, "", api_key, {});
  }
  // Any method, raw body and content type (for 413/415/malformed JSON tests).
  HttpResult Send(const std::string& method, const std::string& path, const std::string& body,
                  const std::string& api_key, httplib::Headers extra,
                  const std::string& content_type = "application/json") {
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers = std::move(extra);
    if (!api_key.empty()) req.headers.emplace("x-auth-service", api_key);
    if (!body.empty()) {
      req.body = body;
      if (!content_type.empty()) req.headers.emplace("Content-Type", content_type);
    }
    auto res = client_->send(req);
    HttpResult out;
    if (!res) {
      ADD_FAILURE() << method << " " << path << ": no response (" << httplib::to_string(res.error()) << ")";
      return out;
    }
    out.status = res->status;
    out.raw = res->body;
    out.headers = res->headers;
    out.body = json::parse(res->body, nullptr, false);
    if (out.body.is_discarded()) out.body = nullptr;
    return out;
  }

  // Advances the manual clock; answers jobsRun.
  std::int64_t Advance(const std::string& duration) {
    auto r = Post("/_sim/clock/advance", {{"duration", duration}}, "");
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.body.value("jobsRun", std::int64_t{0});
  }

  // Schema issues of `doc` against schemas/<name>.json, as one readable string ("" = conforms).
  std::string SchemaProblems(const std::string& name, const json& doc) {
    std::string out;
    for (const auto& i : svc().schemas.Check(name, doc)) out += i.Pointer() + " " + i.message + "; ";
    return out;
  }

 private:
  std::unique_ptr<cli::App> app_;
  std::unique_ptr<httplib::Client> client_;
  int port_ = 0;
  std::set<std::string> allowedInvalid_;
};

// Asserts a 2xx/4xx response body conforms to the operation's response schema.
#define EXPECT_CONFORMS(server, schema_name, doc) \
  EXPECT_EQ((server).SchemaProblems(schema_name, doc), "") << (doc).dump()

// Part 7: an error answer other than a 400 carries an errorId, a UUID v4.
// A 400 in Part 7's validation shape whose first error names param.
inline void ExpectValidationError(TestServer& server, const HttpResult& r, const std::string& param) {
  EXPECT_EQ(r.status, 400) << r.raw;
  EXPECT_CONFORMS(server, "resources/error_validation", r.body);
  ASSERT_TRUE(r.body["errors"].is_array() && !r.body["errors"].empty()) << r.raw;
  EXPECT_EQ(r.body["errors"][0]["param"], param) << r.raw;
}

// The default fixture's world, as an emsim started without flags loads it.
inline model::State DefaultFixtureState() {
  return fixture::LoadFixtureFile(cli::DefaultFixturePath(), 1).state;
}

// Options of an emsim that keeps its state in dir (--data-dir).
inline app::Options WithDataDir(const std::string& dir) {
  app::Options o;
  o.dataDir = dir;
  return o;
}

inline bool IsUuid4(const std::string& s) {
  static const std::regex kUuid4("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  return std::regex_match(s, kUuid4);
}
inline void ExpectErrorWithId(const HttpResult& r, int status) {
  EXPECT_EQ(r.status, status) << r.raw;
  EXPECT_EQ(r.body["status"], status) << r.raw;
  ASSERT_TRUE(r.body["message"].is_string()) << r.raw;
  ASSERT_TRUE(r.body["errorId"].is_string()) << r.raw;
  EXPECT_TRUE(IsUuid4(r.body["errorId"].get<std::string>())) << r.raw;
}

// A complete billing-details body (Part 4.1) for `workspace`, every field filled.
inline json FullBillingBody(const std::string& workspace = "ws_labs") {
  return {{"firstName", "Ada"},      {"lastName", "Lovelace"},  {"company", "Analytical Ltd"},
          {"addressLineOne", "1 Engine St"}, {"addressLineTwo", "Floor 2"}, {"addressLineThree", nullptr},
          {"city", "London"},        {"state", "LDN"},          {"country", "GB"},
          {"postalCode", "N1 9GU"},  {"phoneCc", "+44"},        {"phone", "2071234567"},
          {"workspaceId", workspace}};
}

}  // namespace emsim::testing
