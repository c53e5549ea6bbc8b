// The checkout page (api/control/checkout_page.hpp): a payment link opened by a browser answers
// HTML with Pay and Decline forms; paying through the form is the JSON completion; declining
// changes nothing; a used or unknown link says so; JSON clients get what they always got.
#include "api/control/checkout_page.hpp"
#include "tests/support/billing_test_util.hpp"

namespace emsim::testing {
namespace {

// What Chromium and Firefox send when following a link or submitting a form.
const httplib::Headers kBrowser = {
    {"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"}};

std::string PathOfLink(TestServer& server, const std::string& url) {
  EXPECT_EQ(url.rfind(server.baseUrl(), 0), 0u) << url;
  return url.substr(server.baseUrl().size());
}

// A ONE_TIME placement purchase the $5 wallet cannot pay: its checkout path.
std::string OpenPlacementCheckout(TestServer& server, const std::string& test_name = "Q1 inbox check") {
  EXPECT_EQ(server.Put("/_sim/wallet", {{"balance", 5}}, kAliceKey).status, 200);
  auto r = server.Post("/v2/placement-tests/purchase", {{"placementType", "ONE_TIME"},
                                                        {"testName", test_name},
                                                        {"mailboxIds", {"mbx_nw_01_01", "mbx_nw_01_02", "mbx_nw_01_03"}}});
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["data"]["checkoutSession"], true) << r.raw;
  return PathOfLink(server, r.body["data"].value("checkoutUrl", ""));
}

// The form's POST: an empty body, as a browser sends a form with no named fields.
HttpResult SubmitPayForm(TestServer& server, const std::string& action) {
  return server.Send("POST", action, "", "", kBrowser, "application/x-www-form-urlencoded");
}

bool Has(const HttpResult& r, const std::string& text) { return r.raw.find(text) != std::string::npos; }

TEST(CheckoutPage, BrowsersGetTheTypedQualityRankingAndJsonClientsKeepJson) {
  EXPECT_TRUE(api::PrefersHtml("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"));
  EXPECT_TRUE(api::PrefersHtml("application/json;q=0.5, text/html"));
  EXPECT_TRUE(api::PrefersHtml("TEXT/HTML"));
  EXPECT_FALSE(api::PrefersHtml(""));
  EXPECT_FALSE(api::PrefersHtml("*/*"));
  EXPECT_FALSE(api::PrefersHtml("application/json"));
  EXPECT_FALSE(api::PrefersHtml("application/json, text/html"));  // a tie keeps JSON
  EXPECT_FALSE(api::PrefersHtml("text/html;q=0.4, application/json;q=0.9"));
  EXPECT_FALSE(api::PrefersHtml("text/*;q=0.1, */*"));
  EXPECT_FALSE(api::PrefersHtml("garbage, ;;;, text"));
  EXPECT_EQ(api::HtmlEscape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(CheckoutPage, APlacementCheckoutOpensAsAPageWithAccountAmountAndWhatIsBoughtEscaped) {
  TestServer server;
  const std::string link = OpenPlacementCheckout(server, "Q1 <script>alert('x')</script> & co");
  auto page = server.Get(link, "", kBrowser);
  ASSERT_EQ(page.status, 200) << page.raw;
  EXPECT_EQ(page.Header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(page.Header("Cache-Control"), "no-store");
  EXPECT_TRUE(Has(page, "$6.00 USD")) << page.raw;
  EXPECT_TRUE(Has(page, "ONE_TIME placement test &quot;Q1 &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co&quot; of 3 mailboxes"))
      << page.raw;
  EXPECT_FALSE(Has(page, "<script>")) << page.raw;
  EXPECT_TRUE(Has(page, "alice@")) << page.raw;  // the account's owner
  EXPECT_TRUE(Has(page, "<form method=\"post\" action=\"" + link + "/complete\">")) << page.raw;
  EXPECT_TRUE(Has(page, "<form method=\"get\" action=\"" + link + "\"><input type=\"hidden\" name=\"declined\""))
      << page.raw;

  // JSON clients: no Accept, */*, or JSON asked for, the answer of before.
  for (const httplib::Headers& h : {httplib::Headers{}, httplib::Headers{{"Accept", "*/*"}},
                                    httplib::Headers{{"Accept", "application/json"}}}) {
    auto json_answer = server.Get(link, "", h);
    ASSERT_EQ(json_answer.status, 200) << json_answer.raw;
    EXPECT_EQ(json_answer.Header("Content-Type"), "application/json");
    EXPECT_EQ(json_answer.body["status"], "AWAITING_PAYMENT");
    EXPECT_EQ(json_answer.body["amount"], "6.00");
  }
}

TEST(CheckoutPage, PayingThroughTheFormIsTheJsonCompletionAndRedirectsBackToThePage) {
  TestServer server;
  const std::string link = OpenPlacementCheckout(server);
  const size_t events_before = EventsOf(server, "placement_test.status_changed").size();
  const std::string invoice = server.Get(link, "").body["invoiceId"];

  auto paid = SubmitPayForm(server, link + "/complete");
  ASSERT_EQ(paid.status, 303) << paid.raw;
  EXPECT_EQ(paid.Header("Location"), link + "?paid=1");
  // What the JSON completion does: the invoice paid by checkout, the three orders started with
  // their events, the wallet untouched (the card paid).
  EXPECT_EQ(server.Get(link, "").body["status"], "PAID");
  auto inv = server.Get("/_sim/invoices/" + invoice, "");
  EXPECT_EQ(inv.body["status"], "PAID");
  EXPECT_EQ(inv.body["paidWith"], "CHECKOUT");
  EXPECT_EQ(EventsOf(server, "placement_test.status_changed").size(), events_before + 3);
  EXPECT_EQ(WalletCents(server), 500);

  auto after = server.Get(paid.Header("Location"), "", kBrowser);
  ASSERT_EQ(after.status, 200);
  EXPECT_TRUE(Has(after, "Payment complete")) << after.raw;
  EXPECT_FALSE(Has(after, "id=\"pay\"")) << after.raw;

  // The link again later, and the form posted a second time: used, nothing happens.
  auto used = server.Get(link, "", kBrowser);
  EXPECT_TRUE(Has(used, "This payment link was already used: paid at this checkout on")) << used.raw;
  EXPECT_FALSE(Has(used, "id=\"pay\"")) << used.raw;
  auto twice = SubmitPayForm(server, link + "/complete");
  EXPECT_EQ(twice.status, 303) << twice.raw;
  EXPECT_EQ(twice.Header("Location"), link);
  EXPECT_EQ(EventsOf(server, "placement_test.status_changed").size(), events_before + 3);
  // A JSON client paying twice still gets its 400.
  EXPECT_VALIDATION_ERROR(server, server.Post(link + "/complete", json::object(), ""), "id");
}

TEST(CheckoutPage, PayingAWalletTopUpThroughTheFormCreditsTheWalletOnce) {
  TestServer server;
  const std::int64_t before = WalletCents(server);
  auto topup = server.Post("/v2/wallet/balance", {{"amount", 25}});
  ASSERT_EQ(topup.status, 200) << topup.raw;
  const std::string link = PathOfLink(server, topup.body["paymentLink"]);
  auto page = server.Get(link, "", kBrowser);
  ASSERT_EQ(page.status, 200) << page.raw;
  EXPECT_TRUE(Has(page, "Wallet top-up")) << page.raw;
  EXPECT_TRUE(Has(page, "$25.00 USD")) << page.raw;

  auto paid = SubmitPayForm(server, link + "/complete");
  ASSERT_EQ(paid.status, 303) << paid.raw;
  EXPECT_EQ(WalletCents(server), before + 2500);
  EXPECT_TRUE(Has(server.Get(link + "?paid=1", "", kBrowser), "The wallet was credited $25.00 USD."));
  EXPECT_EQ(SubmitPayForm(server, link + "/complete").status, 303);
  EXPECT_EQ(WalletCents(server), before + 2500);
}

TEST(CheckoutPage, DecliningChangesNothingAndTheLinkCanStillBePaid) {
  TestServer server;
  const std::string link = OpenPlacementCheckout(server);
  const json dump_before = server.Get("/_sim/state?secrets=true", "").body;

  auto declined = server.Get(link + "?declined=1", "", kBrowser);
  ASSERT_EQ(declined.status, 200) << declined.raw;
  EXPECT_TRUE(Has(declined, "You declined this payment. Nothing was charged and nothing changed")) << declined.raw;
  EXPECT_TRUE(Has(declined, "id=\"pay\"")) << declined.raw;  // still open
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, dump_before);

  ASSERT_EQ(SubmitPayForm(server, link + "/complete").status, 303);
  EXPECT_EQ(server.Get(link, "").body["status"], "PAID");
}

TEST(CheckoutPage, AnUnknownLinkSaysSoInHtmlAndInJsonAsBefore) {
  TestServer server;
  auto page = server.Get("/_sim/checkout/chk_nope", "", kBrowser);
  EXPECT_EQ(page.status, 404);
  EXPECT_EQ(page.Header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_TRUE(Has(page, "Unknown payment link")) << page.raw;
  EXPECT_EQ(SubmitPayForm(server, "/_sim/placement-checkouts/nope/complete").status, 404);
  EXPECT_ERROR_WITH_ID(server, server.Get("/_sim/checkout/chk_nope", ""), 404);
  EXPECT_ERROR_WITH_ID(server, server.Post("/_sim/placement-checkouts/nope/complete", json::object(), ""), 404);
}

TEST(CheckoutPage, ADomainWhoseNameWasTakenMeanwhileShowsTheErrorAndStaysOpen) {
  TestServer server;
  auto open = server.Post("/v1/domain/buy-domain", {{"domainName", "sendlark.io"}, {"years", 2}, {"useWallet", false}});
  ASSERT_EQ(open.status, 200) << open.raw;
  const std::string link = PathOfLink(server, open.body["paymentLink"]);
  auto page = server.Get(link, "", kBrowser);
  ASSERT_EQ(page.status, 200) << page.raw;
  EXPECT_TRUE(Has(page, "Domain purchase")) << page.raw;
  EXPECT_TRUE(Has(page, "sendlark.io for 2 years")) << page.raw;

  // Bob buys the name from his wallet first; Alice's Pay then fails, visibly, changing nothing.
  auto bob = server.Post("/v1/domain/buy-domain", {{"domainName", "sendlark.io"}, {"useWallet", true}}, kBobKey);
  ASSERT_EQ(bob.status, 200) << bob.raw;
  auto refused = SubmitPayForm(server, link + "/complete");
  EXPECT_EQ(refused.status, 400) << refused.raw;
  EXPECT_TRUE(Has(refused, "The payment did not go through")) << refused.raw;
  EXPECT_TRUE(Has(refused, "sendlark.io has been registered since this checkout was opened")) << refused.raw;
  EXPECT_EQ(server.Get(link, "").body["status"], "PENDING");
}

}  // namespace
}  // namespace emsim::testing
