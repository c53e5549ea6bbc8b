// The list endpoints write their JSON as text (core/json_out.hpp) instead of building an nlohmann
// document, to save its allocations. These tests pin that the bytes are exactly those of the
// document route, and that a record written once (model/records) reads the same through both
// writers: core::JsonBuild's document is sorted by nlohmann, so a record that writes a key out
// of order gives JsonOut text that differs from it.
#include <gtest/gtest.h>

#include "api/shapes.hpp"
#include "app/error_mapper.hpp"
#include "app/types.hpp"
#include "model/domains.hpp"
#include "model/mailboxes.hpp"
#include "model/records.hpp"
#include "core/messages.hpp"
#include "model/workspaces.hpp"
#include "fixture/fixtures.hpp"
#include "tests/support/test_server.hpp"

namespace emsim {
namespace {

TEST(JsonOut, EscapesLikeNlohmann) {
  for (std::string s : {std::string("plain"), std::string("quote \" and \\ backslash"), std::string("tab\there\nnewline"),
                        std::string("bell\x07"), std::string("Zo\xc3\xab \xe2\x82\xac"), std::string()}) {
    core::JsonOut w;
    w.BeginObject().KeyText(s).BeginArray().String(s).Int(-42).Bool(false).Null().EndArray().EndObject();
    EXPECT_EQ(w.str(), json({{s, json::array({s, -42, false, nullptr})}}).dump()) << s;
  }
  core::JsonOut w;
  w.BeginArray().BeginArray().EndArray().BeginObject().EndObject().Strings(std::vector<std::string>{"a", "b"}).Strings(std::nullopt).EndArray();
  EXPECT_EQ(w.str(), R"([[],{},["a","b"],null])");
}

// The writer sizes its buffer ahead and cuts it on str(): the bytes stay those of dump() across
// many growths, between str() calls, and around values written through nlohmann; invalid UTF-8
// throws dump()'s error.
TEST(JsonOut, GrowsItsBufferAndKeepsWritingAfterStr) {
  core::JsonOut w;
  json expected = json::array();
  w.BeginArray();
  for (int i = 0; i < 3000; ++i) {
    const std::string s = "item-" + std::to_string(i) + (i % 7 == 0 ? "\"quoted\"" : "");
    w.BeginObject().Key("n").Int(i).Key("s").String(s).Key("t").Time(i * 1000).Key("b").Bool(i % 2 == 0);
    w.Key("v").Value(json{{"k", i}}).EndObject();
    expected.push_back({{"n", i}, {"s", s}, {"t", model::FormatIso(i * 1000)}, {"b", i % 2 == 0}, {"v", {{"k", i}}}});
    if (i == 1500) {
      EXPECT_EQ(w.str().back(), '}');  // a look half way does not disturb the rest
    }
  }
  w.EndArray();
  EXPECT_EQ(json::parse(w.str()), expected);
  EXPECT_EQ(w.str().size(), expected.dump().size()) << "nothing left over from the room made ahead";
  core::JsonOut bad;
  bad.BeginArray();
  EXPECT_THROW(bad.String(std::string("\xff\xfe")), json::type_error);
}

// JsonBuild takes the calls JsonOut takes and builds the document those bytes parse to.
TEST(JsonBuild, BuildsTheDocumentJsonOutWrites) {
  auto write = [](auto& w) {
    w.BeginObject().Key("arr").BeginArray().String("a\"b").Int(-42).Bool(true).Null().Time(1500);
    w.BeginObject().KeyText("k k").Strings(std::vector<std::string>{"x", "y"}).Key("n").Strings(std::nullopt).EndObject();
    w.BeginArray().EndArray().Value(json{{"v", 1}}).EndArray();
    w.Key("m").String(std::optional<std::string>()).Key("z").String(std::optional<std::string>("z")).EndObject();
  };
  core::JsonOut text;
  write(text);
  const json doc = core::BuildJson(write);
  EXPECT_EQ(doc, json::parse(text.str()));
  EXPECT_EQ(doc.dump(), text.str());
  EXPECT_EQ(doc["arr"][4], model::FormatIso(1500));
  // Keys out of order: the document is sorted, the text is not, so the record tests would see it.
  core::JsonOut unsorted;
  unsorted.BeginObject().Key("b").Int(1).Key("a").Int(2).EndObject();
  EXPECT_NE(core::BuildJson([](auto& w) { w.BeginObject().Key("b").Int(1).Key("a").Int(2).EndObject(); }).dump(),
            unsorted.str());
  EXPECT_EQ(core::BuildJson([](auto& w) { w.String("top"); }), json("top"));
}

// Part 2's Workspace record: billingDetails has the same keys saved or not; unsaved, every one
// is null but workspaceId. Counts are strings.
TEST(JsonOut, WorkspaceRecordHasTheSameBillingKeysSavedOrNot) {
  model::Workspace ws;
  ws.id = "ws_x";
  ws.name = "X";
  const json empty = model::WorkspaceRecord(ws, 2, 5);
  EXPECT_EQ(empty["domainCount"], "2");
  EXPECT_EQ(empty["mailboxCount"], "5");
  EXPECT_EQ(empty["billingDetails"]["workspaceId"], "ws_x");
  EXPECT_TRUE(empty["billingDetails"]["id"].is_null());
  ws.billingDetails.emplace();
  ws.billingDetails->id = "bil_1";
  ws.billingDetails->workspaceId = "ws_x";
  ws.billingDetails->addressLineTwo = "Floor 2";
  const json saved = model::WorkspaceRecord(ws, 2, 5);
  EXPECT_EQ(saved["billingDetails"]["id"], "bil_1");
  EXPECT_EQ(saved["billingDetails"]["addressLineTwo"], "Floor 2");
  EXPECT_TRUE(saved["billingDetails"]["addressLineThree"].is_null());
  EXPECT_EQ(saved["billingDetails"]["languagePreference"], "en");
  ASSERT_EQ(saved["billingDetails"].size(), empty["billingDetails"].size());
  for (const auto& [k, v] : empty["billingDetails"].items()) EXPECT_TRUE(saved["billingDetails"].contains(k)) << k;
  EXPECT_EQ(empty["billingDetails"].size(), 16u);
}

TEST(JsonOut, RecordWritersGiveTheBytesOfTheRecordFunctions) {
  model::State s = fixture::LoadFixtureFile(cli::DefaultFixturePath(), 1).state;
  // Edge values the default fixture lacks: no name servers, every optional null, escapes.
  model::Domain odd = *s.domains.Find(s.domainsByWorkspace["ws_labs"].front());
  odd.id = "dom_odd";
  odd.domain = "odd-\"quoted\".example";
  odd.nameServers.reset();
  odd.forwardTo.reset();
  odd.dmarcEmail = "d\u00e9marc@odd.example";
  s.AddDomain(odd);
  model::Mailbox m = *s.mailboxes.Find(s.mailboxesByWorkspace["ws_labs"].front());
  m.id = "mbx_odd";
  m.domainId = "dom_odd";
  m.profilePicture = "https://pics.example/a b";
  s.AddMailbox(m);
  int checked = 0;
  for (const auto& ws : s.workspaces) {
    core::JsonOut w;
    model::WriteWorkspaceRecord(w, ws, 3, 1234);
    EXPECT_EQ(w.str(), model::WorkspaceRecord(ws, 3, 1234).dump());
    ++checked;
  }
  for (const auto& d : s.domains) {
    core::JsonOut w;
    model::WriteDomainListRecord(w, s, d);
    EXPECT_EQ(w.str(), model::DomainListRecord(s, d).dump());
    ++checked;
  }
  for (const auto& mb : s.mailboxes) {
    core::JsonOut w;
    model::WriteMailboxRecord(w, s, mb);
    EXPECT_EQ(w.str(), model::MailboxRecord(s, mb).dump());
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

// What the handlers answered before they wrote text: the nlohmann document, dumped.
std::string DomainListByDocument(const model::State& s, const model::Caller& c, const std::string& contains, int page) {
  auto view = model::ListDomains(s, c, contains, page);
  json domains = json::array();
  for (const auto* d : view.domains) domains.push_back(model::DomainListRecord(s, *d));
  return app::Envelope(model::msg::kSuccess, {{"totalSearchedCount", view.page.totalSearchedCount},
                                               {"currentPage", view.page.currentPage},
                                               {"nextPage", view.page.nextPage},
                                               {"totalPages", view.page.totalPages},
                                               {"domains", std::move(domains)}})
      .body.dump();
}

std::string MailboxListByDocument(const model::State& s, const model::Caller& c, const std::string& contains, int page) {
  auto view = model::ListMailboxes(s, c, contains, page);
  json domains = json::array();
  for (const auto& g : view.domains) {
    json mailboxes = json::array();
    for (const auto* m : g.mailboxes) mailboxes.push_back(model::MailboxRecord(s, *m));
    domains.push_back({{"id", g.domain->id}, {"domain", g.domain->domain}, {"status", g.domain->status},
                       {"mailboxes", std::move(mailboxes)}});
  }
  return app::Envelope(model::msg::kSuccess, {{"totalSearchedCount", view.page.totalSearchedCount},
                                               {"currentPage", view.page.currentPage},
                                               {"nextPage", view.page.nextPage},
                                               {"totalPages", view.page.totalPages},
                                               {"purchasedMailboxes", view.purchasedMailboxes},
                                               {"totalAssignedMailboxes", view.totalAssignedMailboxes},
                                               {"totalActiveMailboxes", view.totalActiveMailboxes},
                                               {"availableMailboxes", view.availableMailboxes},
                                               {"domains", std::move(domains)}})
      .body.dump();
}

TEST(JsonOut, ListEndpointsAnswerTheSameBytesAsTheDocumentRoute) {
  testing::TestServer server;
  const model::Caller alice{"acc_alice", "ws_northwind"};
  auto expect = [&](const std::string& path, auto&& by_document) {
    auto r = server.Get(path);
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.raw, server.svc().store.Read(by_document)) << path;
    EXPECT_EQ(r.Header("Content-Type"), "application/json");
  };
  expect("/v1/domain/list", [&](const model::State& s) { return DomainListByDocument(s, alice, "", 1); });
  expect("/v1/domain/list?contains=NORTH&page=1", [&](const model::State& s) { return DomainListByDocument(s, alice, "north", 1); });
  expect("/v1/domain/list?page=9", [&](const model::State& s) { return DomainListByDocument(s, alice, "", 9); });
  expect("/v1/mailbox/list", [&](const model::State& s) { return MailboxListByDocument(s, alice, "", 1); });
  expect("/v1/mailbox/list?page=3", [&](const model::State& s) { return MailboxListByDocument(s, alice, "", 3); });
  expect("/v1/mailbox/list?contains=a&page=2", [&](const model::State& s) { return MailboxListByDocument(s, alice, "a", 2); });
  expect("/v1/workspace/list", [&](const model::State& s) {
    json data = json::array();
    for (const auto& v : model::ListWorkspaces(s, alice)) data.push_back(model::WorkspaceRecord(*v.workspace, v.domainCount, v.mailboxCount));
    return app::Envelope(model::msg::kSuccess, std::move(data)).body.dump();
  });
  auto ws = server.Get("/v1/workspace/list");
  EXPECT_CONFORMS(server, "responses/workspaces.list", ws.body);
  auto ml = server.Get("/v1/mailbox/list?page=2");
  EXPECT_CONFORMS(server, "responses/mailboxes.list", ml.body);
  auto dl = server.Get("/v1/domain/list");
  EXPECT_CONFORMS(server, "responses/domains.list", dl.body);
}

// The router's error answers are written as text (app::ToTextResponse): the same bytes as the
// Part 7 document ToResponse builds, for every error kind and for text that needs escaping.
TEST(JsonOut, ErrorAnswersAsTextAreTheBytesOfTheirDocument) {
  std::vector<model::Error> errors = {
      model::Error::Validation("placementType", "placementType must be MONTHLY or ONE_TIME"),
      model::Error::Validation("name", "a \"quoted\" \\ name\twith\ncontrol \x01 bytes and \xc3\xa9\xe2\x82\xac", "query"),
      model::Error::NotFound("Mailbox mbx_\xf0\x9f\x93\xa7 not found"),
      model::Error::Internal("Internal server error"),
      {model::ErrorCode::kUnauthorized, "Missing API key", {}},
      {model::ErrorCode::kTooManyRequests, "", {}},
  };
  model::Error many = model::Error::Validation("a", "first");
  many.errors.push_back({"second", "b", "body"});
  many.errors.push_back({"third", "c[2].d", "query"});
  errors.push_back(many);
  errors.push_back({model::ErrorCode::kValidation, "no field errors", {}});
  for (const auto& e : errors) {
    const http::Response doc = app::ToResponse(e, "0b1e6f0c-6a47-4f5e-9d6b-1f0a2c3d4e5f");
    const http::Response text = app::ToTextResponse(e, "0b1e6f0c-6a47-4f5e-9d6b-1f0a2c3d4e5f");
    EXPECT_EQ(text.status, doc.status) << e.message;
    ASSERT_TRUE(text.raw.has_value()) << e.message;
    EXPECT_EQ(*text.raw, core::DumpJson(doc.body)) << e.message;
    EXPECT_EQ(*text.raw, doc.body.dump()) << e.message;
  }
  // Not valid UTF-8 (a message quoting client text): the bytes become U+FFFD, so the answer is
  // still the spec's 400 rather than a 500 from a document that cannot be written.
  const model::Error bad = model::Error::Validation("name", "bad byte \xff here");
  const http::Response text = app::ToTextResponse(bad, "");
  ASSERT_TRUE(text.raw.has_value());
  EXPECT_EQ(text.status, 400);
  EXPECT_EQ(json::parse(*text.raw)["errors"][0]["msg"], "bad byte \xef\xbf\xbd here");
  EXPECT_EQ(app::ToResponse(bad, "").body["errors"][0]["msg"], "bad byte \xef\xbf\xbd here");
}

}  // namespace
}  // namespace emsim
