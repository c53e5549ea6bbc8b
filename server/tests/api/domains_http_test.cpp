// HTTP tests for Part 4.4 domain operations beyond the list, the checkout pages and
// /_sim/domains/:id/transition: every success path, every error, and the state later calls see.
#include <atomic>
#include <thread>
#include <vector>

#include "runtime/store.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

using model::State;

model::Cents Wallet(TestServer& server, const std::string& account_id) {
  return server.svc().store.Read([&](const State& s) { return s.accounts.Find(account_id)->walletCents; });
}

std::vector<model::Event> Events(TestServer& server) {
  return server.svc().store.Read([](const State& s) { return std::vector<model::Event>(s.events.begin(), s.events.end()); });
}

// Part 6 envelope of a recorded event.
json Envelope(const model::Event& e) {
  return {{"id", e.id}, {"type", e.type}, {"created", e.createdMs / 1000}, {"api_version", e.apiVersion}, {"data", e.data}};
}

// Every domain event recorded so far conforms to its schema (Part 6, schemas/events/).
void ExpectDomainEventsConform(TestServer& server) {
  for (const auto& e : Events(server)) {
    if (e.type.rfind("domain.", 0) != 0) continue;
    EXPECT_EQ(server.SchemaProblems("events/" + e.type, Envelope(e)), "") << Envelope(e).dump();
  }
}

// The domain-list record of `name` in the caller's workspace, or null.
json FindListed(TestServer& server, const std::string& name, const std::string& key = kAliceKey,
                httplib::Headers headers = {}) {
  auto r = server.Get("/v1/domain/list?contains=" + name, key, std::move(headers));
  EXPECT_EQ(r.status, 200) << r.raw;
  for (const auto& d : r.body["data"]["domains"])
    if (d["domain"] == name) return d;
  return nullptr;
}

std::vector<std::string> AvailableNames(const HttpResult& r) {
  std::vector<std::string> out;
  for (const auto& a : r.body["data"]["availableDomains"]) out.push_back(a["domainName"]);
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

void ExpectNotFound(TestServer& server, const HttpResult& r, const std::string& mentioned) {
  EXPECT_EQ(r.status, 404) << r.raw;
  EXPECT_CONFORMS(server, "resources/error_with_id", r.body);
  EXPECT_NE(r.body.value("message", "").find(mentioned), std::string::npos) << r.raw;
}

std::string PathOf(const std::string& url, const TestServer& server) { return url.substr(server.baseUrl().size()); }

// ---- domains.available ---------------------------------------------------------------------------

TEST(DomainsAvailable, AnswersTheAskedNameAndSuggestionsWithPrices) {
  TestServer server;
  auto r = server.Post("/v1/domain/available", {{"domainName", "BrightReach.com"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.available", r.body);
  const json& list = r.body["data"]["availableDomains"];
  ASSERT_GE(list.size(), 2u);
  EXPECT_EQ(list[0], (json{{"domainName", "brightreach.com"}, {"status", "AVAILABLE"}, {"domainPrice", "12.99"},
                           {"renewPrice", "14.99"}}));
  bool saw_catalogue_co = false, saw_variant = false;
  for (const auto& a : list) {
    EXPECT_EQ(a["status"], "AVAILABLE");
    if (a["domainName"] == "brightreach.co") {
      saw_catalogue_co = true;
      EXPECT_EQ(a["domainPrice"], "29.99");  // the catalogue's price, not the default .co one
    }
    if (a["domainName"] == "getbrightreach.com") {
      saw_variant = true;
      EXPECT_EQ(a["renewPrice"], "19.99");
    }
  }
  EXPECT_TRUE(saw_catalogue_co && saw_variant) << r.raw;
}

TEST(DomainsAvailable, PricesAreScaledByYears) {
  TestServer server;
  auto r = server.Post("/v1/domain/available", {{"domainName", "brightreach.com"}, {"years", 3}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["data"]["availableDomains"][0]["domainPrice"], "38.97");
  EXPECT_EQ(r.body["data"]["availableDomains"][0]["renewPrice"], "44.97");
}

TEST(DomainsAvailable, TakenNamesOfAnyAccountAreNotListed) {
  TestServer server;
  for (const char* taken : {"northwindreach.com", "lumenleads.co"}) {  // Alice's own, Bob's
    auto r = server.Post("/v1/domain/available", {{"domainName", taken}});
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_CONFORMS(server, "responses/domains.available", r.body);
    EXPECT_FALSE(Contains(AvailableNames(r), taken)) << r.raw;
  }
}

TEST(DomainsAvailable, BadInputIs400NamingTheField) {
  TestServer server;
  ExpectValidationError(server, server.Post("/v1/domain/available", {{"domainName", "not a domain"}}), "domainName");
  ExpectValidationError(server, server.Post("/v1/domain/available", {{"domainName", "nodot"}}), "domainName");
  ExpectValidationError(server, server.Post("/v1/domain/available", {{"domainName", 42}}), "domainName");
  ExpectValidationError(server, server.Post("/v1/domain/available", json::object()), "domainName");
  for (json years : {json(0), json(11), json(1.5), json("2")})
    ExpectValidationError(server, server.Post("/v1/domain/available", {{"domainName", "a.com"}, {"years", years}}),
                          "years");
  auto r = server.Post("/v1/domain/available", {{"domainName", "bad_name.com"}});
  EXPECT_NE(r.body["errors"][0]["msg"].get<std::string>().find("bad_name"), std::string::npos) << r.raw;
  EXPECT_EQ(server.Post("/v1/domain/available", {{"domainName", "a.com"}}, "").status, 401);
}

// ---- domains.buy: wallet ---------------------------------------------------------------------------

TEST(DomainsBuy, WalletPurchaseDebitsAtOnceAndCreatesThePendingDomain) {
  TestServer server;
  const httplib::Headers labs = {{"x-workspace-key", "ws_labs"}};
  auto r = server.Post("/v1/domain/buy-domain", {{"domainName", "brightreach.com"}, {"useWallet", true}}, kAliceKey, labs);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.buy", r.body);
  EXPECT_FALSE(r.body.contains("status") || r.body.contains("data"));  // Part 4.4
  const std::string link = r.body["paymentLink"];
  ASSERT_EQ(link.rfind(server.baseUrl() + "/_sim/checkout/chk_", 0), 0u) << link;
  EXPECT_EQ(Wallet(server, "acc_alice"), 25000 - 1299);

  // The domain is in the workspace the call acted on, and only there.
  json listed = FindListed(server, "brightreach.com", kAliceKey, labs);
  ASSERT_TRUE(listed.is_object());
  EXPECT_EQ(listed["status"], "PENDING");
  EXPECT_EQ(listed["nameServers"], (json{"ns1.emsim-dns.net", "ns2.emsim-dns.net"}));
  EXPECT_TRUE(FindListed(server, "brightreach.com").is_null());

  // The payment link is the receipt.
  auto checkout = server.Get(PathOf(link, server), "");
  ASSERT_EQ(checkout.status, 200) << checkout.raw;
  EXPECT_EQ(checkout.body["status"], "PAID");
  EXPECT_EQ(checkout.body["paidWith"], "WALLET");
  EXPECT_EQ(checkout.body["amount"], "12.99");
  EXPECT_EQ(checkout.body["domainId"], listed["id"]);
  ExpectValidationError(server, server.Post(PathOf(link, server) + "/complete", json::object(), ""), "id");

  // The name is no longer offered, and cannot be bought again.
  auto again = server.Post("/v1/domain/available", {{"domainName", "brightreach.com"}});
  EXPECT_FALSE(Contains(AvailableNames(again), "brightreach.com"));
  auto twice = server.Post("/v1/domain/buy-domain", {{"domainName", "brightreach.com"}, {"useWallet", true}}, kBobKey);
  ExpectValidationError(server, twice, "domainName");
  EXPECT_EQ(Wallet(server, "acc_bob"), 4000);
}

TEST(DomainsBuy, AdvancingTheClockMovesTheDomainPendingConnectedActive) {
  TestServer server;
  auto r = server.Post("/v1/domain/buy-domain", {{"domainName", "brightreach.com"}, {"useWallet", true}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const std::string id = FindListed(server, "brightreach.com")["id"];
  auto dns = [&] { return server.Post("/v1/domain/dns-check", {{"domainIds", {id}}}).body["data"][0]; };
  EXPECT_EQ(dns()["mxRecords"], false);

  server.Advance("299s");  // domainPendingToConnectedSeconds: 300
  EXPECT_EQ(FindListed(server, "brightreach.com")["status"], "PENDING");
  EXPECT_TRUE(Events(server).empty());
  server.Advance("1s");
  EXPECT_EQ(FindListed(server, "brightreach.com")["status"], "CONNECTED");
  EXPECT_EQ(dns()["mxRecords"], true);
  EXPECT_EQ(dns()["dkimRecords"], false);
  server.Advance("1h");  // domainConnectedToActiveSeconds: 3600
  EXPECT_EQ(FindListed(server, "brightreach.com")["status"], "ACTIVE");
  EXPECT_EQ(dns()["dkimRecords"], true);

  auto events = Events(server);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].type, "domain.updated");
  EXPECT_EQ(events[1].type, "domain.connection_status_changed");
  EXPECT_EQ(events[1].data.Parse()["previousState"]["status"], "PENDING");
  EXPECT_EQ(events[1].data.Parse()["domainDetails"]["status"], "CONNECTED");
  EXPECT_EQ(events[1].data.Parse()["domainDetails"]["workspaceId"], "ws_northwind");
  EXPECT_EQ(events[1].accountId, "acc_alice");
  EXPECT_EQ(events[1].createdMs, *model::ParseIso("2026-01-01T09:05:00.000Z"));
  EXPECT_EQ(events[3].data.Parse()["previousState"]["status"], "CONNECTED");
  ExpectDomainEventsConform(server);
}

// ---- domains.buy: checkout ------------------------------------------------------------------------

TEST(DomainsBuy, WithoutTheWalletNothingIsDeductedUntilTheCheckoutIsCompleted) {
  TestServer server;
  auto r = server.Post("/v1/domain/buy-domain", {{"domainName", "sendlark.io"}, {"years", 2}, {"useWallet", false}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.buy", r.body);
  EXPECT_NE(r.body["message"].get<std::string>().find("78.00"), std::string::npos) << r.raw;
  EXPECT_EQ(Wallet(server, "acc_alice"), 25000);
  EXPECT_TRUE(FindListed(server, "sendlark.io").is_null());
  const std::string path = PathOf(r.body["paymentLink"], server);

  auto pending = server.Get(path, "");
  ASSERT_EQ(pending.status, 200) << pending.raw;
  EXPECT_EQ(pending.body["status"], "PENDING");
  EXPECT_EQ(pending.body["amount"], "78.00");
  EXPECT_EQ(pending.body["years"], 2);
  EXPECT_EQ(pending.body["workspaceId"], "ws_northwind");
  EXPECT_TRUE(pending.body["domainId"].is_null());

  auto done = server.Post(path + "/complete", json::object(), "");
  ASSERT_EQ(done.status, 200) << done.raw;
  EXPECT_EQ(done.body["checkout"]["status"], "PAID");
  EXPECT_EQ(done.body["checkout"]["paidWith"], "CHECKOUT");
  EXPECT_EQ(done.body["domain"]["status"], "PENDING");
  EXPECT_EQ(Wallet(server, "acc_alice"), 25000);  // paid at the checkout, not from the wallet
  EXPECT_EQ(FindListed(server, "sendlark.io")["status"], "PENDING");
  server.Advance("5m");
  EXPECT_EQ(FindListed(server, "sendlark.io")["status"], "CONNECTED");

  auto twice = server.Post(path + "/complete", json::object(), "");
  ExpectValidationError(server, twice, "id");
  EXPECT_NE(twice.body["errors"][0]["msg"].get<std::string>().find("already paid"), std::string::npos);
}

TEST(DomainsBuy, WalletTooSmallFallsBackToACheckoutAndDeductsNothing) {
  TestServer server;
  // Bob has 40.00; two years of a .io is 78.00.
  auto r = server.Post("/v1/domain/buy-domain", {{"domainName", "lumenmail.io"}, {"years", 2}, {"useWallet", true}},
                       kBobKey);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.buy", r.body);
  EXPECT_NE(r.body["message"].get<std::string>().find("Wallet balance 40.00"), std::string::npos) << r.raw;
  EXPECT_EQ(Wallet(server, "acc_bob"), 4000);
  EXPECT_TRUE(FindListed(server, "lumenmail.io", kBobKey).is_null());
  auto pending = server.Get(PathOf(r.body["paymentLink"], server), "");
  EXPECT_EQ(pending.body["status"], "PENDING");
  EXPECT_EQ(pending.body["accountId"], "acc_bob");
}

TEST(DomainsBuy, UnknownCheckoutsAre404) {
  TestServer server;
  ExpectNotFound(server, server.Get("/_sim/checkout/chk_missing", ""), "chk_missing");
  ExpectNotFound(server, server.Post("/_sim/checkout/chk_missing/complete", json::object(), ""), "chk_missing");
}

TEST(DomainsBuy, BadRequestsChangeNothing) {
  TestServer server;
  ExpectValidationError(server, server.Post("/v1/domain/buy-domain", {{"domainName", "bad name.com"}, {"useWallet", true}}),
                        "domainName");
  ExpectValidationError(server, server.Post("/v1/domain/buy-domain", {{"domainName", "getnorthwind.com"}, {"useWallet", true}}),
                        "domainName");
  auto unsold = server.Post("/v1/domain/buy-domain", {{"domainName", "brightreach.xyz"}, {"useWallet", true}});
  ExpectValidationError(server, unsold, "domainName");
  EXPECT_NE(unsold.body["errors"][0]["msg"].get<std::string>().find("cannot be registered"), std::string::npos);
  ExpectValidationError(server, server.Post("/v1/domain/buy-domain", {{"domainName", "a.com"}, {"years", 11}}), "years");
  ExpectValidationError(server, server.Post("/v1/domain/buy-domain", {{"domainName", "a.com"}, {"useWallet", "yes"}}),
                        "useWallet");
  ExpectValidationError(server, server.Post("/v1/domain/buy-domain", {{"useWallet", true}}), "domainName");
  // Gap decision: buy-domain needs the API key like every other operation.
  auto anonymous = server.Post("/v1/domain/buy-domain", {{"domainName", "a.com"}, {"useWallet", true}}, "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_CONFORMS(server, "resources/error_with_id", anonymous.body);
  EXPECT_EQ(Wallet(server, "acc_alice"), 25000);
  EXPECT_TRUE(server.svc().store.Read([](const State& s) { return s.checkouts.empty() && s.jobs.empty(); }));
}

// 20 wallet purchases at once, 39.00 each, against 250.00: exactly 6 fit. Every cent is
// accounted for and the balance never goes below zero.
TEST(DomainsBuy, ConcurrentWalletPurchasesNeverOverdrawAndLoseNoCent) {
  TestServer server;
  constexpr int kBuyers = 20;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  std::vector<int> statuses(kBuyers, 0);
  for (int i = 0; i < kBuyers; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client client("127.0.0.1", server.port());
      client.set_read_timeout(30, 0);
      json body = {{"domainName", "concurrent" + std::to_string(i) + ".io"}, {"useWallet", true}};
      auto res = client.Post("/v1/domain/buy-domain", {{"x-auth-service", kAliceKey}}, body.dump(), "application/json");
      if (res) statuses[i] = res->status;
      else ADD_FAILURE() << "buyer " << i << ": " << httplib::to_string(res.error());
      if (res && res->status == 200) ok++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kBuyers);
  for (int s : statuses) EXPECT_EQ(s, 200);

  server.svc().store.Read([&](const State& s) {
    const model::Cents wallet = s.accounts.Find("acc_alice")->walletCents;
    model::Cents paid = 0;
    int paid_count = 0, pending_count = 0;
    for (const auto& c : s.checkouts) {
      if (c.status == model::CheckoutStatus::kPaid) {
        paid += c.amountCents;
        ++paid_count;
        EXPECT_TRUE(c.domainId && s.domains.Contains(*c.domainId));
      } else {
        ++pending_count;
      }
    }
    EXPECT_GE(wallet, 0);
    EXPECT_EQ(wallet + paid, 25000);
    EXPECT_EQ(paid_count, 6);
    EXPECT_EQ(wallet, 25000 - 6 * 3900);
    EXPECT_EQ(pending_count, kBuyers - 6);
    int bought = 0;
    for (const auto& d : s.domains) bought += d.domain.rfind("concurrent", 0) == 0 ? 1 : 0;
    EXPECT_EQ(bought, 6);
    return 0;
  });
}

// ---- domains.dns_check -----------------------------------------------------------------------------

TEST(DomainsDnsCheck, AnswersTheDnsStateOfEachDomainInRequestOrder) {
  TestServer server;
  auto r = server.Post("/v1/domain/dns-check", {{"domainIds", {"dom_nw_12", "dom_nw_01"}}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.dns_check", r.body);
  ASSERT_EQ(r.body["data"].size(), 2u);
  EXPECT_EQ(r.body["data"][0], (json{{"id", "dom_nw_12"}, {"domain", "northwindteam.org"}, {"spfRecord", true},
                                     {"dmarcRecords", false}, {"dkimRecords", false}, {"mxRecords", true}}));
  EXPECT_EQ(r.body["data"][1]["dmarcRecords"], true);
}

TEST(DomainsDnsCheck, UnknownOrForeignIdsAre404NamingThem) {
  TestServer server;
  ExpectNotFound(server, server.Post("/v1/domain/dns-check", {{"domainIds", {"dom_nw_01", "dom_missing"}}}), "dom_missing");
  ExpectNotFound(server, server.Post("/v1/domain/dns-check", {{"domainIds", {"dom_lu_01"}}}), "dom_lu_01");  // Bob's
  // Another workspace of the same account: the call acts on one workspace (Part 5).
  ExpectNotFound(server, server.Post("/v1/domain/dns-check", {{"domainIds", {"dom_lb_01"}}}), "dom_lb_01");
  auto labs = server.Post("/v1/domain/dns-check", {{"domainIds", {"dom_lb_01"}}}, kAliceKey, {{"x-workspace-key", "ws_labs"}});
  EXPECT_EQ(labs.status, 200) << labs.raw;
  ExpectValidationError(server, server.Post("/v1/domain/dns-check", {{"domainIds", json::array()}}), "domainIds");
  ExpectValidationError(server, server.Post("/v1/domain/dns-check", json::object()), "domainIds");
  ExpectValidationError(server, server.Post("/v1/domain/dns-check", {{"domainIds", {1}}}), "domainIds[0]");
}

// ---- add-dmarc, enable-email-forwarding, enable-catch-all-email -------------------------------------

// The proof that time is what makes asynchronous changes visible: before the clock passes the
// delay nothing is visible, after it everything is.
TEST(DomainsAddDmarc, ChangeIsVisibleOnlyAfterTheClockAdvances) {
  TestServer server;
  auto r = server.Post("/v1/domain/add-dmarc", {{"domainIds", {"dom_nw_12"}}, {"email", "dmarc@northwind.test"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.add_dmarc", r.body);
  EXPECT_TRUE(r.body["data"].is_null());
  EXPECT_NE(r.body["message"].get<std::string>().find("shortly"), std::string::npos);

  auto dmarc = [&] { return server.Post("/v1/domain/dns-check", {{"domainIds", {"dom_nw_12"}}}).body["data"][0]["dmarcRecords"]; };
  EXPECT_TRUE(FindListed(server, "northwindteam.org")["dmarcEmail"].is_null());
  EXPECT_EQ(dmarc(), false);
  EXPECT_EQ(server.Advance("29s"), 0);  // dmarcSeconds: 30
  EXPECT_TRUE(FindListed(server, "northwindteam.org")["dmarcEmail"].is_null());
  EXPECT_TRUE(Events(server).empty());

  EXPECT_EQ(server.Advance("1s"), 1);
  json d = FindListed(server, "northwindteam.org");
  EXPECT_EQ(d["dmarcEmail"], "dmarc@northwind.test");
  EXPECT_EQ(d["dmarcEmailAddedToReseller"], true);
  EXPECT_EQ(d["updatedAt"], "2026-01-01T09:00:30.000Z");
  EXPECT_EQ(dmarc(), true);

  auto events = Events(server);
  ASSERT_EQ(events.size(), 1u);  // a configuration change, not a status change
  EXPECT_EQ(events[0].type, "domain.updated");
  EXPECT_EQ(events[0].data.Parse()["previousState"],
            (json{{"dmarcEmail", nullptr}, {"dmarcEmailAddedToReseller", false}, {"dmarcRecords", false}}));
  ExpectDomainEventsConform(server);
}

TEST(DomainsEnableForwarding, ContainsSelectsByKeywordAndLeavesForwardToAlone) {
  TestServer server;
  const httplib::Headers labs = {{"x-workspace-key", "ws_labs"}};
  auto r = server.Post("/v1/domain/enable-email-forwarding", {{"contains", "NWLABS"}, {"email", "inbox@nwlabs.test"}},
                       kAliceKey, labs);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.enable_forwarding", r.body);
  EXPECT_NE(r.body["message"].get<std::string>().find("4 domains"), std::string::npos) << r.raw;
  EXPECT_TRUE(FindListed(server, "trynwlabs.com", kAliceKey, labs)["forwardingEmail"].is_null());
  server.Advance("60s");  // forwardingSeconds: 60
  for (const char* name : {"trynwlabs.com", "getnwlabs.net", "nwlabs-mail.co", "nwlabsoutreach.com"}) {
    json d = FindListed(server, name, kAliceKey, labs);
    EXPECT_EQ(d["forwardingEmail"], "inbox@nwlabs.test") << name;
    EXPECT_EQ(d["forwardingEmailAdded"], true) << name;
  }
  EXPECT_TRUE(FindListed(server, "northwindlabs.io", kAliceKey, labs)["forwardingEmail"].is_null());
  // northwindreach.com's web redirect stays as loaded (README gap decision).
  EXPECT_EQ(FindListed(server, "northwindreach.com")["forwardTo"], "https://northwind-outreach.com");
  EXPECT_EQ(Events(server).size(), 4u);
  ExpectDomainEventsConform(server);
}

TEST(DomainsEnableCatchAll, DomainIdsAndContainsSelectTheirUnion) {
  TestServer server;
  auto r = server.Post("/v1/domain/enable-catch-all-email",
                       {{"domainIds", {"dom_nw_01"}}, {"contains", "pipeline"}, {"email", "all@northwind.test"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_CONFORMS(server, "responses/domains.enable_catch_all", r.body);
  server.Advance("59s");
  EXPECT_TRUE(FindListed(server, "northwindreach.com")["catchAllEmail"].is_null());
  server.Advance("1s");  // catchAllSeconds: 60
  for (const char* name : {"northwindreach.com", "northwindpipeline.com"}) {
    EXPECT_EQ(FindListed(server, name)["catchAllEmail"], "all@northwind.test") << name;
    EXPECT_EQ(FindListed(server, name)["catchAllEmailAdded"], true) << name;
  }
  EXPECT_TRUE(FindListed(server, "getnorthwind.com")["catchAllEmail"].is_null());
}

TEST(DomainsSettings, BadSelectionsAndBodiesAreRejectedAndScheduleNothing) {
  TestServer server;
  for (const char* path : {"/v1/domain/add-dmarc", "/v1/domain/enable-email-forwarding", "/v1/domain/enable-catch-all-email"}) {
    ExpectNotFound(server, server.Post(path, {{"domainIds", {"dom_nw_01", "dom_nope"}}, {"email", "a@b.co"}}), "dom_nope");
    ExpectNotFound(server, server.Post(path, {{"domainIds", {"dom_lu_01"}}, {"email", "a@b.co"}}), "dom_lu_01");
    ExpectValidationError(server, server.Post(path, {{"domainIds", json::array()}, {"email", "a@b.co"}}), "domainIds");
    ExpectValidationError(server, server.Post(path, {{"contains", "zzzz"}, {"email", "a@b.co"}}), "domainIds");
    ExpectValidationError(server, server.Post(path, {{"domainIds", {"dom_nw_01"}}, {"email", "not-an-email"}}), "email");
    ExpectValidationError(server, server.Post(path, {{"domainIds", {"dom_nw_01"}}}), "email");
    ExpectValidationError(server, server.Post(path, {{"domainIds", "dom_nw_01"}, {"email", "a@b.co"}}), "domainIds");
    EXPECT_EQ(server.Post(path, {{"domainIds", {"dom_nw_01"}}, {"email", "a@b.co"}}, "").status, 401);
  }
  EXPECT_EQ(server.Advance("1d"), 0);
  EXPECT_TRUE(Events(server).empty());
}

// ---- /_sim/domains/:id/transition -------------------------------------------------------------------

TEST(SimDomainTransition, MovesTheDomainAndEmitsItsEvents) {
  TestServer server;
  auto r = server.Post("/_sim/domains/dom_nw_01/transition", {{"status", "CONNECTED"}}, "");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["previousStatus"], "ACTIVE");
  EXPECT_EQ(r.body["domain"]["status"], "CONNECTED");
  EXPECT_EQ(r.body["eventIds"].size(), 2u);
  EXPECT_EQ(FindListed(server, "northwindreach.com")["status"], "CONNECTED");
  auto events = Events(server);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].id, r.body["eventIds"][0]);
  EXPECT_EQ(events[1].type, "domain.connection_status_changed");
  EXPECT_EQ(events[1].data.Parse()["previousState"], (json{{"status", "ACTIVE"}}));
  EXPECT_EQ(events[1].data.Parse()["domainDetails"]["assignedMailboxesCount"], 8);

  // The same status again changes nothing.
  auto same = server.Post("/_sim/domains/dom_nw_01/transition", {{"status", "CONNECTED"}}, "");
  ASSERT_EQ(same.status, 200);
  EXPECT_TRUE(same.body["eventIds"].empty());
  ExpectDomainEventsConform(server);
}

TEST(SimDomainTransition, UnknownDomainIs404AndUnknownStatusIs400) {
  TestServer server;
  ExpectNotFound(server, server.Post("/_sim/domains/dom_nope/transition", {{"status", "ACTIVE"}}, ""), "dom_nope");
  ExpectValidationError(server, server.Post("/_sim/domains/dom_nw_01/transition", {{"status", "DELETED"}}, ""), "status");
  ExpectValidationError(server, server.Post("/_sim/domains/dom_nw_01/transition", json::object(), ""), "status");
  EXPECT_TRUE(Events(server).empty());
}

// ---- state: reset, dump, load -----------------------------------------------------------------------

TEST(DomainsState, CheckoutsAndPendingLifecycleJobsSurviveDumpAndLoad) {
  TestServer server;
  auto unpaid = server.Post("/v1/domain/buy-domain", {{"domainName", "sendlark.io"}});
  auto paid = server.Post("/v1/domain/buy-domain", {{"domainName", "leadloom.io"}, {"useWallet", true}});
  ASSERT_EQ(unpaid.status, 200);
  ASSERT_EQ(paid.status, 200);
  auto dump = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(dump.status, 200);
  EXPECT_EQ(dump.body["checkouts"].size(), 2u);

  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(server.Get(PathOf(unpaid.body["paymentLink"], server), "").status, 404);
  EXPECT_TRUE(FindListed(server, "leadloom.io").is_null());
  EXPECT_EQ(Wallet(server, "acc_alice"), 25000);

  ASSERT_EQ(server.Put("/_sim/state", dump.body).status, 200);
  EXPECT_EQ(server.Get(PathOf(unpaid.body["paymentLink"], server), "").body["status"], "PENDING");
  EXPECT_EQ(Wallet(server, "acc_alice"), 25000 - 3900);
  server.Advance("5m");
  EXPECT_EQ(FindListed(server, "leadloom.io")["status"], "CONNECTED");
  EXPECT_EQ(server.Post(PathOf(unpaid.body["paymentLink"], server) + "/complete", json::object(), "").status, 200);
}

}  // namespace
}  // namespace emsim::testing
