// `emsim trigger` (cli/sim_commands.hpp) against an in-process emsim, with `emsim listen`
// (cli::Listener) forwarding to a local app: every Part 6 event type's real change produces
// events that reach the app through listen, signed and schema-valid; and the exit codes
// scripts rely on (0 ok, 1 emsim refused, 2 usage or unreachable).
#include <map>
#include <set>
#include <sstream>

#include "cli/listen_command.hpp"
#include "cli/sim_commands.hpp"
#include "schema/event_check.hpp"
#include "tests/support/refusing_port.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

struct TriggerRun {
  int code = -1;
  std::string out, err;
};

// `emsim trigger ARGS` with EMSIM_URL and EMSIM_API_KEY as given (empty: unset).
TriggerRun RunTrigger(std::vector<std::string> args, const std::string& url, const std::string& api_key = kAliceKey) {
  std::ostringstream out, err;
  const cli::EnvLookup env = [&](const char* name) -> const char* {
    if (std::string(name) == "EMSIM_URL" && !url.empty()) return url.c_str();
    if (std::string(name) == "EMSIM_API_KEY" && !api_key.empty()) return api_key.c_str();
    return nullptr;
  };
  TriggerRun r;
  r.code = cli::TriggerCommand(args, out, err, env);
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(TriggerCommand, EveryEventTypeReachesTheAppThroughListenSchemaValid) {
  TestServer server;
  Receiver app;
  std::ostringstream listen_out;
  cli::ListenOptions o;
  o.url = server.baseUrl();
  o.apiKey = kAliceKey;
  o.forwardTo = app.Url("/hooks");
  cli::Listener listener(o, listen_out);  // subscribed to every type GET /v2/webhooks/events lists
  listener.Start();

  const json types = server.Get("/v2/webhooks/events").body["data"];
  ASSERT_EQ(types.size(), 12u);
  // Cancelling the account's one changeable subscription comes last: a cancelled subscription
  // cannot be upgraded (subscription.billing_changed).
  std::vector<std::string> order;
  for (const auto& t : types)
    if (t["value"] != "subscription.status_changed") order.push_back(t["value"]);
  order.push_back("subscription.status_changed");
  std::set<std::string> emitted;
  for (const auto& type : order) {
    auto r = RunTrigger({type, "--json"}, server.baseUrl());
    ASSERT_EQ(r.code, 0) << type << ": " << r.err;
    const json doc = json::parse(r.out);
    bool has_type = false;
    for (const auto& e : doc["events"]) {
      emitted.insert(e["id"].get<std::string>());
      has_type = has_type || e["type"] == type;
    }
    EXPECT_TRUE(has_type) << r.out;
  }
  server.Advance("0s");  // the first attempts are due now: wait for them

  std::map<std::string, json> delivered;
  for (const auto& h : app.HitsTo("/hooks")) {
    const json envelope = json::parse(h.body);
    delivered[envelope["id"]] = envelope;
    // Signed with the secret listen printed (Part 6).
    const std::string sig = h.Header("X-Service-Signature");
    const size_t comma = sig.find(",v1=");
    ASSERT_NE(comma, std::string::npos) << sig;
    EXPECT_EQ(sig.substr(comma + 4), TestHmacSha256Hex(listener.secret(), sig.substr(2, comma - 2) + "." + h.body));
  }
  std::set<std::string> types_seen;
  for (const auto& id : emitted) {
    auto it = delivered.find(id);
    ASSERT_NE(it, delivered.end()) << id << " was not delivered through listen";
    types_seen.insert(it->second["type"].get<std::string>());
    std::string problems;
    for (const auto& p : schema::EventSchemaProblems(server.svc().schemas, it->second)) problems += p + "\n";
    EXPECT_EQ(problems, "") << it->second.dump();
  }
  EXPECT_EQ(types_seen.size(), 12u);
  listener.Stop();
  // One line per attempt on listen's output, each answered 200 by the app.
  size_t lines = 0;
  std::istringstream in(listen_out.str());
  for (std::string line; std::getline(in, line);)
    if (line.find("  attempt 1  200") != std::string::npos) ++lines;
  EXPECT_EQ(lines, emitted.size()) << listen_out.str();
}

TEST(TriggerCommand, PrintsTheChangeAndTheEventIds) {
  TestServer server;
  auto r = RunTrigger({"workspace.status_changed", "--object", "ws_northwind"}, server.baseUrl());
  ASSERT_EQ(r.code, 0) << r.err;
  const json events = server.Get("/_sim/events?type=workspace.status_changed", "").body["events"];
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(r.out.rfind("workspace.status_changed on ws_northwind: workspace ws_northwind renamed", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(events[0]["id"].get<std::string>() + "  workspace.status_changed\n"), std::string::npos) << r.out;
  // --api-key wins over EMSIM_API_KEY; --url over EMSIM_URL.
  auto bob = RunTrigger({"workspace.status_changed", "--api-key", kBobKey, "--url", server.baseUrl()}, "", "nope");
  ASSERT_EQ(bob.code, 0) << bob.err;
  EXPECT_EQ(server.Get("/_sim/events?type=workspace.status_changed&accountId=acc_bob", "").body["events"].size(), 1u);
}

TEST(TriggerCommand, ExitCodes) {
  TestServer server;
  const std::string url = server.baseUrl();
  const size_t before = server.Get("/_sim/events", "").body["events"].size();
  auto help = RunTrigger({"--help"}, url);
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("emsim trigger EVENT_TYPE"), std::string::npos);
  // Usage: no type, two types, an unknown flag, no API key.
  EXPECT_EQ(RunTrigger({}, url).code, 2);
  EXPECT_EQ(RunTrigger({"domain.updated", "mailbox.updated"}, url).code, 2);
  EXPECT_EQ(RunTrigger({"domain.updated", "--objekt", "x"}, url).code, 2);
  auto no_key = RunTrigger({"domain.updated"}, url, "");
  EXPECT_EQ(no_key.code, 2);
  EXPECT_NE(no_key.err.find("EMSIM_API_KEY"), std::string::npos) << no_key.err;
  // emsim refuses: its Part 7 message, naming the field, on stderr.
  auto unknown = RunTrigger({"domain.exploded"}, url);
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("type: unknown event type 'domain.exploded'"), std::string::npos) << unknown.err;
  auto wrong_object = RunTrigger({"domain.updated", "--object", "mbx_nw_01_01"}, url);
  EXPECT_EQ(wrong_object.code, 1);
  EXPECT_NE(wrong_object.err.find("objectId: "), std::string::npos) << wrong_object.err;
  EXPECT_EQ(RunTrigger({"domain.updated"}, url, "emsim_not_a_key").code, 1);
  // Nothing answering.
  RefusingPort closed;
  EXPECT_EQ(RunTrigger({"domain.updated"}, "http://127.0.0.1:" + std::to_string(closed.port())).code, 2);
  EXPECT_EQ(server.Get("/_sim/events", "").body["events"].size(), before) << "nothing changed";
}

}  // namespace
}  // namespace emsim::testing
