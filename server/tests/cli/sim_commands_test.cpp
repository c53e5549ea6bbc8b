// `emsim clock|events|deliveries` (cli/sim_commands.hpp) against an in-process emsim: what they
// print, human and --json, and the exit codes scripts rely on (0 ok, 1 emsim said no, 2 usage or
// unreachable).
#include <sstream>

#include "cli/sim_commands.hpp"
#include "tests/support/refusing_port.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

struct SimRun {
  int code = -1;
  std::string out, err;
};

using SimFn = int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&, const cli::EnvLookup&);

// Runs a command with EMSIM_URL pointing at `url` (unless `url` is empty) and no other variable.
SimRun RunSimCommand(SimFn fn, std::vector<std::string> args, const std::string& url,
                     const std::string& admin_token = "") {
  std::ostringstream out, err;
  const cli::EnvLookup env = [&](const char* name) -> const char* {
    if (std::string(name) == "EMSIM_URL" && !url.empty()) return url.c_str();
    if (std::string(name) == "EMSIM_ADMIN_TOKEN" && !admin_token.empty()) return admin_token.c_str();
    return nullptr;
  };
  SimRun r;
  r.code = fn(args, out, err, env);
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(SimCommands, ClockShowAdvanceAndSet) {
  TestServer server;
  const std::string url = server.baseUrl();
  const model::Millis start = server.svc().clock.Now();

  auto show = RunSimCommand(&cli::ClockCommand, {"show"}, url);
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("now " + model::FormatIso(start) + " (manual clock"), std::string::npos) << show.out;

  auto advance = RunSimCommand(&cli::ClockCommand, {"advance", "1h"}, url);
  EXPECT_EQ(advance.code, 0) << advance.err;
  EXPECT_EQ(server.svc().clock.Now(), start + model::kHour);
  EXPECT_NE(advance.out.find("jobs run"), std::string::npos) << advance.out;

  auto as_json = RunSimCommand(&cli::ClockCommand, {"show", "--json"}, url);
  EXPECT_EQ(as_json.code, 0) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out)["epochMs"], start + model::kHour) << as_json.out;

  const model::Millis later = start + 2 * 24 * model::kHour;
  auto set = RunSimCommand(&cli::ClockCommand, {"set", model::FormatIso(later), "--url", url}, "");
  EXPECT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(server.svc().clock.Now(), later);

  // emsim says no: the clock never goes back (1, its message on stderr).
  auto back = RunSimCommand(&cli::ClockCommand, {"set", model::FormatIso(start)}, url);
  EXPECT_EQ(back.code, 1);
  EXPECT_NE(back.err.find("answered 400"), std::string::npos) << back.err;
  EXPECT_EQ(server.svc().clock.Now(), later);

  // Usage errors: 2.
  EXPECT_EQ(RunSimCommand(&cli::ClockCommand, {}, url).code, 2);
  EXPECT_EQ(RunSimCommand(&cli::ClockCommand, {"advance"}, url).code, 2);
  EXPECT_EQ(RunSimCommand(&cli::ClockCommand, {"show", "--bogus", "x"}, url).code, 2);
  EXPECT_EQ(RunSimCommand(&cli::ClockCommand, {"--help"}, url).code, 0);
}

TEST(SimCommands, EventsListShowResendAndDeliveries) {
  TestServer server;
  Receiver receiver;
  const std::string url = server.baseUrl();
  auto endpoint = CreateEndpoint(server, receiver.Url("/a"));
  const std::string evt = Trigger(server)["id"];

  auto list = RunSimCommand(&cli::EventsCommand, {"list", "--type", "workspace.invitations"}, url);
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find(evt), std::string::npos) << list.out;
  auto other_type = RunSimCommand(&cli::EventsCommand, {"list", "--type", "domain.updated", "--json"}, url);
  EXPECT_EQ(other_type.code, 0);
  EXPECT_EQ(other_type.out.find(evt), std::string::npos) << other_type.out;
  EXPECT_TRUE(json::parse(other_type.out).contains("events"));

  auto show = RunSimCommand(&cli::EventsCommand, {"show", evt, "--json"}, url);
  ASSERT_EQ(show.code, 0) << show.err;
  const json shown = json::parse(show.out);
  EXPECT_EQ(shown["event"]["id"], evt);
  EXPECT_EQ(shown["deliveries"].size(), 1u) << "the first attempt, scheduled";

  auto unknown = RunSimCommand(&cli::EventsCommand, {"show", "evt_unknown"}, url);
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("evt_unknown"), std::string::npos) << unknown.err;

  auto resend = RunSimCommand(&cli::EventsCommand, {"resend", evt, "--endpoint", endpoint.id}, url);
  EXPECT_EQ(resend.code, 0) << resend.err;
  EXPECT_NE(resend.out.find("scheduled dlv_"), std::string::npos) << resend.out;
  EXPECT_NE(resend.out.find(endpoint.id), std::string::npos) << resend.out;
  auto resend_unknown = RunSimCommand(&cli::EventsCommand, {"resend", "evt_unknown"}, url);
  EXPECT_EQ(resend_unknown.code, 1);
  EXPECT_NE(resend_unknown.err.find("404"), std::string::npos) << resend_unknown.err;

  ASSERT_EQ(RunSimCommand(&cli::ClockCommand, {"advance", "0s"}, url).code, 0);
  EXPECT_EQ(receiver.HitsTo("/a").size(), 2u) << "the delivery and the resent one";
  auto delivered = RunSimCommand(&cli::DeliveriesCommand, {"list", "--event", evt, "--status", "succeeded"}, url);
  EXPECT_EQ(delivered.code, 0) << delivered.err;
  std::istringstream lines(delivered.out);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n)
    EXPECT_NE(line.find(evt + "  " + endpoint.id + "  attempt 1  succeeded  HTTP 200"), std::string::npos) << line;
  EXPECT_EQ(n, 2) << delivered.out;
  auto as_json = RunSimCommand(&cli::DeliveriesCommand, {"list", "--endpoint", endpoint.id, "--json"}, url);
  EXPECT_EQ(json::parse(as_json.out)["deliveries"].size(), 2u) << as_json.out;
  EXPECT_EQ(RunSimCommand(&cli::DeliveriesCommand, {"show"}, url).code, 2);
}

TEST(SimCommands, UnreachableIsTwoAndTheAdminTokenIsSent) {
  RefusingPort closed;
  const int closed_port = closed.port();
  auto unreachable =
      RunSimCommand(&cli::ClockCommand, {"show"}, "http://127.0.0.1:" + std::to_string(closed_port));
  EXPECT_EQ(unreachable.code, 2);
  EXPECT_NE(unreachable.err.find("unreachable"), std::string::npos) << unreachable.err;

  app::Options o;
  o.adminToken = "sim-commands-token";
  TestServer server(o);
  auto without = RunSimCommand(&cli::EventsCommand, {"list"}, server.baseUrl());
  EXPECT_EQ(without.code, 1);
  EXPECT_NE(without.err.find("401"), std::string::npos) << without.err;
  EXPECT_EQ(RunSimCommand(&cli::EventsCommand, {"list"}, server.baseUrl(), "sim-commands-token").code, 0);
  EXPECT_EQ(RunSimCommand(&cli::DeliveriesCommand, {"list", "--admin-token", "sim-commands-token"}, server.baseUrl())
                .code,
            0);
}

}  // namespace
}  // namespace emsim::testing
