// /_sim/faults: injected answers, edits of real answers, matching, counting, and that faults are
// state (reset clears them, dump/load carries them). Model tier for the delivery target (the
// webhook dispatcher consults it), HTTP tier for the rest.
#include <regex>

#include "model/faults.hpp"
#include "tests/support/test_server.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

json BillingBody() {
  return {{"firstName", "Ada"},      {"lastName", "Lovelace"}, {"company", "Analytical Ltd"},
          {"addressLineOne", "1 Engine St"}, {"city", "London"}, {"state", "LDN"},
          {"country", "GB"},         {"postalCode", "N1 9GU"}, {"phoneCc", "+44"},
          {"phone", "2071234567"},   {"workspaceId", "ws_labs"}};
}

HttpResult AddFault(TestServer& server, const json& spec) { return server.Post("/_sim/faults", spec, ""); }

// ---- model tier --------------------------------------------------------------------------------

TEST(FaultsModel, FirstActiveMatchWinsAndCountsItsHits) {
  model::State s;
  ASSERT_TRUE(model::AddFault(s, {{"method", "GET"}, {"path", "/v1/domain/*"}, {"status", 503}, {"times", 2}}, 0));
  ASSERT_TRUE(model::AddFault(s, {{"path", "/v1/domain/list"}, {"status", 500}}, 0));
  EXPECT_FALSE(model::TakeFault(s, "request", "POST", "/v1/workspace/list", ""));
  EXPECT_EQ(model::TakeFault(s, "request", "GET", "/v1/domain/list", "")->id, "flt_1");
  EXPECT_EQ(model::TakeFault(s, "request", "GET", "/v1/domain/available", "")->id, "flt_1");
  // flt_1 is spent after two hits; the exact-path fault comes next, once.
  EXPECT_EQ(model::TakeFault(s, "request", "GET", "/v1/domain/list", "")->id, "flt_2");
  EXPECT_FALSE(model::TakeFault(s, "request", "GET", "/v1/domain/list", ""));
  EXPECT_EQ(s.faults[0].hits, 2);
  EXPECT_FALSE(s.faults[0].Active());
  EXPECT_EQ(model::FaultView(s.faults[0])["remaining"], 0);
}

TEST(FaultsModel, DeliveryFaultsMatchOnlyDeliveriesAndTheApiKeyFilterHolds) {
  model::State s;
  ASSERT_TRUE(model::AddFault(s, {{"target", "delivery"}, {"path", "/hooks/*"}, {"corruptSignature", true}, {"times", 0}}, 0));
  ASSERT_TRUE(model::AddFault(s, {{"path", "/v1/workspace/list"}, {"apiKey", "k1"}, {"status", 500}}, 0));
  EXPECT_FALSE(model::TakeFault(s, "request", "POST", "/hooks/a", ""));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(model::TakeFault(s, "delivery", "POST", "/hooks/a", "")->corruptSignature);
  EXPECT_TRUE(s.faults[0].Active());  // times 0: until deleted
  EXPECT_TRUE(model::FaultView(s.faults[0])["remaining"].is_null());
  EXPECT_FALSE(model::TakeFault(s, "request", "GET", "/v1/workspace/list", "k2"));
  EXPECT_TRUE(model::TakeFault(s, "request", "GET", "/v1/workspace/list", "k1"));
}

TEST(FaultsModel, RulesBeyondTypesAreCheckedBeforeAnythingIsStored) {
  model::State s;
  auto param = [&](const json& spec) {
    auto r = model::AddFault(s, spec, 0);
    return r ? std::string("ok") : r.error().errors.front().param;
  };
  EXPECT_EQ(param({{"path", "/_sim/reset"}, {"status", 500}}), "path");
  EXPECT_EQ(param({{"path", "/v1/x"}}), "body");  // does nothing
  EXPECT_EQ(param({{"path", "/v1/x"}, {"body", json::object()}, {"patch", json::array({{{"op", "remove"}, {"path", "/a"}}})}}), "patch");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"corruptSignature", true}}), "corruptSignature");
  EXPECT_EQ(param({{"target", "delivery"}, {"path", "/h"}, {"status", 500}}), "status");
  EXPECT_EQ(param({{"target", "delivery"}, {"path", "/h"}, {"method", "GET"}, {"corruptSignature", true}}), "method");
  EXPECT_EQ(param({{"target", "delivery"}, {"path", "/h"}}), "body");
  EXPECT_TRUE(s.faults.empty());
  EXPECT_EQ(s.nextFaultSeq, 1u);
}

// ---- HTTP tier ---------------------------------------------------------------------------------

TEST(Faults, An500IsAnsweredInPart7ShapeThenTheRealAnswerReturns) {
  TestServer server;
  auto created = AddFault(server, {{"method", "GET"}, {"path", "/v1/domain/list"}, {"status", 500}});
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["id"], "flt_1");
  EXPECT_EQ(created.body["remaining"], 1);
  auto r = server.Get("/v1/domain/list");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body["status"], 500);
  EXPECT_TRUE(IsUuid4(r.body["errorId"].get<std::string>())) << r.raw;
  EXPECT_NE(r.body["message"].get<std::string>().find("flt_1"), std::string::npos);
  EXPECT_CONFORMS(server, "resources/error_with_id", r.body);
  auto again = server.Get("/v1/domain/list");
  EXPECT_EQ(again.status, 200);
  EXPECT_CONFORMS(server, "responses/domains.list", again.body);
  auto list = server.Get("/_sim/faults", "").body["faults"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["hits"], 1);
  EXPECT_EQ(list[0]["active"], false);
  // The journal says which request met which fault.
  auto journal = server.Get("/_sim/requests?operationId=domains.list", "").body["requests"];
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0]["faultId"], "flt_1");
  EXPECT_FALSE(journal[1].contains("faultId"));
}

TEST(Faults, AReplacedAnswerSkipsTheHandlerSoNothingChanges) {
  TestServer server;
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(AddFault(server, {{"method", "POST"}, {"path", "/v1/billing-details/add-or-update"}, {"status", 202},
                              {"body", {{"surprise", true}}}}).status, 201);
  auto r = server.Post("/v1/billing-details/add-or-update", BillingBody());
  EXPECT_EQ(r.status, 202);
  EXPECT_EQ(r.body, json({{"surprise", true}}));
  json after = server.Get("/_sim/state?secrets=true", "").body;
  // Only the fault's own bookkeeping moved.
  after.erase("faults");
  after.erase("nextFaultSeq");
  json expected = before;
  expected.erase("faults");
  expected.erase("nextFaultSeq");
  EXPECT_EQ(after, expected);
  // No API key needed to meet a fault that replaces the answer: it comes before auth.
  ASSERT_EQ(AddFault(server, {{"path", "/v1/workspace/list"}, {"body", "<html>502 Bad Gateway</html>"}, {"status", 502}}).status, 201);
  auto html = server.Get("/v1/workspace/list", "");
  EXPECT_EQ(html.status, 502);
  EXPECT_EQ(html.raw, "<html>502 Bad Gateway</html>");
  EXPECT_EQ(html.Header("Content-Type").rfind("text/plain", 0), 0u);
}

TEST(Faults, APatchEditsTheRealAnswerAndTheHandlerStillRuns) {
  TestServer server;
  ASSERT_EQ(AddFault(server, {{"method", "POST"}, {"path", "/v1/billing-details/add-or-update"},
                              {"patch", json::array({{{"op", "remove"}, {"path", "/message"}}})}}).status, 201);
  auto r = server.Post("/v1/billing-details/add-or-update", BillingBody());
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.body.contains("message")) << r.raw;
  EXPECT_TRUE(r.body.contains("status"));
  // The billing details were stored: the handler ran.
  EXPECT_EQ(server.Get("/v1/workspace/list").body["data"][1]["billingDetails"]["city"], "London");

  ASSERT_EQ(AddFault(server, {{"method", "GET"}, {"path", "/v1/domain/list"}, {"times", 0},
                              {"patch", json::array({{{"op", "replace"}, {"path", "/data/domains/0/assignedMailboxesCount"}, {"value", 3}}})}}).status, 201);
  for (int i = 0; i < 3; ++i) {
    auto d = server.Get("/v1/domain/list");
    EXPECT_EQ(d.body["data"]["domains"][0]["assignedMailboxesCount"], 3);
    EXPECT_NE(server.SchemaProblems("responses/domains.list", d.body), "");
  }
  // A status next to a patch overrides the real status.
  ASSERT_EQ(server.Delete("/_sim/faults", "").status, 200);
  ASSERT_EQ(AddFault(server, {{"path", "/v1/workspace/list"}, {"status", 201},
                              {"patch", json::array({{{"op", "replace"}, {"path", "/status"}, {"value", "200"}}})}}).status, 201);
  auto w = server.Get("/v1/workspace/list");
  EXPECT_EQ(w.status, 201);
  EXPECT_EQ(w.body["status"], "200");
}

// The journal keeps a 400's answer as the text sent and reads its field errors from it; a fault
// that edits the answer must not change what the journal says the validation found.
TEST(Faults, TheJournalKeepsTheFieldErrorsTheValidationFoundWhateverAFaultDoes) {
  TestServer server;
  auto plain = server.Get("/v1/domain/list?page=abc");
  ASSERT_EQ(plain.status, 400);
  ASSERT_EQ(AddFault(server, {{"path", "/v1/domain/list"}, {"times", 1},
                              {"patch", json::array({{{"op", "replace"}, {"path", "/errors"}, {"value", json::array()}}})}}).status, 201);
  auto patched = server.Get("/v1/domain/list?page=abc");
  EXPECT_EQ(patched.body["errors"], json::array()) << patched.raw;
  ASSERT_EQ(AddFault(server, {{"path", "/v1/domain/list"}, {"times", 1}, {"status", 200},
                              {"patch", json::array({{{"op", "remove"}, {"path", "/errors"}}})}}).status, 201);
  auto relabelled = server.Get("/v1/domain/list?page=abc");
  EXPECT_EQ(relabelled.status, 200);
  auto journal = server.Get("/_sim/requests?operationId=domains.list", "").body["requests"];
  ASSERT_EQ(journal.size(), 3u) << journal.dump();
  EXPECT_EQ(journal[0]["response"], plain.body) << "the answer the client got";
  EXPECT_EQ(journal[1]["response"], patched.body);
  EXPECT_FALSE(journal[2].contains("response")) << "a 200 keeps no answer";
  for (const auto& e : journal) EXPECT_EQ(e["validationErrors"], plain.body["errors"]) << e.dump();
}

TEST(Faults, APatchThatDoesNotApplyLeavesTheAnswerAndSaysWhyInTheJournal) {
  TestServer server;
  ASSERT_EQ(AddFault(server, {{"path", "/v1/workspace/list"},
                              {"patch", json::array({{{"op", "remove"}, {"path", "/nope/deeper"}}})}}).status, 201);
  auto r = server.Get("/v1/workspace/list");
  EXPECT_EQ(r.status, 200);
  EXPECT_CONFORMS(server, "responses/workspaces.list", r.body);
  auto journal = server.Get("/_sim/requests?operationId=workspaces.list", "").body["requests"];
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_NE(journal[0]["faultError"].get<std::string>().find("does not apply"), std::string::npos) << journal.dump();
}

TEST(Faults, MethodPathAndApiKeyMustAllMatch) {
  TestServer server;
  ASSERT_EQ(AddFault(server, {{"method", "POST"}, {"path", "/v1/domain/list"}, {"status", 500}, {"times", 0}}).status, 201);
  ASSERT_EQ(AddFault(server, {{"path", "/v1/mailbox/*"}, {"apiKey", kBobKey}, {"status", 503}, {"times", 0}}).status, 201);
  EXPECT_EQ(server.Get("/v1/domain/list").status, 200);
  EXPECT_EQ(server.Get("/v1/domain/list?page=2").status, 200);
  EXPECT_EQ(server.Get("/v1/mailbox/list").status, 200);  // Alice
  EXPECT_EQ(server.Get("/v1/mailbox/list", kBobKey).status, 503);
  EXPECT_EQ(server.Get("/v1/mailbox/details?id=x", kBobKey).status, 503);
  // /_sim is never faulted, even by a pattern that covers it.
  ASSERT_EQ(AddFault(server, {{"path", "/*"}, {"status", 500}, {"times", 0}}).status, 201);
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 500);
  EXPECT_EQ(server.Get("/_sim/health", "").status, 200);
}

TEST(Faults, DeleteOneOrAllAnd404ForAnUnknownId) {
  TestServer server;
  ASSERT_EQ(AddFault(server, {{"path", "/v1/workspace/list"}, {"status", 500}, {"times", 0}}).status, 201);
  ASSERT_EQ(AddFault(server, {{"path", "/v1/domain/list"}, {"status", 500}, {"times", 0}}).status, 201);
  EXPECT_EQ(server.Delete("/_sim/faults/flt_1", "").status, 200);
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 200);
  EXPECT_EQ(server.Get("/v1/domain/list").status, 500);
  auto missing = server.Delete("/_sim/faults/flt_1", "");
  EXPECT_EQ(missing.status, 404);
  EXPECT_CONFORMS(server, "resources/error_with_id", missing.body);
  auto all = server.Delete("/_sim/faults", "");
  EXPECT_EQ(all.body["removed"], 1);
  EXPECT_EQ(server.Get("/v1/domain/list").status, 200);
  EXPECT_TRUE(server.Get("/_sim/faults", "").body["faults"].empty());
}

TEST(Faults, BadFaultsAre400NamingTheParam) {
  TestServer server;
  auto param = [&](const json& spec) {
    auto r = AddFault(server, spec);
    EXPECT_EQ(r.status, 400) << spec.dump();
    EXPECT_CONFORMS(server, "resources/error_validation", r.body);
    return r.body["errors"][0]["param"].get<std::string>();
  };
  EXPECT_EQ(param({{"status", 500}}), "path");
  EXPECT_EQ(param({{"path", "v1/no-slash"}, {"status", 500}}), "path");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"status", 99}}), "status");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"method", "get"}, {"status", 500}}), "method");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"times", -1}, {"status", 500}}), "times");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"delayMs", 600000}}), "delayMs");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"patch", {{"op", "remove"}}}}), "patch");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"patch", json::array({{{"op", "shuffle"}, {"path", "/a"}}})}}), "patch[0].op");
  EXPECT_EQ(param({{"path", "/_sim/state"}, {"status", 500}}), "path");
  EXPECT_EQ(param({{"path", "/v1/x"}, {"colour", "red"}, {"status", 500}}), "body");
  EXPECT_TRUE(server.Get("/_sim/faults", "").body["faults"].empty());
}

TEST(Faults, ResetClearsThemAndDumpLoadCarriesThem) {
  TestServer a;
  ASSERT_EQ(AddFault(a, {{"path", "/v1/workspace/list"}, {"status", 500}, {"times", 2}}).status, 201);
  EXPECT_EQ(a.Get("/v1/workspace/list").status, 500);
  const json dump = a.Get("/_sim/state?secrets=true", "").body;
  TestServer b;
  ASSERT_EQ(b.Put("/_sim/state", dump).status, 200);
  EXPECT_EQ(b.Get("/_sim/faults", "").body, a.Get("/_sim/faults", "").body);
  EXPECT_EQ(b.Get("/v1/workspace/list").status, 500);  // the second of two
  EXPECT_EQ(b.Get("/v1/workspace/list").status, 200);
  ASSERT_EQ(AddFault(b, {{"path", "/v1/domain/list"}, {"status", 500}}).body["id"], "flt_2");  // the sequence continues
  ASSERT_EQ(a.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_TRUE(a.Get("/_sim/faults", "").body["faults"].empty());
  EXPECT_EQ(a.Get("/v1/workspace/list").status, 200);
}

// ---- delivery target (Part 6 sender broken on purpose) ------------------------------------------

TEST(Faults, ADeliveryFaultCorruptsTheSignatureOrEditsTheEnvelopeBeforeSigning) {
  Receiver receiver;
  TestServer server;
  const auto ep = CreateEndpoint(server, receiver.Url("/hook"));
  ASSERT_EQ(AddFault(server, {{"target", "delivery"}, {"path", "/hook"}, {"corruptSignature", true}}).status, 201);
  ASSERT_EQ(AddFault(server, {{"target", "delivery"}, {"path", "/hook"},
                              {"patch", json::array({{{"op", "remove"}, {"path", "/api_version"}}})}}).status, 201);
  for (int i = 0; i < 3; ++i) Trigger(server);
  server.Advance("0s");
  const auto hits = receiver.HitsTo("/hook");
  ASSERT_EQ(hits.size(), 3u);
  // Attempts due at one instant run in parallel, so which event met which fault is not fixed:
  // count the three kinds instead.
  int corrupted = 0, edited = 0, honest = 0;
  for (const auto& hit : hits) {
    const std::string header = hit.Header("X-Service-Signature");
    const auto comma = header.find(',');
    const std::string t = header.substr(2, comma - 2), v1 = header.substr(comma + 4);  // t=..,v1=..
    const bool verifies = v1 == TestHmacSha256Hex(ep.secret, t + "." + hit.body);
    const bool has_version = json::parse(hit.body).contains("api_version");
    if (!verifies && v1 == TestHmacSha256Hex(ep.secret + "-corrupted-by-flt_1", t + "." + hit.body) && has_version) ++corrupted;
    else if (verifies && !has_version) ++edited;  // signed over the edited body
    else if (verifies && has_version) ++honest;
  }
  EXPECT_EQ(corrupted, 1);
  EXPECT_EQ(edited, 1);
  EXPECT_EQ(honest, 1) << "both faults spent after one use each";
  // Request faults never touch deliveries, and delivery faults never touch requests.
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 200);
}

}  // namespace
}  // namespace emsim::testing
