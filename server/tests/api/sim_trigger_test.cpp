// POST /_sim/trigger: for every Part 6 event type, the real state change behind it, seen where a
// client would see it (the public API or the /_sim views), the events it emitted listed by id and
// schema-valid; refusals (400 naming the field) change nothing.
#include "schema/event_check.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

HttpResult PostRealTrigger(TestServer& server, const std::string& type, const std::string& object_id = "",
                           const std::string& key = kAliceKey) {
  json body = {{"type", type}, {"apiKey", key}};
  if (!object_id.empty()) body["objectId"] = object_id;
  return server.Post("/_sim/trigger", body, "");
}

// The trigger's answer, checked: 201, the type, an object, a description, and among the events
// one of the type; each listed event is in GET /_sim/events and fits its schema.
json RealTrigger(TestServer& server, const std::string& type, const std::string& object_id = "") {
  auto r = PostRealTrigger(server, type, object_id);
  EXPECT_EQ(r.status, 201) << type << ": " << r.raw;
  if (r.status != 201) return json::object();
  EXPECT_EQ(r.body["type"], type);
  EXPECT_FALSE(r.body["objectId"].get<std::string>().empty()) << r.raw;
  EXPECT_FALSE(r.body["change"].get<std::string>().empty()) << r.raw;
  const json listed = server.Get("/_sim/events", "").body["events"];
  bool has_type = false;
  for (const auto& e : r.body["events"]) {
    has_type = has_type || e["type"] == type;
    json found;
    for (const auto& l : listed)
      if (l["id"] == e["id"]) found = l;
    EXPECT_FALSE(found.is_null()) << "event " << e.dump() << " not in GET /_sim/events";
    if (found.is_null()) continue;
    EXPECT_EQ(found["type"], e["type"]);
    std::string problems;
    for (const auto& p : schema::EventSchemaProblems(server.svc().schemas, found)) problems += p + "\n";
    EXPECT_EQ(problems, "") << found.dump();
  }
  EXPECT_TRUE(has_type) << "no " << type << " among " << r.body["events"].dump();
  return r.body;
}

// The one event of `type` the trigger's answer lists, as GET /_sim/events shows it.
json EmittedOfType(TestServer& server, const json& answer, const std::string& type) {
  const json listed = server.Get("/_sim/events?type=" + type, "").body["events"];  // kept: a range over a temporary's member dangles
  for (const auto& e : answer["events"])
    if (e["type"] == type)
      for (const auto& l : listed)
        if (l["id"] == e["id"]) return l;
  ADD_FAILURE() << "no " << type << " in " << answer.dump();
  return json::object();
}

json StateDump(TestServer& server) { return server.Get("/_sim/state", "").body; }

json DomainRecord(TestServer& server, const std::string& id) {
  for (int page = 1; page < 10; ++page) {
    const json data = server.Get("/v1/domain/list?page=" + std::to_string(page)).body["data"];
    for (const auto& d : data["domains"])
      if (d["id"] == id) return d;
    if (data["nextPage"].is_null()) break;
  }
  return json();
}

json SubscriptionRecordOf(TestServer& server, const std::string& record_id) {
  const json all = server.Get("/v1/user/subscriptions").body["data"];
  for (const auto& x : all)
    if (x["id"] == record_id) return x;
  return json();
}

json SimExport(TestServer& server, const std::string& id) { return server.Get("/_sim/exports/" + id, "").body; }

TEST(SimTrigger, DomainUpdatedAppliesAddDmarcToTheDomain) {
  TestServer server;
  const json a = RealTrigger(server, "domain.updated", "dom_nw_01");
  EXPECT_EQ(a["objectId"], "dom_nw_01");
  ASSERT_EQ(a["events"].size(), 1u) << "a configuration change: no connection event";
  const json rec = DomainRecord(server, "dom_nw_01");
  const std::string name = rec["domain"];
  EXPECT_EQ(rec["dmarcEmail"], "dmarc@" + name) << rec.dump();
  EXPECT_EQ(rec["dmarcEmailAddedToReseller"], true);
  const json evt = EmittedOfType(server, a, "domain.updated");
  EXPECT_EQ(evt["data"]["domainDetails"]["id"], "dom_nw_01");
  EXPECT_TRUE(evt["data"]["previousState"].contains("dmarcEmail")) << evt.dump();
  // Again: the address alternates, so the second trigger is a change too.
  RealTrigger(server, "domain.updated", "dom_nw_01");
  EXPECT_EQ(DomainRecord(server, "dom_nw_01")["dmarcEmail"], "dmarc-reports@" + name);
}

TEST(SimTrigger, ConnectionStatusMovesAPendingDomainThroughConnectedToActive) {
  TestServer server;
  const json first = RealTrigger(server, "domain.connection_status_changed");
  const std::string id = first["objectId"];
  EXPECT_EQ(first["events"].size(), 2u) << "domain.updated and domain.connection_status_changed: " << first.dump();
  const json evt = EmittedOfType(server, first, "domain.connection_status_changed");
  const std::string before = evt["data"]["previousState"]["status"];
  const std::string after = DomainRecord(server, id)["status"];
  EXPECT_EQ(evt["data"]["domainDetails"]["status"], after);
  EXPECT_TRUE((before == "PENDING" && after == "CONNECTED") || (before == "CONNECTED" && after == "ACTIVE"))
      << before << " -> " << after;
  if (after == "CONNECTED") {
    RealTrigger(server, "domain.connection_status_changed", id);
    EXPECT_EQ(DomainRecord(server, id)["status"], "ACTIVE");
  }
  // An ACTIVE domain's connection is complete: refused, nothing changes.
  const json dump = StateDump(server);
  ExpectValidationError(server, PostRealTrigger(server, "domain.connection_status_changed", id), "objectId");
  EXPECT_EQ(StateDump(server), dump);
}

TEST(SimTrigger, MailboxUpdatedMarksAndUnmarksTheMailboxForRemoval) {
  TestServer server;
  const json a = RealTrigger(server, "mailbox.updated", "mbx_nw_01_02");
  const json evt = EmittedOfType(server, a, "mailbox.updated");
  EXPECT_EQ(evt["data"]["mailboxDetails"]["id"], "mbx_nw_01_02");
  EXPECT_FALSE(evt["data"]["previousState"].empty()) << evt.dump();
  auto marked = [&] {
    const json mailboxes = StateDump(server)["mailboxes"];
    for (const auto& w : mailboxes)
      if (w["id"] == "mbx_nw_01_02") return w.value("removeOnNextRenewal", false);
    return false;
  };
  EXPECT_TRUE(marked());
  RealTrigger(server, "mailbox.updated", "mbx_nw_01_02");
  EXPECT_FALSE(marked());
  // Without objectId: the first mailbox of the default workspace.
  EXPECT_FALSE(RealTrigger(server, "mailbox.updated")["objectId"].get<std::string>().empty());
}

TEST(SimTrigger, SubscriptionStatusChangedCancelsAndThenHasNothingLeftToCancel) {
  TestServer server;
  const json a = RealTrigger(server, "subscription.status_changed");
  EXPECT_EQ(a["objectId"], "srec_alice_ent");
  EXPECT_EQ(SubscriptionRecordOf(server, "srec_alice_ent")["subscriptionStatus"], "CANCELLED");
  const json evt = EmittedOfType(server, a, "subscription.status_changed");
  EXPECT_EQ(evt["data"]["previousState"]["subscriptionStatus"], "ACTIVE");
  const json dump = StateDump(server);
  ExpectValidationError(server, PostRealTrigger(server, "subscription.status_changed"), "objectId");
  ExpectValidationError(server, PostRealTrigger(server, "subscription.billing_changed", "sub_alice_ent"), "objectId");
  EXPECT_EQ(StateDump(server), dump);
}

TEST(SimTrigger, SubscriptionBillingChangedMovesToTheNextPlan) {
  TestServer server;
  const json before = SubscriptionRecordOf(server, "srec_alice_ent");
  const json a = RealTrigger(server, "subscription.billing_changed", "sub_alice_ent");
  EXPECT_EQ(a["objectId"], "srec_alice_ent");
  const json after = SubscriptionRecordOf(server, "srec_alice_ent");
  EXPECT_NE(after["price"], before["price"]) << after.dump();
  EXPECT_EQ(after["subscriptionStatus"], "ACTIVE");
  EXPECT_NE(a["change"].get<std::string>().find("enterprise_monthly to enterprise_yearly"), std::string::npos) << a.dump();
  EXPECT_EQ(EmittedOfType(server, a, "subscription.billing_changed")["data"]["previousState"]["price"], before["price"]);
}

TEST(SimTrigger, PlacementTestStatusChangedBuysOneThenMovesItAndTheClockDoesNotRepeatIt) {
  TestServer server;
  const json first = RealTrigger(server, "placement_test.status_changed");
  const std::string order = first["objectId"];
  EXPECT_EQ(EmittedOfType(server, first, "placement_test.status_changed")["data"]["placementTestDetails"]["status"],
            "RUNNING");
  EXPECT_NE(first["change"].get<std::string>().find("MONTHLY"), std::string::npos) << "alice has credits: " << first.dump();
  const json second = RealTrigger(server, "placement_test.status_changed", order);
  EXPECT_EQ(second["objectId"], order);
  EXPECT_EQ(EmittedOfType(server, second, "placement_test.status_changed")["data"]["placementTestDetails"]["status"],
            "COMPLETED");
  // The steps the trigger ran are not run again when the clock reaches their due time.
  const size_t events = server.Get("/_sim/events?type=placement_test.status_changed", "").body["events"].size();
  server.Advance("1d");
  EXPECT_EQ(server.Get("/_sim/events?type=placement_test.status_changed", "").body["events"].size(), events);
  ExpectValidationError(server, PostRealTrigger(server, "placement_test.status_changed", order), "objectId");
}

TEST(SimTrigger, WorkspaceStatusChangedRenamesTheWorkspaceBackAndForth) {
  TestServer server;
  auto name_of = [&] {
    const json workspaces = server.Get("/v1/workspace/list").body["data"];
    for (const auto& w : workspaces)
      if (w["id"] == "ws_northwind") return w["name"].get<std::string>();
    return std::string();
  };
  const std::string before = name_of();
  const json a = RealTrigger(server, "workspace.status_changed", "ws_northwind");
  EXPECT_EQ(name_of(), before + " (renamed)");
  EXPECT_EQ(EmittedOfType(server, a, "workspace.status_changed")["data"]["previousState"]["name"], before);
  RealTrigger(server, "workspace.status_changed", "ws_northwind");
  EXPECT_EQ(name_of(), before);
}

TEST(SimTrigger, WorkspaceInvitationsSendsAnInvitationKeptOnTheWorkspace) {
  TestServer server;
  const json a = RealTrigger(server, "workspace.invitations");
  const json evt = EmittedOfType(server, a, "workspace.invitations");
  const json inv = evt["data"]["invitationDetails"];
  EXPECT_EQ(inv["status"], "PENDING");
  json kept;
  const json workspaces = StateDump(server)["workspaces"];
  for (const auto& w : workspaces)
    if (w["id"] == a["objectId"]) kept = w.value("invitations", json::array());
  ASSERT_EQ(kept.size(), 1u) << kept.dump();
  EXPECT_EQ(kept[0]["id"], inv["id"]);
  EXPECT_EQ(kept[0]["email"], inv["email"]);
  const json b = RealTrigger(server, "workspace.invitations");
  EXPECT_NE(EmittedOfType(server, b, "workspace.invitations")["data"]["invitationDetails"]["email"], inv["email"]);
}

TEST(SimTrigger, ExportStartedStartsAnExportThatTheClockFinishes) {
  TestServer server;
  const json a = RealTrigger(server, "export.started", "mbx_nw_01_03");
  const std::string id = a["objectId"];
  const json x = SimExport(server, id);
  EXPECT_EQ(x["status"], "STARTED") << x.dump();
  EXPECT_EQ(x["mailboxIds"], json::array({"mbx_nw_01_03"})) << x.dump();
  server.Advance("1h");
  EXPECT_EQ(SimExport(server, id)["status"], "COMPLETED");
}

TEST(SimTrigger, ExportCompletedAndFailedRunTheExportNowAndOnlyOnce) {
  TestServer server;
  const json done = RealTrigger(server, "export.completed");
  EXPECT_EQ(done["events"].size(), 2u) << "export.started, then export.completed: " << done.dump();
  EXPECT_EQ(SimExport(server, done["objectId"])["status"], "COMPLETED");
  const json failed = RealTrigger(server, "export.failed");
  const json fx = SimExport(server, failed["objectId"]);
  EXPECT_EQ(fx["status"], "FAILED") << fx.dump();
  EXPECT_EQ(fx["apps"], json::array({"INSTANTLY"})) << "the first app without credentials";
  const size_t events = server.Get("/_sim/events", "").body["events"].size();
  server.Advance("1h");
  EXPECT_EQ(server.Get("/_sim/events", "").body["events"].size(), events) << "the exports' jobs do not run again";

  // A STARTED export finishes as it would: one to MANUAL completes, so export.failed refuses it.
  const std::string started = RealTrigger(server, "export.started")["objectId"];
  const json dump = StateDump(server);
  ExpectValidationError(server, PostRealTrigger(server, "export.failed", started), "objectId");
  ExpectValidationError(server, PostRealTrigger(server, "export.completed", done["objectId"]), "objectId");
  EXPECT_EQ(StateDump(server), dump);
  RealTrigger(server, "export.completed", started);
  EXPECT_EQ(SimExport(server, started)["status"], "COMPLETED");
}

TEST(SimTrigger, ExportReconnectedRunsTheWholePathOrReconnectsTheExportNamed) {
  TestServer server;
  const json a = RealTrigger(server, "export.reconnected");
  ASSERT_EQ(a["events"].size(), 3u) << a.dump();
  EXPECT_EQ(a["events"][0]["type"], "export.started");
  EXPECT_EQ(a["events"][1]["type"], "export.failed");
  EXPECT_EQ(a["events"][2]["type"], "export.reconnected");
  const json x = SimExport(server, a["objectId"]);
  EXPECT_EQ(x["status"], "FAILED");
  EXPECT_FALSE(x["reconnectedAt"].is_null()) << x.dump();
  // Reconnected once: asked again for that export, refused.
  ExpectValidationError(server, PostRealTrigger(server, "export.reconnected", a["objectId"]), "objectId");
  // An export that failed, named: only the credentials are stored.
  const std::string failed = RealTrigger(server, "export.failed")["objectId"];
  const json b = RealTrigger(server, "export.reconnected", failed);
  ASSERT_EQ(b["events"].size(), 1u) << b.dump();
  EXPECT_EQ(b["objectId"], failed);
}

TEST(SimTrigger, RefusesBadInputNamingTheFieldAndChangesNothing) {
  TestServer server;
  const json dump = StateDump(server);
  ExpectValidationError(server, PostRealTrigger(server, "domain.exploded"), "type");
  ExpectValidationError(server, PostRealTrigger(server, "domain.updated", "", "emsim_not_a_key"), "apiKey");
  ExpectValidationError(server, server.Post("/_sim/trigger", {{"type", "domain.updated"}}, ""), "apiKey");
  // A mailbox id where a domain is needed; another account's domain; an unknown id.
  ExpectValidationError(server, PostRealTrigger(server, "domain.updated", "mbx_nw_01_01"), "objectId");
  const std::string bobs_domain = server.Get("/v1/domain/list", kBobKey).body["data"]["domains"][0]["id"];
  ExpectValidationError(server, PostRealTrigger(server, "domain.updated", bobs_domain), "objectId");
  ExpectValidationError(server, PostRealTrigger(server, "workspace.invitations", "ws_nope"), "objectId");
  ExpectValidationError(server, PostRealTrigger(server, "export.reconnected", "nope"), "objectId");
  // The body's shape (schemas/requests/sim.trigger.json).
  EXPECT_EQ(server.Post("/_sim/trigger", {{"type", 7}, {"apiKey", kAliceKey}}, "").status, 400);
  EXPECT_EQ(server.Post("/_sim/trigger", {{"type", "domain.updated"}, {"apiKey", kAliceKey}, {"data", json::object()}}, "")
                .status,
            400)
      << "data is POST /_sim/events' field; this route changes state, it takes no payload";
  EXPECT_EQ(server.Send("POST", "/_sim/trigger", "{not json", "", {}).status, 400);
  EXPECT_EQ(StateDump(server), dump);
}

TEST(SimTrigger, TakesTheAccountFromTheXAuthServiceHeader) {
  TestServer server;
  auto r = server.Post("/_sim/trigger", {{"type", "workspace.status_changed"}}, kBobKey);
  ASSERT_EQ(r.status, 201) << r.raw;
  const json evt = EmittedOfType(server, r.body, "workspace.status_changed");
  EXPECT_EQ(evt["accountId"], "acc_bob");
}

}  // namespace
}  // namespace emsim::testing
