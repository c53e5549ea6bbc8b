// POST /_sim/events/:id/resend: a new delivery of an emitted event (attempt 1, due now) to one
// endpoint or to every subscribed one; refusals change nothing.
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

void AdvanceResendClock(TestServer& server, const std::string& duration) {
  auto r = server.Post("/_sim/clock/advance", {{"duration", duration}}, "");
  ASSERT_EQ(r.status, 200) << r.raw;
}

TEST(SimResend, ResendsToEverySubscribedEndpointOrToTheOneNamed) {
  TestServer server;
  Receiver receiver;
  auto subscribed = CreateEndpoint(server, receiver.Url("/a"), {"workspace.invitations"});
  auto other_type = CreateEndpoint(server, receiver.Url("/b"), {"domain.updated"});
  const json event = Trigger(server);
  const std::string evt = event["id"];
  AdvanceResendClock(server, "0s");
  ASSERT_EQ(receiver.HitsTo("/a").size(), 1u);

  // To all: only the endpoint subscribed to the event's type.
  auto all = server.Post("/_sim/events/" + evt + "/resend", json::object(), "");
  ASSERT_EQ(all.status, 202) << all.raw;
  EXPECT_EQ(all.body["eventId"], evt);
  ASSERT_EQ(all.body["deliveries"].size(), 1u);
  EXPECT_EQ(all.body["deliveries"][0]["endpointId"], subscribed.id);
  EXPECT_EQ(all.body["deliveries"][0]["attempt"], 1);
  const std::string dlv = all.body["deliveries"][0]["id"];
  AdvanceResendClock(server, "0s");
  auto hits = receiver.HitsTo("/a");
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].body, hits[1].body) << "the same event, byte for byte";
  // The listing shows the attempt under the id the answer gave.
  bool listed = false;
  const json listing = Deliveries(server, "?eventId=" + evt);
  for (const auto& d : listing["deliveries"])
    if (d["id"] == dlv) listed = d["status"] == "succeeded" && d["attempt"] == 1;
  EXPECT_TRUE(listed) << dlv << " " << Deliveries(server).dump();

  // Without a body at all: the same as {}.
  auto no_body = server.Send("POST", "/_sim/events/" + evt + "/resend", "", "", {});
  EXPECT_EQ(no_body.status, 202) << no_body.raw;
  EXPECT_EQ(no_body.body["deliveries"].size(), 1u);

  // To one named endpoint, even one not subscribed to the type: an explicit ask.
  auto one = server.Post("/_sim/events/" + evt + "/resend", {{"endpointId", other_type.id}}, "");
  ASSERT_EQ(one.status, 202) << one.raw;
  ASSERT_EQ(one.body["deliveries"].size(), 1u);
  EXPECT_EQ(one.body["deliveries"][0]["endpointId"], other_type.id);
  AdvanceResendClock(server, "0s");
  ASSERT_EQ(receiver.HitsTo("/b").size(), 1u);
  EXPECT_NE(receiver.HitsTo("/b")[0].body.find(evt), std::string::npos);
  EXPECT_EQ(receiver.HitsTo("/a").size(), 3u);
  const json made = Deliveries(server, "?eventId=" + evt + "&status=succeeded");
  EXPECT_EQ(made["deliveries"].size(), 4u);
}

TEST(SimResend, RefusesUnknownEventsAndForeignOrDisabledEndpointsChangingNothing) {
  TestServer server;
  Receiver receiver;
  auto alice = CreateEndpoint(server, receiver.Url("/a"));
  auto bob = CreateEndpoint(server, receiver.Url("/bob"), {"workspace.invitations"}, kBobKey);
  auto disabled = CreateEndpoint(server, receiver.Url("/off"));
  ASSERT_EQ(server.Patch("/v2/webhooks/endpoints/" + disabled.id, {{"status", "disabled"}}).status, 200);
  const std::string evt = Trigger(server)["id"];
  AdvanceResendClock(server, "0s");  // the event's own delivery made, so the listing stands still
  ASSERT_EQ(receiver.HitsTo("/a").size(), 1u);
  const std::string before = Deliveries(server).dump();

  auto unknown = server.Post("/_sim/events/evt_unknown/resend", json::object(), "");
  EXPECT_EQ(unknown.status, 404) << unknown.raw;
  EXPECT_NE(unknown.body.value("message", "").find("evt_unknown"), std::string::npos) << unknown.raw;

  auto foreign = server.Post("/_sim/events/" + evt + "/resend", {{"endpointId", bob.id}}, "");
  EXPECT_EQ(foreign.status, 400) << foreign.raw;
  EXPECT_EQ(foreign.body["errors"][0]["param"], "endpointId") << foreign.raw;
  auto gone = server.Post("/_sim/events/" + evt + "/resend", {{"endpointId", "whe_nope"}}, "");
  EXPECT_EQ(gone.status, 400) << gone.raw;
  auto off = server.Post("/_sim/events/" + evt + "/resend", {{"endpointId", disabled.id}}, "");
  EXPECT_EQ(off.status, 400) << off.raw;
  EXPECT_NE(off.raw.find("disabled"), std::string::npos) << off.raw;
  auto extra = server.Post("/_sim/events/" + evt + "/resend", {{"endpoint", alice.id}}, "");
  EXPECT_EQ(extra.status, 400) << "unknown members are refused: " << extra.raw;

  EXPECT_EQ(Deliveries(server).dump(), before) << "a refusal schedules nothing";
  AdvanceResendClock(server, "0s");
  EXPECT_EQ(receiver.HitsTo("/a").size(), 1u) << "only the event's own delivery";
  EXPECT_EQ(receiver.HitsTo("/bob").size(), 0u);
  EXPECT_EQ(receiver.HitsTo("/off").size(), 0u);
}

}  // namespace
}  // namespace emsim::testing
