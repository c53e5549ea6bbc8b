// HTTP tests for Part 4.9 onebox.search_emails: the {success, data} body, the query parameters
// emsim defines (README), their validation, workspace scope and paging headers.
#include <functional>
#include <set>

#include "core/text.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

constexpr const char* kSearch = "/v2/onebox/search-emails";

// Emails of a workspace in the state dump, as the search would see them.
std::vector<json> EmailsOf(TestServer& server, const std::string& workspace) {
  std::vector<json> out;
  const json state = server.Get("/_sim/state?secrets=true", "").body;
  for (const auto& e : state["emails"])
    if (e["workspaceId"] == workspace) out.push_back(e);
  return out;
}

TEST(SearchEmails, NoParametersAnswersTheDefaultWorkspacesNewestTwentyWithPagingHeaders) {
  TestServer server;
  auto r = server.Get(kSearch);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/onebox.search_emails", r.body);
  EXPECT_EQ(r.body["success"], true);
  const auto all = EmailsOf(server, "ws_northwind");
  ASSERT_GT(all.size(), 20u);
  ASSERT_EQ(r.body["data"].size(), 20u);
  EXPECT_EQ(r.Header("x-total-count"), std::to_string(all.size()));
  EXPECT_EQ(r.Header("x-page"), "1");
  EXPECT_EQ(r.Header("x-per-page"), "20");
  EXPECT_EQ(r.Header("x-next-page"), "2");
  for (size_t i = 1; i < r.body["data"].size(); ++i)
    EXPECT_GE(r.body["data"][i - 1]["date"].get<std::string>(), r.body["data"][i]["date"].get<std::string>());
  // Every result is one of the workspace's emails.
  std::set<std::string> ids;
  for (const auto& e : all) ids.insert(e["messageId"]);
  for (const auto& e : r.body["data"]) EXPECT_TRUE(ids.count(e["messageId"])) << e["messageId"];
}

TEST(SearchEmails, PagesCoverEveryMatchOnce) {
  TestServer server;
  const size_t total = EmailsOf(server, "ws_northwind").size();
  std::set<std::string> seen;
  for (int page = 1;; ++page) {
    auto r = server.Get(std::string(kSearch) + "?limit=7&page=" + std::to_string(page));
    ASSERT_EQ(r.status, 200);
    for (const auto& e : r.body["data"]) EXPECT_TRUE(seen.insert(e["messageId"]).second);
    if (r.Header("x-next-page") == "0") break;
    ASSERT_EQ(r.body["data"].size(), 7u);
  }
  EXPECT_EQ(seen.size(), total);
  auto past = server.Get(std::string(kSearch) + "?limit=7&page=999");
  EXPECT_EQ(past.status, 200);
  EXPECT_TRUE(past.body["data"].empty());
}

TEST(SearchEmails, ScopedToTheCallersWorkspace) {
  TestServer server;
  auto bob = server.Get(kSearch, kBobKey);
  ASSERT_EQ(bob.status, 200);
  EXPECT_EQ(bob.Header("x-total-count"), std::to_string(EmailsOf(server, "ws_lumen").size()));
  auto labs = server.Get(std::string(kSearch) + "?limit=100", kAliceKey, {{"x-workspace-key", "ws_labs"}});
  ASSERT_EQ(labs.status, 200);
  EXPECT_EQ(labs.body["data"].size(), EmailsOf(server, "ws_labs").size());
  EXPECT_EQ(server.Get(kSearch, kBobKey, {{"x-workspace-key", "ws_labs"}}).status, 404);
  EXPECT_EQ(server.Get(kSearch, "").status, 401);
}

TEST(SearchEmails, FiltersNarrowTheResultsAsDocumented) {
  TestServer server;
  const auto all = EmailsOf(server, "ws_lumen");
  auto count = [&](const std::function<bool(const json&)>& keep) {
    size_t n = 0;
    for (const auto& e : all) n += keep(e);
    return std::to_string(n);
  };
  auto total = [&](const std::string& query) {
    auto r = server.Get(std::string(kSearch) + "?" + query, kBobKey);
    EXPECT_EQ(r.status, 200) << query << " " << r.raw;
    for (const auto& e : r.body["data"]) EXPECT_CONFORMS(server, "resources/email_summary", e);
    return r.Header("x-total-count");
  };
  EXPECT_EQ(total("isRead=false"), count([](const json& e) { return !e["isRead"].get<bool>(); }));
  EXPECT_EQ(total("isStarred=true"), count([](const json& e) { return e["isStarred"].get<bool>(); }));
  EXPECT_EQ(total("folder=inbox"), count([](const json& e) { return model::ToLower(e["folderPath"].get<std::string>()) == "inbox"; }));
  EXPECT_EQ(total("label=SPAM"), count([](const json& e) {
              for (const auto& l : e["labels"]) if (l == "SPAM") return true;
              return false;
            }));
  EXPECT_EQ(total("account=chloe.evans%40lumenreach.net"),
            count([](const json& e) { return e["account"] == "chloe.evans@lumenreach.net"; }));
  EXPECT_EQ(total("after=2025-12-20&before=2025-12-25"), count([](const json& e) {
              const std::string d = model::FormatIso(e["date"].get<model::Millis>());  // the dump keeps ms
              return d >= "2025-12-20" && d < "2025-12-25";
            }));
  EXPECT_EQ(total("subject=delivery%20status"), count([](const json& e) {
              return model::ContainsFolded(e["subject"].get<std::string>(), "delivery status");
            }));
  EXPECT_EQ(total("from=mailer-daemon"), count([](const json& e) {
              return model::ContainsFolded(e["from"][0]["address"].get<std::string>(), "mailer-daemon");
            }));
  const std::string narrow = total("q=cedarline%20demos&folder=%5BGmail%5D%2FSent%20Mail");
  EXPECT_NE(narrow, "0");
  EXPECT_LT(std::stoi(narrow), std::stoi(total("q=cedarline")));
  EXPECT_EQ(total("q=zzz-nothing-matches"), "0");
}

TEST(SearchEmails, BadParametersAre400sNamingTheParameter) {
  TestServer server;
  auto expect = [&](const std::string& query, const std::string& param) {
    auto r = server.Get(std::string(kSearch) + "?" + query);
    EXPECT_EQ(r.status, 400) << query;
    EXPECT_CONFORMS(server, "resources/error_validation", r.body);
    ASSERT_FALSE(r.body["errors"].empty()) << r.raw;
    EXPECT_EQ(r.body["errors"][0]["param"], param) << query << " " << r.raw;
    EXPECT_EQ(r.body["errors"][0]["location"], "query") << query;
    EXPECT_EQ(r.body["errors"].size(), 1u) << r.raw;
  };
  expect("query=hello", "query");  // not a parameter: named in the error
  expect("isRead=yes", "isRead");
  expect("isStarred=1", "isStarred");
  expect("hasAttachments=TRUE", "hasAttachments");
  expect("limit=0", "limit");
  expect("limit=101", "limit");
  expect("limit=ten", "limit");
  expect("page=0", "page");
  expect("after=yesterday", "after");
  expect("after=2025-02-30", "after");
  expect("before=2025-12-01T10:00:00", "before");  // a time needs a zone
  expect("after=2025-12-02&before=2025-12-01", "before");
  expect("q=a&q=b", "q");
  // More distinct words than a search takes (README gap decision): 400 saying how many.
  std::string many = "q=w0";
  for (int i = 1; i <= 32; ++i) many += "%20w" + std::to_string(i);
  expect(many, "q");
  EXPECT_NE(server.Get(std::string(kSearch) + "?" + many).body["errors"][0]["msg"].get<std::string>().find(
                "33 distinct words"),
            std::string::npos);
}

TEST(SearchEmails, ReadsDoNotChangeTheState) {
  TestServer server;
  const json before = server.Get("/_sim/state?secrets=true", "").body;
  server.Get(std::string(kSearch) + "?q=cedarline");
  server.Get(std::string(kSearch) + "?limit=0");
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, before);
}

}  // namespace
}  // namespace emsim::testing

namespace emsim::testing {
namespace {

// --warm-indexes: workspaces that big have their indexes built once the world is there and again
// after a reset, and GET /_sim/health says when (the default fixture's ws_northwind: 76 mailboxes,
// 14 domains).
TEST(SearchWarmup, BigWorkspacesAreIndexedAtTheStartAndAfterAResetAndHealthSaysWhen) {
  auto indexed = [](TestServer& server) {
    return server.svc().store.Read([](const model::State& s) {
      return std::to_string(s.mailboxSearch.Workspaces()) + " " + std::to_string(s.domainSearch.Workspaces());
    });
  };
  app::Options o;
  o.warmIndexes = 50;
  TestServer server(o);
  server.svc().searchWarmer->AwaitReady();
  auto health = server.Get("/_sim/health", "");
  ASSERT_EQ(health.status, 200);
  EXPECT_EQ(health.body["searchIndexes"], json({{"ready", true}, {"left", 0}}));
  EXPECT_EQ(indexed(server), "1 0");  // ws_northwind's mailboxes, not its 14 domains

  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  server.svc().searchWarmer->AwaitReady();
  EXPECT_EQ(indexed(server), "1 0");

  // The default (10,000) leaves a workspace of this size to its first search.
  TestServer plain;
  plain.svc().searchWarmer->AwaitReady();
  EXPECT_EQ(plain.Get("/_sim/health", "").body["searchIndexes"], json({{"ready", true}, {"left", 0}}));
  EXPECT_EQ(indexed(plain), "0 0");
  // Both answer a search alike: the index built ahead holds what the first search's build holds.
  for (const char* contains : {"SALES@", "north", "zz9"}) {
    auto a = server.Get(std::string("/v1/mailbox/list?contains=") + contains);
    auto b = plain.Get(std::string("/v1/mailbox/list?contains=") + contains);
    ASSERT_EQ(a.status, 200) << a.raw;
    EXPECT_EQ(a.body["data"], b.body["data"]) << contains;
  }
  EXPECT_EQ(indexed(plain), "1 0");
}

}  // namespace
}  // namespace emsim::testing
