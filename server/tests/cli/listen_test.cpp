// `emsim listen` (cli/listen_command.hpp) in-process: the Listener registers an endpoint on an
// in-process emsim, forwards each delivery to a local app (a test receiver) and answers emsim
// with the app's answer, so Part 6's retries run end to end under the manual clock.
#include <sstream>

#include "cli/listen_command.hpp"
#include "tests/support/refusing_port.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

void AdvanceListenClock(TestServer& server, const std::string& duration) {
  auto r = server.Post("/_sim/clock/advance", {{"duration", duration}}, "");
  ASSERT_EQ(r.status, 200) << r.raw;
}

std::vector<std::string> AttemptLines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.find("  attempt ") != std::string::npos) lines.push_back(line);
  return lines;
}

cli::ListenOptions ListenTo(TestServer& server, const std::string& forward_to) {
  cli::ListenOptions o;
  o.url = server.baseUrl();
  o.apiKey = kAliceKey;
  o.forwardTo = forward_to;
  return o;
}

TEST(Listen, ForwardsEveryAttemptSignedAndEmsimRetriesOnTheAppsAnswer) {
  TestServer server;
  Receiver app;
  app.SetBehaviour([](int n, const httplib::Request&, httplib::Response&) { return n <= 2 ? 500 : 200; });
  std::ostringstream out;
  cli::Listener listener(ListenTo(server, app.Url("/hooks")), out);
  listener.Start();
  ASSERT_FALSE(listener.endpointId().empty());
  EXPECT_NE(out.str().find(listener.secret()), std::string::npos) << "the secret is printed: " << out.str();
  // Default subscription: every type GET /v2/webhooks/events lists.
  const json endpoint = EndpointSummary(server, listener.endpointId());
  EXPECT_EQ(endpoint["enabled_events"].size(), 12u) << endpoint.dump();
  EXPECT_EQ(endpoint["url"], "http://127.0.0.1:" + std::to_string(listener.port()) + "/");

  const std::string evt = Trigger(server)["id"];
  // Part 6: attempt 1 at once, attempt 2 one minute after it, attempt 3 five minutes after that.
  AdvanceListenClock(server, "0s");
  AdvanceListenClock(server, "1m");
  AdvanceListenClock(server, "5m");

  const auto hits = app.HitsTo("/hooks");
  ASSERT_EQ(hits.size(), 3u);
  for (const auto& h : hits) {
    EXPECT_EQ(json::parse(h.body)["id"], evt);
    EXPECT_EQ(h.Header("Content-Type"), "application/json");
    EXPECT_EQ(h.Header("User-Agent"), "Service-Webhooks/1.0") << "emsim's, not the forwarder's (Part 6 headers)";
    // t=<unix>,v1=<hex>: HMAC-SHA256 of "<t>.<body>" with the printed secret (Part 6).
    const std::string sig = h.Header("X-Service-Signature");
    const size_t comma = sig.find(",v1=");
    ASSERT_EQ(sig.rfind("t=", 0), 0u) << sig;
    ASSERT_NE(comma, std::string::npos) << sig;
    const std::string t = sig.substr(2, comma - 2);
    EXPECT_EQ(sig.substr(comma + 4), TestHmacSha256Hex(listener.secret(), t + "." + h.body)) << sig;
  }

  const json made = Deliveries(server, "?eventId=" + evt);
  ASSERT_EQ(made["deliveries"].size(), 3u) << made.dump();
  EXPECT_EQ(made["deliveries"][0]["status"], "failed");
  EXPECT_EQ(made["deliveries"][0]["responseStatus"], 500);
  EXPECT_EQ(made["deliveries"][1]["status"], "failed");
  EXPECT_EQ(made["deliveries"][2]["status"], "succeeded");
  EXPECT_EQ(made["deliveries"][2]["responseStatus"], 200);

  listener.Stop();
  EXPECT_EQ(EndpointSummary(server, listener.endpointId())["status"], "disabled");
  const auto lines = AttemptLines(out.str());
  ASSERT_EQ(lines.size(), 3u) << out.str();
  const char* expected[] = {"attempt 1  500", "attempt 2  500", "attempt 3  200"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NE(lines[i].find("workspace.invitations  " + evt + "  " + expected[i]), std::string::npos) << lines[i];
    EXPECT_NE(lines[i].find(" ms"), std::string::npos) << lines[i];
  }
  EXPECT_NE(out.str().find("disabled"), std::string::npos) << out.str();
  listener.Stop();  // twice: nothing more
}

TEST(Listen, AnAppThatIsDownIsA502ForEmsimAndTheErrorOnTheLine) {
  TestServer server;
  RefusingPort closed;
  const int closed_port = closed.port();
  std::ostringstream out;
  auto options = ListenTo(server, "http://127.0.0.1:" + std::to_string(closed_port) + "/hooks");
  options.events = {"workspace.invitations"};
  cli::Listener listener(options, out);
  listener.Start();
  const std::string evt = Trigger(server)["id"];
  AdvanceListenClock(server, "0s");
  const json made = Deliveries(server, "?eventId=" + evt);
  ASSERT_EQ(made["deliveries"].size(), 2u) << "the failed attempt and the retry scheduled: " << made.dump();
  EXPECT_EQ(made["deliveries"][0]["status"], "failed");
  EXPECT_EQ(made["deliveries"][0]["responseStatus"], 502);
  EXPECT_EQ(made["deliveries"][1]["status"], "scheduled");
  listener.Stop();
  const auto lines = AttemptLines(out.str());
  ASSERT_EQ(lines.size(), 1u) << out.str();
  EXPECT_NE(lines[0].find("attempt 1  error: "), std::string::npos) << lines[0];
}

TEST(Listen, StartFailsWithTheExitCodeOfWhatWentWrong) {
  TestServer server;
  const size_t endpoints_before = Deliveries(server)["endpoints"].size();
  std::ostringstream out;
  auto bad_key = ListenTo(server, "http://127.0.0.1:9/hooks");
  bad_key.apiKey = "emsim_not_a_key";
  cli::Listener refused(bad_key, out);
  try {
    refused.Start();
    ADD_FAILURE() << "a wrong API key must fail";
  } catch (const cli::ListenError& e) {
    EXPECT_EQ(e.exitCode, 1) << e.what();
    EXPECT_NE(std::string(e.what()).find("401"), std::string::npos) << e.what();
  }

  RefusingPort closed;
  const int closed_port = closed.port();
  auto nowhere = ListenTo(server, "http://127.0.0.1:9/hooks");
  nowhere.url = "http://127.0.0.1:" + std::to_string(closed_port);
  cli::Listener unreachable(nowhere, out);
  try {
    unreachable.Start();
    ADD_FAILURE() << "an unreachable emsim must fail";
  } catch (const cli::ListenError& e) {
    EXPECT_EQ(e.exitCode, 2) << e.what();
  }
  EXPECT_THROW(cli::Listener(ListenTo(server, "localhost:3000"), out), cli::ListenError);
  EXPECT_EQ(Deliveries(server)["endpoints"].size(), endpoints_before) << "nothing registered";
}

}  // namespace
}  // namespace emsim::testing
