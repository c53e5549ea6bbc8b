// GET /_sim/ui (api/control/ui.hpp): the dashboard's files come from the binary with their
// content types and caching headers, open without the admin token because they hold no data,
// while every /_sim route they read still asks for it.
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

TEST(SimUi, ThePageAndItsFilesComeFromTheBinaryWithTheirTypes) {
  TestServer server;
  auto page = server.Get("/_sim/ui", "");
  ASSERT_EQ(page.status, 200) << page.raw;
  EXPECT_EQ(page.Header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.raw.find("<script src=\"/_sim/ui/app.js\"></script>"), std::string::npos) << page.raw;
  EXPECT_NE(page.raw.find("href=\"/_sim/ui/style.css\""), std::string::npos);
  // Nothing is loaded from elsewhere: the page works offline.
  EXPECT_EQ(page.raw.find("http://"), std::string::npos);
  EXPECT_EQ(page.raw.find("https://"), std::string::npos);

  auto js = server.Get("/_sim/ui/app.js", "");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.Header("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(js.raw.find("/_sim/deliveries"), std::string::npos);
  EXPECT_EQ(js.raw.find("innerHTML"), std::string::npos);  // data goes in as text only
  auto css = server.Get("/_sim/ui/style.css", "");
  ASSERT_EQ(css.status, 200);
  EXPECT_EQ(css.Header("Content-Type"), "text/css; charset=utf-8");

  EXPECT_EQ(server.Get("/_sim/ui/nope.js", "").status, 404);
  EXPECT_EQ(server.Get("/_sim/ui/..%2Fstate", "").status, 404);
}

TEST(SimUi, ABrowserRevalidatesItsCopyAndGets304WhileTheBytesAreTheSame) {
  TestServer server;
  auto js = server.Get("/_sim/ui/app.js", "");
  ASSERT_EQ(js.status, 200);
  const std::string etag = js.Header("ETag");
  ASSERT_EQ(etag.size(), 18u) << etag;  // "<16 hex digits>"
  EXPECT_EQ(js.Header("Cache-Control"), "no-cache");
  auto again = server.Get("/_sim/ui/app.js", "", {{"If-None-Match", etag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_EQ(again.raw, "");
  EXPECT_EQ(server.Get("/_sim/ui/app.js", "", {{"If-None-Match", "\"0000000000000000\""}}).status, 200);
  EXPECT_NE(server.Get("/_sim/ui", "").Header("ETag"), etag);  // each file its own
}

TEST(SimUi, WithAnAdminTokenThePageLoadsButItsDataNeedsTheToken) {
  app::Options options;
  options.adminToken = "s3cret-ui-token";
  TestServer server(options);
  auto page = server.Get("/_sim/ui", "");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(server.Get("/_sim/ui/app.js", "").status, 200);
  // What the page's script reads: refused without the token, answered with it.
  for (const char* path : {"/_sim/state?secrets=true", "/_sim/events", "/_sim/deliveries", "/_sim/clock"}) {
    EXPECT_EQ(server.Get(path, "").status, 401) << path;
    EXPECT_EQ(server.Get(path, "", {{"Authorization", "Bearer s3cret-ui-token"}}).status, 200) << path;
  }
  // Payment links are control-plane links: a browser without the token gets the 401 too.
  EXPECT_EQ(server.Get("/_sim/checkout/chk_x", "", {{"Accept", "text/html"}}).status, 401);
}

TEST(SimUi, TheOpenApiDocumentSaysThePagesAreOpenAndWhatTheyAnswer) {
  TestServer server;
  auto r = server.Get("/_sim/openapi.json", "");
  ASSERT_EQ(r.status, 200);
  const json& paths = r.body["paths"];
  EXPECT_EQ(paths["/_sim/ui"]["get"]["security"], json::array());
  EXPECT_TRUE(paths["/_sim/ui"]["get"]["responses"]["200"]["content"].contains("text/html"));
  EXPECT_EQ(paths["/_sim/ui/{file}"]["get"]["security"], json::array());
  EXPECT_TRUE(paths["/_sim/ui/{file}"]["get"]["responses"].contains("304"));
  EXPECT_TRUE(paths["/_sim/checkout/{id}"]["get"]["responses"]["200"]["content"].contains("text/html"));
  EXPECT_TRUE(paths["/_sim/placement-checkouts/{id}/complete"]["post"]["responses"].contains("303"));
  EXPECT_NE(paths["/_sim/state"]["get"]["security"], json::array());  // the data still needs the token
}

}  // namespace
}  // namespace emsim::testing
