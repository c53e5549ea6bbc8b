// Model tier: no sockets, no clock reads. Time, money, ids, paging, auth, lists, billing,
// dump/load, fixtures and the schema registry's messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>

#include "cli/app.hpp"
#include "core/json_out.hpp"
#include "model/auth.hpp"
#include "model/domains.hpp"
#include "model/mailboxes.hpp"
#include "core/messages.hpp"
#include "model/money.hpp"
#include "model/paging.hpp"
#include "model/state_secrets.hpp"
#include "runtime/store.hpp"
#include "core/text.hpp"
#include "model/workspaces.hpp"
#include "schema/registry.hpp"
#include "fixture/fixtures.hpp"
#include "tests/support/record_read_check.hpp"
#include "tests/support/test_server.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim {
namespace {

using model::Millis;

TEST(Time, FormatsAndParsesIsoWithMilliseconds) {
  EXPECT_EQ(model::FormatIso(0), "1970-01-01T00:00:00.000Z");
  auto t = model::ParseIso("2026-01-01T09:00:00.123Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(model::FormatIso(*t), "2026-01-01T09:00:00.123Z");
  EXPECT_EQ(*model::ParseIso("2024-02-29T00:00:00Z"), *model::ParseIso("2024-02-29"));
  EXPECT_EQ(*model::ParseIso("2026-01-01T10:00:00+01:00"), *model::ParseIso("2026-01-01T09:00:00.000Z"));
  EXPECT_FALSE(model::ParseIso("2025-02-29T00:00:00Z"));  // not a leap year
  EXPECT_FALSE(model::ParseIso("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(model::ParseIso("2026-01-01T09:00:00"));   // a time needs a zone
  EXPECT_FALSE(model::ParseIso("yesterday"));
}

TEST(Time, ParsesDurations) {
  EXPECT_EQ(model::ParseDuration("90s"), 90 * model::kSecond);
  EXPECT_EQ(model::ParseDuration("5m"), 5 * model::kMinute);
  EXPECT_EQ(model::ParseDuration("2h"), 2 * model::kHour);
  EXPECT_EQ(model::ParseDuration("1d"), model::kDay);
  EXPECT_EQ(model::ParseDuration("1500ms"), 1500);
  EXPECT_EQ(model::ParseDuration("30"), 30 * model::kSecond);
  EXPECT_FALSE(model::ParseDuration("5 minutes"));
  EXPECT_FALSE(model::ParseDuration(""));
}

TEST(Money, DecimalTextRoundTripsThroughCents) {
  EXPECT_EQ(model::ParseDecimal("12.99"), 1299);
  EXPECT_EQ(model::ParseDecimal("12.9"), 1290);
  EXPECT_EQ(model::ParseDecimal("12"), 1200);
  EXPECT_EQ(model::ParseDecimal("-3.50"), -350);
  EXPECT_FALSE(model::ParseDecimal("1.999"));
  EXPECT_FALSE(model::ParseDecimal("12,99"));
  EXPECT_FALSE(model::ParseDecimal("."));
  EXPECT_EQ(model::FormatDecimal(1299), "12.99");
  EXPECT_EQ(model::FormatDecimal(5), "0.05");
  EXPECT_EQ(model::FormatDecimal(-350), "-3.50");
}

TEST(Ids, AreReproducibleFromTheSeedAndWellFormed) {
  model::IdGenerator a(42), b(42), c(43);
  const std::string first = a.Uuid4();
  EXPECT_EQ(first, b.Uuid4());
  EXPECT_NE(first, c.Uuid4());
  EXPECT_NE(first, a.Uuid4());
  EXPECT_TRUE(std::regex_match(first, std::regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")));
  const std::string v7 = a.UuidV7(*model::ParseIso("2026-01-01T09:00:00.000Z"));
  EXPECT_TRUE(std::regex_match(v7, std::regex("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")));
  char prefix[16];  // UUIDv7 starts with the 48-bit Unix-ms timestamp
  std::snprintf(prefix, sizeof prefix, "%08llx", static_cast<unsigned long long>(*model::ParseIso("2026-01-01T09:00:00.000Z") >> 16));
  EXPECT_EQ(v7.substr(0, 8), prefix);
  EXPECT_EQ(model::StableId("mailbox:a.com/x"), model::StableId("mailbox:a.com/x"));
  EXPECT_NE(model::StableId("mailbox:a.com/x"), model::StableId("mailbox:a.com/y"));
}

TEST(Paging, CountersAgreeWithThePages) {
  auto p = model::Paginate(45, 1);
  EXPECT_EQ(p.totalPages, 3);
  EXPECT_EQ(p.nextPage, 2);
  EXPECT_EQ(p.end - p.begin, 20);
  p = model::Paginate(45, 3);
  EXPECT_EQ(p.nextPage, 0);
  EXPECT_EQ(p.end - p.begin, 5);
  p = model::Paginate(45, 9);
  EXPECT_EQ(p.end - p.begin, 0);
  p = model::Paginate(0, 1);
  EXPECT_EQ(p.totalPages, 0);
  EXPECT_EQ(p.nextPage, 0);
}

TEST(Auth, ResolvesAccountAndWorkspace) {
  auto s = testing::DefaultFixtureState();
  auto c = model::Authenticate(s, "emsim_test_alice_3f9c2a7b", "", true);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->accountId, "acc_alice");
  EXPECT_EQ(c->workspaceId, "ws_northwind");  // the default workspace
  c = model::Authenticate(s, "emsim_test_alice_3f9c2a7b", "ws_labs", true);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->workspaceId, "ws_labs");
  c = model::Authenticate(s, "emsim_test_alice_3f9c2a7b", "ws_lumen", true);  // Bob's
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, model::ErrorCode::kNotFound);
  c = model::Authenticate(s, "nope", "", true);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, model::ErrorCode::kUnauthorized);
  EXPECT_EQ(c.error().message, model::msg::kInvalidApiKey);
  c = model::Authenticate(s, "emsim_test_alice_3f9c2a7b", "ws_lumen", false);  // webhooks ignore it
  ASSERT_TRUE(c);
  EXPECT_EQ(c->workspaceId, "");
}

TEST(Lists, DomainFilterIsCaseInsensitiveAndPaged) {
  auto s = testing::DefaultFixtureState();
  model::Caller alice{"acc_alice", "ws_northwind"};
  auto all = model::ListDomains(s, alice, "", 1);
  EXPECT_EQ(all.page.totalSearchedCount, 14);
  EXPECT_EQ(all.domains.size(), 14u);
  const std::string name = all.domains[0]->domain;
  auto one = model::ListDomains(s, alice, model::ToUpper(name), 1);
  ASSERT_GE(one.domains.size(), 1u);
  EXPECT_EQ(one.domains[0]->domain, name);
  auto none = model::ListDomains(s, alice, "zzz-no-such", 1);
  EXPECT_EQ(none.page.totalSearchedCount, 0);
}

TEST(Lists, MailboxCountersComeFromState) {
  auto s = testing::DefaultFixtureState();
  model::Caller alice{"acc_alice", "ws_northwind"};
  auto v = model::ListMailboxes(s, alice, "", 1);
  std::int64_t in_ws = 0, active = 0, account = 0;
  for (const auto& m : s.mailboxes) {
    if (m.accountId == "acc_alice") ++account;
    if (m.workspaceId == "ws_northwind") {
      ++in_ws;
      active += m.status == model::MailboxStatus::kActive;
    }
  }
  EXPECT_EQ(v.totalAssignedMailboxes, in_ws);
  EXPECT_EQ(v.totalActiveMailboxes, active);
  EXPECT_EQ(v.purchasedMailboxes, 150);  // only the ACTIVE ENTERPRISE subscription counts
  EXPECT_EQ(v.availableMailboxes, 150 - account);
  EXPECT_EQ(v.page.totalSearchedCount, in_ws);
  size_t on_page = 0;
  for (const auto& g : v.domains) {
    for (const auto* m : g.mailboxes) EXPECT_EQ(m->domainId, g.domain->id);
    on_page += g.mailboxes.size();
  }
  EXPECT_EQ(on_page, 20u);
}

TEST(Billing, UpsertKeepsIdAndRejectsForeignWorkspace) {
  auto s = testing::DefaultFixtureState();
  model::Caller alice{"acc_alice", "ws_northwind"};
  model::BillingInput in{"ws_labs", "Ada", "Lovelace", "Analytical", "1 Engine St", std::nullopt, std::nullopt,
                         "London", "LDN", "GB", "N1", "+44", "2071234567"};
  ASSERT_TRUE(model::AddOrUpdateBilling(s, alice, in, 0));
  const std::string id = s.workspaces.Find("ws_labs")->billingDetails->id;
  in.city = "Cambridge";
  ASSERT_TRUE(model::AddOrUpdateBilling(s, alice, in, 0));
  const auto& b = *s.workspaces.Find("ws_labs")->billingDetails;
  EXPECT_EQ(b.id, id);
  EXPECT_EQ(b.city, "Cambridge");
  EXPECT_EQ(b.userId, "usr_alice");
  in.workspaceId = "ws_lumen";
  auto r = model::AddOrUpdateBilling(s, alice, in, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, model::ErrorCode::kNotFound);
  EXPECT_FALSE(s.workspaces.Find("ws_lumen")->billingDetails->city == "Cambridge");
}

TEST(Store, DumpLoadRoundTripsExactly) {
  runtime::Store store(testing::DefaultFixtureState());
  store.Write([](model::State& s) {
    s.ids.Uuid4();
    s.Schedule(123, "x.kind", {{"a", 1}});
    s.Emit("domain.updated", "acc_alice", {{"k", "v"}}, 1000);
  });
  const json dump = store.Dump();
  runtime::Store other(model::State{});
  other.Load(dump);
  EXPECT_EQ(other.Dump(), dump);
  store.Reset();
  EXPECT_NE(store.Dump(), dump);
}

// --data-dir writes each changed record as model::AppendRecordJson makes it, and a restart reads
// it back as a state load does: it must be the record's dump byte for byte, for every kind, with
// the members a dump leaves out at their defaults both at their defaults and set.
template <class T>
void ExpectRecordText(const T& v, const char* kind) {
  std::string text;
  model::AppendRecordJson(text, v);
  EXPECT_EQ(text, core::DumpJson(json(v))) << kind;
  // and read back (a data dir's start) to the same record
  T back{};
  ASSERT_TRUE(model::ReadRecordText(text, back)) << kind << ": " << text;
  std::string again;
  model::AppendRecordJson(again, back);
  EXPECT_EQ(again, text) << kind;
}

// The default fixture and a record of every kind with its rarely set members set, escapes and
// UTF-8 in its text, and members of every type a record has (json, maps, doubles, job arguments).
model::State EveryKindOfRecord() {
  model::State s = testing::DefaultFixtureState();
  const std::string odd = "caf\xC3\xA9 \"q\" \\ \n\t\x01 \xE2\x82\xAC";  // escapes and UTF-8
  model::Account a;
  a.id = "acc_x";
  a.apiKey = odd;
  a.autoRecharge.enabled = true;
  a.autoRecharge.amountCents = 500;
  s.AddAccount(a);
  model::Workspace w;
  w.id = "wks_x";
  w.accountId = "acc_x";
  w.invitations.push_back({"inv_1", "a@b.c", "PENDING", 7});
  s.workspaces.Insert(w);
  model::Mailbox m;
  m.id = "mbx_x";
  m.removeOnNextRenewal = true;
  s.mailboxes.Insert(m);
  model::Checkout c1, c2;
  c1.id = "chk_1";
  c2.id = "chk_2";
  c2.purpose = model::kCheckoutForWallet;
  c2.domainId = "dom_1";
  c2.paidAt = 99;
  s.checkouts.Insert(c1);
  s.checkouts.Insert(c2);
  model::Tenant t1, t2;
  t1.id = "acc_t1";
  t2.id = "acc_t2";
  t2.clock = "own";
  t2.clockMode = "manual";
  t2.clockNow = 123;
  t2.idsCounter = 9223372036854775807u;  // the largest a document takes (kStateJsonLimits: int64)
  s.tenants.Insert(t1);
  s.tenants.Insert(t2);
  model::PlacementCart cart;
  cart.id = "crt_1";
  cart.creditsUsed.push_back({"sub_1", 3});
  cart.orderIds = {"ord_1", "ord_2"};
  cart.paidAt = -5;
  s.placementCarts.Insert(cart);
  model::PlacementTest test;
  test.id = "ord_1";
  test.mailboxEmail = odd;
  s.placementTests.Insert(test);
  model::Invoice invoice;
  invoice.id = "inv_x";
  s.invoices.Insert(invoice);
  model::Email e;
  e.id = "eml_x";
  e.from.push_back({odd, "x@y.z"});
  e.cc = {"c@d.e"};
  s.emails.Insert(e);
  model::MailboxExport x;
  x.id = "exp_x";
  x.filters = {{"b", 1.5}, {"a", {nullptr, true}}};
  model::ExportAppResult result;
  result.app = "CSV";
  result.accountEmail = "q@r.s";
  result.sentMailboxes = {"m@n.o"};
  x.results.push_back(result);
  x.csv = "a,b\n";
  s.exports.Insert(x);
  model::ThirdPartyAccount third;
  third.id = "tpa_x";
  third.email = odd;
  s.thirdPartyAccounts.Insert(third);
  model::WebhookEndpoint ep;
  ep.id = "we_x";
  ep.enabledEvents = {"domain.updated"};
  ep.disabledAt = 4;
  s.webhookEndpoints.Insert(ep);
  model::Sink sink;
  sink.id = "snk_x";
  model::SinkRequest request;
  request.number = 1;
  request.headers = {{"x-a", "1"}};
  request.signatureValid = false;
  sink.requests.push_back(request);
  sink.processing.applied = {"evt_1"};
  sink.processing.seen = {"evt_1"};
  s.sinks.Insert(sink);
  model::Fault f1, f2;
  f1.id = "flt_1";
  f2.id = "flt_2";
  f2.apiKey = odd;
  f2.status = 503;
  f2.duplicate = true;
  f2.probability = 0.25;
  f2.body = {{"z", "y"}};
  s.faults = {f1, f2};
  s.Emit("domain.updated", "acc_x", {{"n", -1}, {"s", odd}}, 1000);
  s.Notify("acc_x", odd, "m", json{{"k", 1}}, 1000);
  s.Schedule(5, "x.kind", {{"b", {1, 2}}, {"a", "x"}});
  model::DeliveryAttempt d1, d2;
  d1.id = "dlv_1";
  d2.id = "dlv_2";
  d2.injected = {{"duplicate", true}};
  d2.responseStatus = 500;
  s.deliveries = {d1, d2};
  model::WalletMovement movement;
  movement.id = "wm_1";
  movement.amountCents = -300;
  s.walletMovements.push_back(movement);
  return s;
}

// Calls f(kind, record) for every record of `s`, kind as the data dir's table name.
template <class F>
void ForEachRecord(const model::State& s, F&& f) {
  auto all = [&](const char* kind, const auto& records) {
    for (const auto& r : records) f(kind, r);
  };
  all("accounts", s.accounts);
  all("workspaces", s.workspaces);
  all("domains", s.domains);
  all("mailboxes", s.mailboxes);
  all("subscriptions", s.subscriptions);
  all("dnsShield", s.dnsShield);
  all("emails", s.emails);
  all("invoices", s.invoices);
  all("placementCarts", s.placementCarts);
  all("placementTests", s.placementTests);
  all("exports", s.exports);
  all("thirdPartyAccounts", s.thirdPartyAccounts);
  all("tenants", s.tenants);
  all("checkouts", s.checkouts);
  all("webhookEndpoints", s.webhookEndpoints);
  all("sinks", s.sinks);
  all("events", s.events);
  all("deliveries", s.deliveries);
  all("notifications", s.notifications);
  all("walletMovements", s.walletMovements);
  all("faults", s.faults);
  for (const auto& [key, job] : s.jobs) f("jobs", job);
}

TEST(RecordText, IsTheRecordsDumpByteForByte) {
  std::map<std::string, size_t> seen;
  ForEachRecord(EveryKindOfRecord(), [&](const char* kind, const auto& r) {
    ExpectRecordText(r, kind);
    ++seen[kind];
  });
  EXPECT_EQ(seen.size(), 22u);
  EXPECT_GT(seen["mailboxes"], 10u);
}

// GET /_sim/state writes the lists a world grows in from their records: the text must be the
// document's, byte for byte, with every kind of record, after the edits the control plane makes
// (masked secrets, the clock), and for a world whose lists are empty.
TEST(StateText, IsTheDocumentsDumpByteForByte) {
  const model::State world = EveryKindOfRecord();
  auto edit = [](json& doc) {
    model::MaskSecrets(doc);
    doc["clock"] = {{"mode", "manual"}, {"epochMs", 1767258000000}};
  };
  json expected = model::DumpState(world);
  ASSERT_FALSE(expected["events"].empty());
  ASSERT_FALSE(expected["jobs"].empty());
  ASSERT_FALSE(expected["walletMovements"].empty());
  EXPECT_EQ(model::DumpStateText(world), expected.dump());
  edit(expected);
  EXPECT_EQ(model::DumpStateText(world, edit), expected.dump());
  EXPECT_EQ(expected["accounts"][0]["apiKey"], model::kMaskedSecret);
  const model::State empty;
  EXPECT_EQ(model::DumpStateText(empty), model::DumpState(empty).dump());
}

// `emsim serve --state FILE` reads the growing lists of a JSON state file straight into records
// (model::LoadStateText). It loads the world a document load gives, and refuses what that refuses
// with the same message.
// A world a state load takes, with entries in every growing list: placement purchases (from
// credits and from the wallet), events with deliveries that failed and retries pending, a wallet
// top-up, a notification.
model::State BusyWorld() {
  using namespace testing;
  Receiver receiver;
  receiver.AlwaysAnswer(500);
  TestServer server;
  EXPECT_EQ(server.Put("/_sim/wallet", {{"balance", 500}}, kAliceKey).status, 200);
  for (const char* type : {"MONTHLY", "ONE_TIME"})
    EXPECT_EQ(server.Post("/v2/placement-tests/purchase", {{"placementType", type}, {"testName", "t\u00e9\"q"},
                                                           {"mailboxIds", {"mbx_nw_01_01", "mbx_nw_01_02"}}})
                  .status,
              200);
  CreateEndpoint(server, receiver.Url());
  Trigger(server);
  Trigger(server);
  server.Advance("70s");
  model::State s = server.svc().store.Read([](const model::State& s) { return s; });
  s.Notify("acc_alice", "subject", "message", {{"k", {1, "two"}}}, s.events.back().createdMs);
  return s;
}

TEST(StateText, LoadsTheWorldTheDocumentLoadsWithItsErrors) {
  const model::State world = BusyWorld();
  for (const char* list : {"events", "deliveries", "jobs", "invoices", "placementCarts", "placementTests",
                           "walletMovements", "notifications", "emails", "mailboxes", "domains"})
    EXPECT_FALSE(model::DumpState(world).value(list, json()).empty()) << list;
  const std::string text = model::DumpStateText(world, [](json& doc) { doc["clock"] = {{"epochMs", 7}}; });
  model::LoadedStateText loaded = model::LoadStateText(text);
  EXPECT_TRUE(loaded.direct);
  EXPECT_EQ(model::DumpState(loaded.state), model::DumpState(world));
  EXPECT_EQ(loaded.rest["clock"]["epochMs"], 7);
  EXPECT_FALSE(loaded.rest.contains("mailboxes"));
  EXPECT_EQ(model::IndexProblems(loaded.state), "");
  EXPECT_TRUE(model::LoadStateText(" {\n} ").direct);

  // What the document path answers for a text: the world's dump, or the error.
  auto by_document = [](const std::string& t) -> std::string {
    auto doc = model::ParseJsonLimited(t, model::kStateJsonLimits, "state");
    if (!doc) return "error: " + doc.error().errors.front().msg;
    try {
      return model::DumpState(model::LoadState(*doc)).dump();
    } catch (const std::exception& e) {
      return std::string("error: ") + e.what();
    }
  };
  auto by_text = [](const std::string& t) -> std::string {
    try {
      return model::DumpState(model::LoadStateText(t).state).dump();
    } catch (const std::exception& e) {
      return std::string("error: ") + e.what();
    }
  };
  const json doc = json::parse(text);
  const std::string mailbox = doc["mailboxes"][0].dump();
  auto with = [&](std::string from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.substr(0, at) + to + text.substr(at + from.size());
  };
  auto with_domain_id = [](std::string m) { return m.replace(m.find("\"domainId\":\"") + 12, 0, "nowhere"); };
  const std::vector<std::string> refused = {
      with(mailbox, mailbox + "," + mailbox),                                      // a repeated id
      with(mailbox, with_domain_id(mailbox)),                                      // a dangling reference
      with("\"mailboxes\":[", "\"mailboxes\":[1,"),                                  // not a record
      with("\"plans\":", "\"nonsense\":1,\"plans\":"),                               // an unknown key
      text.substr(0, text.size() / 2),                                             // cut short
      text + "x",                                                                  // trailing bytes
      with("\"mailboxes\":[", "\"mailboxes\":[ " + mailbox.substr(0, 20) + std::string(1, '\0') + mailbox.substr(20) + ","),
      "[]", "", "{\"events\":{}}",
  };
  for (size_t i = 0; i < refused.size(); ++i) {
    const std::string want = by_document(refused[i]);
    EXPECT_EQ(by_text(refused[i]), want) << "refused text " << i;
    EXPECT_EQ(want.rfind("error: ", 0), 0u) << "refused text " << i << " is taken";
  }
  // Texts the document takes, though not in a dump's form: read to the same world.
  const std::vector<std::string> taken = {
      with(mailbox, mailbox.substr(0, mailbox.size() - 1) + ",\"extra\":1}"),      // an unknown member
      with("\"mailboxes\":", "\"mailboxes\":null,\"mailboxes\":"),                   // a repeated key: the last
      with("\"mailboxes\":", "\"m\\u0061ilboxes\":"),                                 // an escaped key
      with("\"mailboxes\":[", "\"mailboxes\":[\n  "),                                 // spaces
      "{\"jobs\":[{\"seq\":1}]}", "{\"events\":[],\"mailboxes\":[]}", "{ \"ids\" : {\"seed\":1,\"counter\":2} }",
  };
  for (size_t i = 0; i < taken.size(); ++i) {
    const std::string want = by_document(taken[i]);
    EXPECT_EQ(by_text(taken[i]), want) << "taken text " << i;
    EXPECT_NE(want.rfind("error: ", 0), 0u) << "taken text " << i << ": " << want;
  }
}

// A loaded value outside its range is refused with the row's id and the field (a time past the
// years 1970-9999 overflowed once a retry delay was added to it), whatever the id's kind: a UUID
// held compactly, a text id, a job's sequence number.
TEST(StateLoad, AValueOutOfRangeIsRefusedNamingItsRowAndField) {
  const json world = model::DumpState(BusyWorld());
  auto refusal = [&](const char* list, const char* field, const json& value) -> std::string {
    json doc = world;
    doc[list][0][field] = value;
    try {
      model::LoadState(doc);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "taken";
  };
  const std::string test_id = world["placementTests"][0]["id"];
  EXPECT_EQ(refusal("placementTests", "createdAt", -1),
            "state.placementTests: " + test_id + ".createdAt must be a time in the years 1970 to 9999 (Unix ms)");
  const std::string invoice_id = world["invoices"][0]["id"];
  EXPECT_EQ(refusal("invoices", "amountCents", 2'000'000'000'000'000'000),
            "state.invoices: " + invoice_id + ".amountCents must be from -1000000000000000 to 1000000000000000");
  const std::string seq = std::to_string(world["jobs"][0]["seq"].get<std::uint64_t>());
  EXPECT_EQ(refusal("jobs", "dueMs", 400'000'000'000'000),
            "state.jobs: " + seq + ".dueMs must be a time in the years 1970 to 9999 (Unix ms)");
  const std::string event_id = world["events"][0]["id"];
  EXPECT_EQ(refusal("events", "createdMs", -5),
            "state.events: " + event_id + ".createdMs must be a time in the years 1970 to 9999 (Unix ms)");
  EXPECT_EQ(refusal("placementTests", "createdAt", 1'700'000'000'000), "taken");
}

// A record's text with member `replaced` (when it is one of them) written as `value`, the members
// in `obj`'s order or reversed.
std::string MembersText(const json& obj, const std::string& replaced, const std::string& value, bool reversed = false) {
  std::vector<std::pair<std::string, std::string>> members;
  for (const auto& [k, v] : obj.items()) members.emplace_back(k, k == replaced ? value : v.dump());
  if (reversed) std::reverse(members.begin(), members.end());
  std::string out = "{";
  for (const auto& [k, v] : members) out += (out.size() > 1 ? "," : "") + json(k).dump() + ":" + v;
  return out + "}";
}

// A data dir's start reads rows straight into records (model::ReadRecordText) and leaves to the
// document whatever it does not read exactly as the document would. Every record text, changed in
// every way a person editing a row or a damaged byte could change it, is either left to the
// document or read to the very record the document gives (tests/support/record_read_check.hpp).
TEST(RecordText, IsReadAsTheDocumentReadsItOrLeftToIt) {
  const model::State world = EveryKindOfRecord();
  std::map<std::string, std::string (*)(std::string_view, bool*)> check;
  for (const auto& k : testing::kRecordKinds) check[k.table] = k.check;
  const char* const values[] = {"null", "true", "false", "0", "-0", "-1", "7", "1.0", "1e2", "01",
                                "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                                "-9223372036854775809", "18446744073709551615", "2147483648", "\"x\"", "\"\"",
                                "\"ACTIVE\"", "\"PAID\"", "\"\\u00e9\\ud83d\\ude00 \\n\"", "\"\\ud800\"", "\"\\udc00\"",
                                "\"\xC3\"", "\"\x01\"", "\"\\x\"", "[]", "[\"a\"]", "[1]", "[null]", "{}",
                                "{\"id\":\"x\"}", "{\"name\":\"n\",\"address\":\"a\"}", "[{}]", "[[]]", "{\"a\":[1,{\"b\":null}]}",
                                // objects as job arguments: in dump()'s form, and not
                                "{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":null}", "{\"b\":1,\"a\":2}", "{\"a\":1,\"a\":2}",
                                "{\"a\":\"\\u00e9\"}", "{\"a\":\"\xC3\xA9\"}", "{\"a\":-0}", "{\"a\":1.5}", "{ \"a\":1}",
                                "{\"\":1,\"a\":2}", "{\"a\":\"\x7F\"}"};
  constexpr std::string_view kAdded{"{}[]\",:0-9aetnul\\ \x80\xFF\0", 21};
  std::mt19937 rng(20261127);
  size_t texts = 0, read = 0, left = 0;
  std::set<std::string> kinds_read_changed;  // kinds where some changed text was read
  ForEachRecord(world, [&](const char* kind, const auto& record) {
    std::string text;
    model::AppendRecordJson(text, record);
    const json obj = json::parse(text);
    auto expect_agreed = [&](const std::string& changed, bool must_read) {
      ++texts;
      bool was_read = false;
      const std::string why = check.at(kind)(changed, &was_read);
      EXPECT_EQ(why, "") << kind << ": " << changed;
      if (must_read) {
        EXPECT_TRUE(was_read) << kind << ": " << changed;
      }
      was_read ? ++read : ++left;
      if (was_read && changed != text) kinds_read_changed.insert(kind);
    };
    // Whitespace anywhere JSON allows it, and members in any order: read.
    expect_agreed(obj.dump(2), true);
    expect_agreed(" \t\r\n" + text + "\n", true);
    expect_agreed(MembersText(obj, "", "", true), true);
    for (const auto& [key, v] : obj.items()) {
      expect_agreed(MembersText(obj, key, v.dump(1)), true);
      // Each member's value replaced by values of every type and edge.
      for (const char* value : values) expect_agreed(MembersText(obj, key, value), false);
      // A member missing (the record's default), twice, or an unknown one.
      json without = obj;
      without.erase(key);
      expect_agreed(without.dump(), false);
      expect_agreed(text.substr(0, text.size() - 1) + "," + json(key).dump() + ":" + v.dump() + "}", false);
    }
    expect_agreed(text.substr(0, text.size() - 1) + ",\"zzUnknown\":1}", false);
    // nlohmann's lexer takes a NUL byte for the end of its input: a member's value followed by one
    // must not parse alone where the whole text does not (found by the record fuzz harness).
    for (const auto& [key, v] : obj.items())
      for (const char* value : {"true", "1", "\"x\"", "{}", "[1]"})
        expect_agreed(MembersText(obj, key, value + std::string("\0\0a", 3)), false);
    expect_agreed(text + "x", false);
    expect_agreed(text.substr(0, text.size() - 1), false);
    // Bytes damaged: changed, dropped, added.
    for (int i = 0; i < 24; ++i) {
      std::string damaged = text;
      const size_t at = rng() % damaged.size();
      switch (rng() % 3) {
        case 0: damaged[at] = static_cast<char>(rng() % 256); break;
        case 1: damaged.erase(at, 1); break;
        default: damaged.insert(at, 1, kAdded[rng() % kAdded.size()]); break;
      }
      expect_agreed(damaged, false);
    }
  });
  // Not a test that passes by reading nothing: it reads a good part of the changed texts (most
  // changes give a member a type it does not have), and changed text of every kind.
  EXPECT_GT(texts, 50000u);
  EXPECT_GT(read, texts / 10) << read << " of " << texts;
  EXPECT_GT(left, texts / 4) << left << " of " << texts;
  EXPECT_EQ(kinds_read_changed.size(), 22u);
}

TEST(Store, LoadRejectsDanglingReferencesAndKeepsTheOldState) {
  runtime::Store store(testing::DefaultFixtureState());
  json dump = store.Dump();
  const json before = dump;
  dump["mailboxes"][0]["domainId"] = "dom_missing";
  EXPECT_THROW(store.Load(dump), std::invalid_argument);
  EXPECT_EQ(store.Dump(), before);
  EXPECT_THROW(store.Load(json::array()), std::invalid_argument);
  json bad_type = before;
  bad_type["accounts"][0]["walletCents"] = "lots";
  EXPECT_THROW(store.Load(bad_type), std::invalid_argument);
}

// Statuses are enums read through one table each: a name the table does not hold (case matters,
// as on the wire) is refused with the row, what was found and what is allowed; nothing changes.
TEST(Store, LoadRefusesAStatusItsTableDoesNotName) {
  runtime::Store store(testing::DefaultFixtureState());
  const json before = store.Dump();
  const struct {
    const char *table, *field, *value, *allowed;
  } cases[] = {{"domains", "status", "ACTIV", "ACTIVE, CONNECTED or PENDING"},
               {"mailboxes", "status", "active", "ACTIVE, IN_PROGRESS or INACTIVE"},
               {"subscriptions", "subscriptionStatus", "CANCELED", "ACTIVE or CANCELLED"}};
  for (const auto& c : cases) {
    json dump = before;
    dump[c.table][0][c.field] = c.value;
    try {
      store.Load(dump);
      ADD_FAILURE() << c.table << " loaded with status " << c.value;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("state.") + c.table + "[0]"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("\"") + c.value + "\""), std::string::npos) << what;
      EXPECT_NE(what.find(c.allowed), std::string::npos) << what;
    }
    EXPECT_EQ(store.Dump(), before);
  }
  json number = before;
  number["domains"][0]["status"] = 1;
  EXPECT_THROW(store.Load(number), std::invalid_argument);
}

TEST(Fixtures, DefaultIsRichEnoughToExplore) {
  auto s = testing::DefaultFixtureState();
  EXPECT_EQ(s.accounts.size(), 2u);
  EXPECT_EQ(s.workspaces.size(), 3u);
  EXPECT_EQ(s.domains.size(), 25u);
  EXPECT_GE(s.mailboxes.size(), 100u);
  EXPECT_GE(s.emails.size(), 200u);
  std::set<std::string> statuses, sub_statuses;
  for (const auto& d : s.domains) statuses.insert(std::string(core::NameOf(d.status)));
  for (const auto& sub : s.subscriptions) sub_statuses.insert(std::string(core::NameOf(sub.subscriptionStatus)));
  EXPECT_EQ(statuses, (std::set<std::string>{"ACTIVE", "CONNECTED", "PENDING"}));
  EXPECT_EQ(sub_statuses, (std::set<std::string>{"ACTIVE", "CANCELLED"}));
  EXPECT_GE(s.dnsShield.size(), 1u);
  EXPECT_EQ(s.accounts.Find("acc_alice")->walletCents, 25000);
}

std::string FixtureErrorOf(const std::string& yaml) {
  try {
    fixture::LoadFixtureText(yaml, "bad.yaml", 1);
  } catch (const fixture::FixtureError& e) {
    return e.what();
  }
  return "";
}

TEST(Fixtures, MalformedFileNamesFileLineAndField) {
  EXPECT_EQ(FixtureErrorOf("accounts:\n  - id: a\n    apiKey: k\n    user: {id: u, email: e}\n"
                           "    walletBalance: \"ten\"\n    workspaces: [{id: w, name: n}]\n"),
            "bad.yaml:5: accounts[0].walletBalance: must be a non-negative decimal amount like \"12.99\"");
  EXPECT_EQ(FixtureErrorOf("accounts:\n  - id: a\n    apiKey: k\n    user: {id: u, email: e}\n    workspaces:\n"
                           "      - id: w\n        name: n\n        domains:\n          - domain: x.com\n"
                           "            status: GONE\n            createdAt: \"2026-01-01T00:00:00.000Z\"\n"),
            "bad.yaml:10: accounts[0].workspaces[0].domains[0].status: must be one of ACTIVE, CONNECTED, PENDING");
  EXPECT_EQ(FixtureErrorOf("acounts: []\n"), "bad.yaml:1: fixture.acounts: unknown field");
  EXPECT_EQ(FixtureErrorOf("accounts: [\n"),
            "bad.yaml:2: did not find expected node content (while parsing a flow node that starts on line 2)");
  EXPECT_EQ(FixtureErrorOf("timings: {dmarcSecs: 3}\naccounts: []\n"), "bad.yaml:1: timings.dmarcSecs: unknown timing");
}

class RegistryTest : public ::testing::Test {
 protected:
  schema::Registry registry{cli::DefaultSchemasDir()};
};

TEST_F(RegistryTest, EveryRequestFailureNamesItsParamAndLocation) {
  json doc = {{"query", json::object()},
              {"body", {{"firstName", 3}, {"country", "XX"}, {"addressLineTwo", 5}}}};
  auto errors = registry.CheckRequest("requests/billing.add_or_update", doc);
  std::map<std::string, std::string> by_param;
  for (const auto& e : errors) {
    EXPECT_EQ(e.location, "body");
    by_param[e.param] = e.msg;
  }
  EXPECT_EQ(by_param["firstName"], "firstName must be a string");
  EXPECT_EQ(by_param["addressLineTwo"], "addressLineTwo must be a string or a null");
  EXPECT_EQ(by_param["country"], "country must be an ISO 3166-1 alpha-2 country code such as US or GB");
  EXPECT_EQ(by_param["workspaceId"], "workspaceId is required");
  EXPECT_EQ(by_param.count("addressLineThree"), 0u);  // optional
  auto q = registry.CheckRequest("requests/domains.list", {{"query", {{"page", "0"}}}});
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].param, "page");
  EXPECT_EQ(q[0].location, "query");
  auto missing = registry.CheckRequest("requests/billing.add_or_update", {{"query", json::object()}});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].param, "body");
  EXPECT_EQ(missing[0].msg, "a JSON body is required");
}

// A plausible instance of a (resolved) schema: valid for simple schemas, near-valid otherwise.
json ExampleOf(const json& sc) {
  if (!sc.is_object()) return nullptr;
  if (sc.contains("const")) return sc["const"];
  if (sc.contains("enum") && !sc["enum"].empty()) return sc["enum"][0];
  json type = sc.value("type", json());
  if (type.is_array()) type = type.empty() ? json() : type[0];
  if (type == "string") return std::string(std::max<size_t>(1, sc.value("minLength", 1)), 'x');
  if (type == "integer") return sc.value("minimum", 1);
  if (type == "number") return 1.5;
  if (type == "boolean") return true;
  if (type == "null") return nullptr;
  if (type == "array") {
    json a = json::array();
    for (size_t i = 0; i < std::max<size_t>(1, sc.value("minItems", 1)); ++i) a.push_back(ExampleOf(sc.value("items", json())));
    return a;
  }
  json o = json::object();
  const json props = sc.value("properties", json::object());
  for (const auto& [k, v] : props.items()) o[k] = ExampleOf(v);
  return o;
}

// Request documents with an empty query are checked against the body's schema alone first
//. That must never accept what the whole schema refuses, nor change a message: for
// every request schema, bodies made from the schema itself and broken one property at a time
// get the same answer both ways.
TEST_F(RegistryTest, CheckingTheBodyAloneAnswersAsTheWholeSchema) {
  schema::Registry whole{cli::DefaultSchemasDir()};
  whole.SetBodyShortcut(false);
  size_t schemas = 0, alone = 0, valid = 0, bodies = 0;
  for (const auto& name : registry.Names()) {
    if (name.rfind("requests/", 0) != 0) continue;
    ++schemas;
    if (registry.ChecksBodyAlone(name)) ++alone;
    const json body_schema = registry.Resolved(name).value("properties", json::object()).value("body", json());
    const json example = ExampleOf(body_schema);
    std::vector<json> corpus = {json::object(), json::array(), nullptr, "x", 0, true, example};
    if (example.is_object()) {
      for (const auto& [k, v] : example.items()) {
        for (const json& bad : {json(7), json("x"), json(nullptr), json::array(), json::object()}) {
          json b = example;
          b[k] = bad;
          corpus.push_back(b);
        }
        json without = example;
        without.erase(k);
        corpus.push_back(without);
        if (v.is_array() && !v.empty()) {  // a bad item: its param is named "key[0]"
          json item = example;
          item[k][0] = json::array({7});
          corpus.push_back(item);
        }
      }
      json extra = example;
      extra["zzUnknownField"] = 1;
      corpus.push_back(extra);
    }
    for (const auto& body : corpus) {
      const json doc = {{"query", json::object()}, {"body", body}};
      const auto a = registry.Check(name, doc);
      const auto b = whole.Check(name, doc);
      ++bodies;
      if (b.empty()) ++valid;
      ASSERT_EQ(a.size(), b.size()) << name << " " << body.dump();
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].Pointer(), b[i].Pointer()) << name << " " << body.dump();
        EXPECT_EQ(a[i].message, b[i].message) << name << " " << body.dump();
      }
      // The router's way: the field errors (Part 7) from the body alone, without a document.
      const auto fields = registry.CheckBody(name, body);
      ASSERT_EQ(fields.has_value(), registry.ChecksBodyAlone(name)) << name;
      if (!fields) continue;
      const auto want = whole.CheckRequest(name, doc);
      ASSERT_EQ(fields->size(), want.size()) << name << " " << body.dump();
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ((*fields)[i].location, want[i].location) << name << " " << body.dump();
        EXPECT_EQ((*fields)[i].param, want[i].param) << name << " " << body.dump();
        EXPECT_EQ((*fields)[i].msg, want[i].msg) << name << " " << body.dump();
      }
    }
  }
  EXPECT_TRUE(registry.ChecksBodyAlone("requests/placement_tests.purchase"));
  EXPECT_GE(alone, 20u) << "the shortcut applies to few of the " << schemas << " request schemas";
  EXPECT_GT(valid, 20u) << "too few valid bodies in the corpus: the shortcut's yes was barely tested";
  EXPECT_GT(bodies, 500u);
}

TEST_F(RegistryTest, NestedAndArrayParamsAreDottedAndBracketed) {
  json doc = {{"a", {{"b", json::array({"x", 4})}}}};
  EXPECT_EQ(schema::ParamName({"a", "b", "1"}, doc, 0), "a.b[1]");
  EXPECT_EQ(schema::ParamName({"body", "a", "b"}, {{"body", doc}}, 1), "a.b");
}

// An unsigned integer beyond INT64_MAX compared with a const or an enum (valijson reads integers
// as int64 and throws): the document is refused with an issue, no exception escapes.
TEST_F(RegistryTest, AnIntegerBeyondInt64AgainstAConstIsAnIssueNotAnException) {
  json answer = {{"status", json(json::number_unsigned_t{9433333333333333333ull})},
                 {"message", "bad"},
                 {"errors", json::array()}};
  std::vector<schema::Issue> issues;
  ASSERT_NO_THROW(issues = registry.Check("resources/error_validation", answer, false));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("out of range"), std::string::npos) << issues[0].message;
  // The same answer with the status the const wants is judged as before.
  answer["status"] = 400;
  ASSERT_NO_THROW(issues = registry.Check("resources/error_validation", answer, false));
  for (const auto& i : issues) EXPECT_EQ(i.message.find("out of range"), std::string::npos) << i.message;
}

TEST(RegistryLoad, RefusesASchemaThatDoesNotParseOrHasADanglingRef) {
  const auto dir = std::filesystem::temp_directory_path() / "emsim-bad-schemas";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "requests");
  std::ofstream(dir / "requests" / "x.json") << R"({"$ref": "../nowhere.json"})";
  try {
    schema::Registry r(dir);
    ADD_FAILURE() << "expected a dangling $ref to be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("dangling $ref ../nowhere.json"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "requests" / "x.json") << "{ not json";
  EXPECT_THROW(schema::Registry r(dir), std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace emsim
