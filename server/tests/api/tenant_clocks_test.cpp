// HTTP tests for tenants as the unit of isolation: each tenant's own clock (the clock routes act on
// the clock of the key they carry; everything a tenant's jobs do runs on it), one tenant's reset
// and deletion, and faults scoped to a tenant. In both clock modes where time matters.
#include <set>

#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

using model::Millis;

struct TcMode {
  runtime::ClockMode mode;
  const char* name;
};
const TcMode kTcModes[] = {{runtime::ClockMode::kReal, "real"}, {runtime::ClockMode::kManual, "manual"}};
void PrintTo(const TcMode& m, std::ostream* os) { *os << m.name; }

class TenantClocks : public ::testing::TestWithParam<TcMode> {};
INSTANTIATE_TEST_SUITE_P(Clock, TenantClocks, ::testing::ValuesIn(kTcModes),
                         [](const auto& info) { return std::string(info.param.name); });

json MakeTenant(TestServer& server, const json& body = json::object()) {
  auto r = server.Post("/_sim/tenants", body, "");
  EXPECT_EQ(r.status, 201) << r.raw;
  return r.body;
}

std::string KeyOf(const json& t) { return t.value("apiKey", ""); }
// An event of the tenant's (POST /_sim/events names it by its key; the payload's workspace is its own).
json TriggerFor(TestServer& server, const json& t) {
  return Trigger(server, "workspace.invitations", KeyOf(t), t["workspaces"][0]["id"]);
}
// A domain name of the tenant's own (names are unique across accounts).
std::string NameFor(const json& t) { return "brightreach-" + t.value("tag", "") + ".com"; }
std::string IdOf(const json& t) { return t.value("accountId", ""); }

json AdvanceAs(TestServer& server, const std::string& key, const std::string& duration) {
  auto r = server.Post("/_sim/clock/advance", {{"duration", duration}}, key);
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body;
}

Millis ClockNow(TestServer& server, const std::string& key) {
  auto r = server.Get("/_sim/clock", key);
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body.value("epochMs", Millis{0});
}

std::string DomainStatus(TestServer& server, const std::string& key, const std::string& name) {
  auto r = server.Get("/v1/domain/list?contains=" + name, key);
  EXPECT_EQ(r.status, 200) << r.raw;
  for (const auto& d : r.body["data"]["domains"])
    if (d["domain"] == name) return d["status"];
  return "absent";
}

void BuyDomain(TestServer& server, const std::string& key, const std::string& name) {
  auto r = server.Post("/v1/domain/buy-domain", {{"domainName", name}, {"useWallet", true}}, key);
  ASSERT_EQ(r.status, 200) << r.raw;
}

// ---- own clocks ---------------------------------------------------------------------------------

TEST_P(TenantClocks, AdvancingOneTenantsClockFiresNoneOfAnothersJobs) {
  Receiver receiver;
  receiver.AlwaysAnswer(500);
  TestServer server({}, GetParam().mode);
  const json a = MakeTenant(server, {{"template", "acc_alice"}});
  const json b = MakeTenant(server, {{"template", "acc_alice"}});
  ASSERT_EQ(a["clock"]["kind"], "own") << "own is the default: parallel tests need it";
  // B: a webhook attempt that fails (its retry is due a minute later) and a domain whose
  // PENDING -> CONNECTED step is due in 5 minutes, ACTIVE an hour after.
  CreateEndpoint(server, receiver.Url("/b"), json::array({"workspace.invitations"}), KeyOf(b));
  TriggerFor(server, b);
  ASSERT_TRUE(receiver.WaitForHits(1)) << "a first attempt goes out at once on the tenant's clock too";
  BuyDomain(server, KeyOf(b), NameFor(b));
  ASSERT_EQ(DomainStatus(server, KeyOf(b), NameFor(b)), "PENDING");

  // A's day and the instance's day pass: nothing of B's moves.
  const Millis b_before = ClockNow(server, KeyOf(b));
  const json moved = AdvanceAs(server, KeyOf(a), "24h");
  EXPECT_EQ(moved["clock"], "own");
  EXPECT_EQ(moved["accountId"], IdOf(a));
  server.Advance("24h");
  EXPECT_EQ(receiver.Count(), 1u) << "B's retry is due on B's clock, which did not move";
  EXPECT_EQ(DomainStatus(server, KeyOf(b), NameFor(b)), "PENDING");
  EXPECT_LT(ClockNow(server, KeyOf(b)) - b_before, model::kMinute) << "B's clock is its own";
  EXPECT_GE(ClockNow(server, KeyOf(a)) - b_before, 24 * model::kHour);

  // B's own minute: the retry goes, at its due time on B's clock.
  AdvanceAs(server, KeyOf(b), "1m");
  EXPECT_EQ(receiver.Count(), 2u);
  AdvanceAs(server, KeyOf(b), "4m");
  EXPECT_EQ(DomainStatus(server, KeyOf(b), NameFor(b)), "CONNECTED");
  // Its delivery log carries B's times: attempt 2 exactly a minute after attempt 1.
  const json d = Deliveries(server, "?accountId=" + IdOf(b) + "&outcome=failed")["deliveries"];
  ASSERT_GE(d.size(), 2u) << d.dump(1);
  const Millis sent0 = model::ParseIso(d[0]["sentAt"].get<std::string>()).value_or(0);
  const Millis sent1 = model::ParseIso(d[1]["sentAt"].get<std::string>()).value_or(0);
  EXPECT_EQ(sent1 - sent0, model::kMinute);
  EXPECT_LT(sent0 - b_before, model::kMinute) << "on B's clock, not A's or the instance's";
}

TEST_P(TenantClocks, ATenantsRequestsAndEventsHappenAtItsClocksNow) {
  TestServer server({}, GetParam().mode);
  const json a = MakeTenant(server);
  AdvanceAs(server, KeyOf(a), "10d");
  const Millis a_now = ClockNow(server, KeyOf(a));
  const Millis instance_now = ClockNow(server, "");
  ASSERT_GE(a_now - instance_now, 10 * model::kDay - model::kMinute);
  // An event of A's (emitted by POST /_sim/events, which names A by its key) is created at A's now.
  const json e = TriggerFor(server, a);
  const Millis created = e["created"].get<Millis>() * model::kSecond;
  EXPECT_GE(created, a_now - model::kSecond) << e.dump();
  EXPECT_LE(created, a_now + model::kMinute) << e.dump();
  // A record A makes carries A's time, and so do the events of its jobs: the domain bought now
  // connects 5 minutes later on A's clock, its domain.updated 10 days after the instance's now.
  BuyDomain(server, KeyOf(a), NameFor(a));
  AdvanceAs(server, KeyOf(a), "5m");
  const json events = server.Get("/_sim/events?type=domain.updated&accountId=" + IdOf(a), "").body["events"];
  ASSERT_GE(events.size(), 1u) << events.dump();
  EXPECT_GE(events.back()["created"].get<Millis>() * model::kSecond, a_now + 5 * model::kMinute - model::kSecond);
  EXPECT_LE(events.back()["created"].get<Millis>() * model::kSecond, a_now + 6 * model::kMinute);
}

TEST(TenantClocks, TheClockRoutesActOnTheClockOfTheKeySent) {
  TestServer server;
  const json a = MakeTenant(server);
  const json shared = MakeTenant(server, {{"clock", "shared"}});
  EXPECT_EQ(shared["clock"]["kind"], "shared");
  const Millis start = ClockNow(server, "");
  EXPECT_EQ(ClockNow(server, KeyOf(a)), start) << "an own clock starts at the instance's now";

  auto own = server.Get("/_sim/clock", KeyOf(a));
  EXPECT_EQ(own.body["clock"], "own");
  EXPECT_EQ(own.body["mode"], "manual") << "in the instance's mode";
  // A fixture account and a shared tenant follow the instance clock.
  EXPECT_FALSE(server.Get("/_sim/clock", kAliceKey).body.contains("clock"));
  AdvanceAs(server, KeyOf(shared), "1h");
  EXPECT_EQ(ClockNow(server, ""), start + model::kHour) << "a shared tenant's advance moves the instance clock";
  EXPECT_EQ(ClockNow(server, KeyOf(a)), start);

  // PUT with the key: now and mode of the tenant's clock only.
  auto put = server.Put("/_sim/clock", {{"now", model::FormatIso(start + 3 * model::kHour)}}, KeyOf(a));
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(put.body["epochMs"], start + 3 * model::kHour);
  EXPECT_EQ(ClockNow(server, ""), start + model::kHour);
  auto mode = server.Put("/_sim/clock", {{"mode", "real"}}, KeyOf(a));
  ASSERT_EQ(mode.status, 200) << mode.raw;
  EXPECT_EQ(mode.body["mode"], "real");
  EXPECT_EQ(server.Get("/_sim/clock", "").body["mode"], "manual");

  // Bad input, the Part 7 shape, nothing changed.
  auto back = server.Put("/_sim/clock", {{"now", model::FormatIso(start)}}, KeyOf(a));
  EXPECT_EQ(back.status, 400) << back.raw;
  EXPECT_EQ(back.body["errors"][0]["param"], "now");
  auto unknown = server.Post("/_sim/clock/advance", {{"duration", "1h"}}, "emsim_test_nobody");
  EXPECT_EQ(unknown.status, 401) << unknown.raw;
  EXPECT_TRUE(unknown.body.contains("message"));
  EXPECT_EQ(ClockNow(server, ""), start + model::kHour) << "a key of no account moves no clock";
}

TEST(TenantClocks, BadTenantInputIsRefusedInThePart7Shape) {
  TestServer server;
  auto bad = server.Post("/_sim/tenants", {{"clock", "sometimes"}}, "");
  EXPECT_EQ(bad.status, 400) << bad.raw;
  ASSERT_TRUE(bad.body["errors"].is_array()) << bad.raw;
  EXPECT_EQ(bad.body["errors"][0]["param"], "clock") << bad.raw;
  EXPECT_EQ(server.Get("/_sim/tenants", "").body["tenants"].size(), 0u) << "nothing created";

  EXPECT_EQ(server.Post("/_sim/tenants/acc_nobody/reset", json::object(), "").status, 404);
  EXPECT_EQ(server.Delete("/_sim/tenants/acc_nobody", "").status, 404);
  auto fixture = server.Post("/_sim/tenants/acc_alice/reset", json::object(), "");
  EXPECT_EQ(fixture.status, 400) << fixture.raw;
  EXPECT_EQ(fixture.body["errors"][0]["param"], "accountId");
  EXPECT_EQ(server.Delete("/_sim/tenants/acc_alice", "").status, 400);
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 200) << "the fixture account is untouched";
}

TEST(TenantClocks, TheListShowsEachTenantWithItsClock) {
  TestServer server;
  const json a = MakeTenant(server, {{"template", "acc_bob"}});
  const json b = MakeTenant(server, {{"clock", "shared"}});
  AdvanceAs(server, KeyOf(a), "2h");
  auto r = server.Get("/_sim/tenants", "");
  ASSERT_EQ(r.status, 200) << r.raw;
  const json& list = r.body["tenants"];
  ASSERT_EQ(list.size(), 2u) << r.raw;
  EXPECT_EQ(list[0]["accountId"], IdOf(a));
  EXPECT_EQ(list[0]["template"], "acc_bob");
  EXPECT_EQ(list[0]["tag"], a["tag"]);
  EXPECT_EQ(list[0]["clock"]["kind"], "own");
  EXPECT_EQ(list[0]["clock"]["epochMs"], ClockNow(server, "") + 2 * model::kHour);
  EXPECT_EQ(list[1]["clock"]["kind"], "shared");
  EXPECT_EQ(list[1]["clock"]["epochMs"], ClockNow(server, ""));
  EXPECT_TRUE(list[1]["created"].is_string());
  EXPECT_FALSE(list[0].contains("apiKey")) << "the list does not hand out keys";
}

// ---- one tenant's reset and deletion ------------------------------------------------------------

TEST_P(TenantClocks, ResettingATenantPutsItBackAsCreatedAndTouchesNothingElse) {
  Receiver receiver;
  TestServer server({}, GetParam().mode);
  const json a = MakeTenant(server, {{"template", "acc_alice"}});
  const json b = MakeTenant(server, {{"template", "acc_alice"}});
  const json a_domains_at_start = server.Get("/v1/domain/list", KeyOf(a)).body["data"];
  // Where its clock started: the instant the tenant was made. (The answer's epochMs is the clock
  // read as the answer was written, a few ms later under load, in real mode.)
  const Millis a_start =
      server.svc().store.Read([&](const model::State& s) { return s.tenants.Find(IdOf(a))->clockStartMs; });
  EXPECT_LE(a_start, a["clock"]["epochMs"].get<Millis>());
  // A and B both live a little: a domain, an endpoint, an event, a fault, two hours.
  for (const json* t : {&a, &b}) {
    BuyDomain(server, KeyOf(*t), NameFor(*t));
    CreateEndpoint(server, receiver.Url("/" + IdOf(*t)), json::array({"workspace.invitations"}), KeyOf(*t));
    TriggerFor(server, *t);
    ASSERT_EQ(server.Post("/_sim/faults", {{"path", "/v1/user/subscriptions"}, {"status", 503}, {"times", 0}}, KeyOf(*t)).status, 201);
    AdvanceAs(server, KeyOf(*t), "2h");
  }
  const json b_state_before = server.Get("/v1/domain/list", KeyOf(b)).body;
  const Millis b_clock_before = ClockNow(server, KeyOf(b));

  auto reset = server.Post("/_sim/tenants/" + IdOf(a) + "/reset", json::object(), "");
  ASSERT_EQ(reset.status, 200) << reset.raw;
  EXPECT_EQ(reset.body["apiKey"], KeyOf(a)) << "the same key";
  EXPECT_EQ(reset.body["workspaces"], a["workspaces"]) << "the same workspace ids";
  EXPECT_GT(reset.body["requestsForgotten"].get<int>(), 0);
  EXPECT_EQ(server.Get("/_sim/requests?account=" + IdOf(a), "").body["requests"].size(), 0u);
  // A: as created. Same domains (same ids), the wallet full, its clock at its start.
  EXPECT_EQ(server.Get("/v1/domain/list", KeyOf(a)).body["data"], a_domains_at_start);
  EXPECT_EQ(server.Get("/_sim/wallet", KeyOf(a)).body["balanceCents"], 25000);
  const Millis a_now = ClockNow(server, KeyOf(a));
  EXPECT_GE(a_now, a_start);
  EXPECT_LT(a_now - a_start, model::kMinute) << "the clock is back at its start";
  EXPECT_EQ(server.Get("/_sim/events?accountId=" + IdOf(a), "").body["events"].size(), 0u);
  EXPECT_EQ(Deliveries(server, "?accountId=" + IdOf(a))["deliveries"].size(), 0u);
  EXPECT_EQ(server.Get("/v1/user/subscriptions", KeyOf(a)).status, 200) << "A's fault is gone";
  // B: untouched, its fault included.
  EXPECT_EQ(server.Get("/v1/domain/list", KeyOf(b)).body, b_state_before);
  const Millis b_clock_after = ClockNow(server, KeyOf(b));
  EXPECT_GE(b_clock_after, b_clock_before) << "B's clock was not reset";
  EXPECT_LT(b_clock_after - b_clock_before, model::kMinute);
  EXPECT_GE(server.Get("/_sim/events?accountId=" + IdOf(b), "").body["events"].size(), 1u);
  EXPECT_EQ(server.Get("/v1/user/subscriptions", KeyOf(b)).status, 503);
}

TEST(TenantClocks, DeletingATenantRemovesAllItOwnsAndNothingElse) {
  Receiver receiver;
  receiver.AlwaysAnswer(500);  // retries stay pending: they must go with the tenant
  TestServer server;
  const json a = MakeTenant(server);
  const json shared = MakeTenant(server, {{"clock", "shared"}});
  const json b = MakeTenant(server);
  for (const json* t : {&a, &shared, &b}) {
    BuyDomain(server, KeyOf(*t), NameFor(*t));
    CreateEndpoint(server, receiver.Url("/" + IdOf(*t)), json::array({"workspace.invitations"}), KeyOf(*t));
    TriggerFor(server, *t);
    AdvanceAs(server, KeyOf(*t), "0s");
  }
  const size_t jobs_before = server.svc().store.Read([](const model::State& s) { return s.jobs.size(); });
  for (const json* t : {&a, &shared}) {
    auto del = server.Delete("/_sim/tenants/" + IdOf(*t), "");
    ASSERT_EQ(del.status, 200) << del.raw;
    EXPECT_EQ(del.body["deleted"], IdOf(*t));
    EXPECT_EQ(server.Get("/v1/workspace/list", KeyOf(*t)).status, 401) << "its key is gone";
    EXPECT_EQ(server.Get("/_sim/events?accountId=" + IdOf(*t), "").body["events"].size(), 0u);
    EXPECT_EQ(Deliveries(server, "?accountId=" + IdOf(*t))["deliveries"].size(), 0u);
    EXPECT_EQ(server.Get("/_sim/requests?account=" + IdOf(*t), "").body["requests"].size(), 0u);
    EXPECT_EQ(server.Delete("/_sim/tenants/" + IdOf(*t), "").status, 404);
  }
  // Their jobs went with them (a domain step or two and a retry each); B's stay and still run.
  const size_t jobs_after = server.svc().store.Read([](const model::State& s) { return s.jobs.size(); });
  EXPECT_LT(jobs_after, jobs_before);
  const size_t hits_before = receiver.Count();
  server.Advance("3d");
  EXPECT_EQ(receiver.Count(), hits_before) << "no retry of a deleted tenant is sent";
  AdvanceAs(server, KeyOf(b), "2h");
  EXPECT_EQ(DomainStatus(server, KeyOf(b), NameFor(b)), "ACTIVE");
  EXPECT_GT(receiver.HitsTo("/" + IdOf(b)).size(), 1u);
  auto list = server.Get("/_sim/tenants", "").body["tenants"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["accountId"], IdOf(b));
  EXPECT_EQ(server.Get("/v1/workspace/list").status, 200);
  server.svc().store.Read([](const model::State& s) { EXPECT_EQ(model::IndexProblems(s), ""); });
}

// ---- faults per tenant ----------------------------------------------------------------------------

TEST(TenantClocks, AFaultMadeWithATenantsKeyHitsOnlyThatTenant) {
  Receiver receiver;
  TestServer server;
  const json a = MakeTenant(server);
  const json b = MakeTenant(server);
  auto f = server.Post("/_sim/faults", {{"path", "/v1/domain/list"}, {"status", 503}, {"times", 0}}, KeyOf(a));
  ASSERT_EQ(f.status, 201) << f.raw;
  EXPECT_EQ(server.Get("/v1/domain/list", KeyOf(a)).status, 503);
  EXPECT_EQ(server.Get("/v1/domain/list", KeyOf(b)).status, 200);
  EXPECT_EQ(server.Get("/v1/domain/list", kAliceKey).status, 200);
  // A delivery fault made with B's key: B's deliveries get a corrupted signature, A's do not.
  ASSERT_EQ(server.Post("/_sim/faults", {{"target", "delivery"}, {"path", "/hook*"}, {"corruptSignature", true}, {"times", 0}},
                        KeyOf(b)).status, 201);
  CreateEndpoint(server, receiver.Url("/hook-a"), json::array({"workspace.invitations"}), KeyOf(a));
  CreateEndpoint(server, receiver.Url("/hook-b"), json::array({"workspace.invitations"}), KeyOf(b));
  TriggerFor(server, a);
  TriggerFor(server, b);
  AdvanceAs(server, KeyOf(a), "0s");
  AdvanceAs(server, KeyOf(b), "0s");
  const json da = Deliveries(server, "?accountId=" + IdOf(a))["deliveries"];
  const json db = Deliveries(server, "?accountId=" + IdOf(b))["deliveries"];
  ASSERT_EQ(da.size(), 1u) << da.dump(1);
  ASSERT_EQ(db.size(), 1u) << db.dump(1);
  EXPECT_TRUE(da[0]["injected"].empty()) << da.dump(1);
  ASSERT_FALSE(db[0]["injected"].empty()) << db.dump(1);
  EXPECT_EQ(db[0]["injected"][0]["kind"], "corruptSignature");
  // Clearing with A's key removes A's fault only.
  auto cleared = server.Delete("/_sim/faults", KeyOf(a));
  ASSERT_EQ(cleared.status, 200) << cleared.raw;
  EXPECT_EQ(cleared.body["removed"], 1);
  EXPECT_EQ(server.Get("/v1/domain/list", KeyOf(a)).status, 200);
  EXPECT_EQ(server.Get("/_sim/faults", "").body["faults"].size(), 1u);
  EXPECT_EQ(server.Post("/_sim/faults", {{"path", "/v1/domain/list"}, {"status", 503}}, "emsim_test_nobody").status, 401);
}

// ---- persistence of tenants' clocks -----------------------------------------------------------------

TEST(TenantClocks, AStateDumpKeepsEachTenantsClockAndItsJobs) {
  Receiver receiver;
  receiver.AlwaysAnswer(500);
  TestServer server;
  const json a = MakeTenant(server);
  AdvanceAs(server, KeyOf(a), "5h");
  CreateEndpoint(server, receiver.Url("/a"), json::array({"workspace.invitations"}), KeyOf(a));
  TriggerFor(server, a);
  AdvanceAs(server, KeyOf(a), "0s");
  ASSERT_EQ(receiver.Count(), 1u);
  const Millis a_now = ClockNow(server, KeyOf(a));
  const json dump = server.Get("/_sim/state?secrets=true", "").body;
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(server.Get("/_sim/clock", KeyOf(a)).status, 401) << "reset is instance-wide: the tenant is gone";
  auto load = server.Put("/_sim/state", dump);
  ASSERT_EQ(load.status, 200) << load.raw;
  EXPECT_EQ(ClockNow(server, KeyOf(a)), a_now);
  // Its retry is still due on its own clock: the instance's day does not send it, its minute does.
  server.Advance("1d");
  EXPECT_EQ(receiver.Count(), 1u);
  AdvanceAs(server, KeyOf(a), "1m");
  EXPECT_EQ(receiver.Count(), 2u);
}

}  // namespace
}  // namespace emsim::testing
