// emsim serve's flags and their EMSIM_* variables: each flag has a variable, the flag wins, bad
// values are refused naming the flag or the variable they came from.
#include <gtest/gtest.h>

#include <map>

#include "cli/serve_flags.hpp"

namespace emsim::cli {
namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  Getenv Get() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string FlagErrorOf(const std::vector<std::string>& args, const FakeEnv& env = {}) {
  try {
    ParseServeFlags(args, env.Get());
  } catch (const FlagError& e) {
    return e.what();
  }
  return "";
}

TEST(ServeFlags, EnvNameIsTheFlagInCapitals) {
  EXPECT_EQ(EnvName("--log-format"), "EMSIM_LOG_FORMAT");
  EXPECT_EQ(EnvName("--max-body-bytes"), "EMSIM_MAX_BODY_BYTES");
  EXPECT_EQ(EnvName("--port"), "EMSIM_PORT");
}

TEST(ServeFlags, VariablesConfigureWhatFlagsDo) {
  FakeEnv env{{{"EMSIM_PORT", "0"}, {"EMSIM_CLOCK", "manual"}, {"EMSIM_SEED", "7"}, {"EMSIM_DATA_DIR", "/tmp/d"},
               {"EMSIM_ADMIN_TOKEN", "tok"}, {"EMSIM_WEBHOOK_INSECURE", "true"}, {"EMSIM_MAX_CONNECTIONS", "9"},
               {"EMSIM_LOG_FORMAT", "json"}, {"EMSIM_LOG_LEVEL", "warn"}, {"EMSIM_WARM_INDEXES", "0"}}};
  const app::Options o = ParseServeFlags({}, env.Get());
  EXPECT_EQ(o.port, 0);
  EXPECT_EQ(o.clockMode, runtime::ClockMode::kManual);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.dataDir, "/tmp/d");
  EXPECT_EQ(o.adminToken, "tok");
  EXPECT_TRUE(o.webhookInsecure);
  EXPECT_EQ(o.maxConnections, 9);
  EXPECT_EQ(o.logFormat, "json");
  EXPECT_EQ(o.logLevel, "warn");
  EXPECT_EQ(o.warmIndexes, 0u);
  EXPECT_EQ(ParseServeFlags({"--warm-indexes", "250"}, FakeEnv{}.Get()).warmIndexes, 250u);
}

// The shard becomes part of every minted key and of proxies' backend names: letters and digits
// only, so a key's second `_` field is always the whole shard.
TEST(ServeFlags, ShardIdIsLettersAndDigits) {
  EXPECT_EQ(ParseServeFlags({}, FakeEnv{}.Get()).shardId, "test");
  EXPECT_EQ(ParseServeFlags({"--shard-id", "s2"}, FakeEnv{}.Get()).shardId, "s2");
  EXPECT_EQ(ParseServeFlags({}, FakeEnv{{{"EMSIM_SHARD_ID", "east1"}}}.Get()).shardId, "east1");
  for (const char* bad : {"", "s_1", "s-1", "s 1", "s1/", "012345678901234567890123456789012"})
    EXPECT_NE(FlagErrorOf({"--shard-id", bad}).find("--shard-id must be 1 to 32 letters and digits"), std::string::npos)
        << "'" << bad << "'";
}

TEST(ServeFlags, AFlagWinsOverItsVariable) {
  FakeEnv env{{{"EMSIM_SEED", "7"}, {"EMSIM_CLOCK", "manual"}, {"EMSIM_STRICT_WEBHOOK_URLS", "1"}}};
  const app::Options o = ParseServeFlags({"--seed", "9", "--clock=real"}, env.Get());
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.clockMode, runtime::ClockMode::kReal);
  EXPECT_TRUE(o.strictWebhookUrls);  // untouched by the flags given
  // A switch given as a flag is on whatever its variable says; "--switch=false" turns it off.
  FakeEnv off{{{"EMSIM_WEBHOOK_INSECURE", "0"}}};
  EXPECT_TRUE(ParseServeFlags({"--webhook-insecure"}, off.Get()).webhookInsecure);
  FakeEnv on{{{"EMSIM_WEBHOOK_INSECURE", "yes"}}};
  EXPECT_FALSE(ParseServeFlags({"--webhook-insecure=false"}, on.Get()).webhookInsecure);
}

TEST(ServeFlags, DefaultsWithNothingSet) {
  const app::Options o = ParseServeFlags({}, FakeEnv{}.Get());
  const app::Options d;
  EXPECT_EQ(o.port, d.port);
  EXPECT_EQ(o.host, d.host);
  EXPECT_EQ(o.clockMode, d.clockMode);
  EXPECT_EQ(o.retainEvents, d.retainEvents);
  EXPECT_EQ(o.warmIndexes, 10000u);
  EXPECT_FALSE(o.signWithSimulatedTime);
  EXPECT_EQ(o.logLevel, "info");
}

TEST(ServeFlags, BadValuesNameWhereTheyCameFrom) {
  EXPECT_NE(FlagErrorOf({}, FakeEnv{{{"EMSIM_CLOCK", "sometimes"}}}).find("EMSIM_CLOCK must be real or manual"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--clock", "sometimes"}).find("--clock must be real or manual"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--port", "70000"}).find("--port must be 0..65535"), std::string::npos);
  EXPECT_NE(FlagErrorOf({}, FakeEnv{{{"EMSIM_PORT", "-1"}}}).find("EMSIM_PORT needs a non-negative whole number"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--seed", "12abc"}).find("'12abc'"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--seed", "99999999999999999999999"}).find("--seed needs"), std::string::npos);
  EXPECT_NE(FlagErrorOf({}, FakeEnv{{{"EMSIM_WEBHOOK_INSECURE", "maybe"}}}).find("EMSIM_WEBHOOK_INSECURE is a switch"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--bogus", "1"}).find("unknown flag '--bogus'"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--port"}).find("--port needs a value"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--log-level", "loud"}).find("debug, info, warn or error"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--warm-indexes", "many"}).find("--warm-indexes needs a non-negative whole number"), std::string::npos);
  EXPECT_NE(FlagErrorOf({"--max-connections", "0"}).find("--max-connections must be 1..100000"), std::string::npos);
}

TEST(ServeFlags, HelpListsEveryFlagWithItsVariable) {
  const std::string help = ServeEnvHelp();
  for (const char* pair : {"--port", "EMSIM_PORT", "--data-dir", "EMSIM_DATA_DIR", "--webhook-insecure",
                           "EMSIM_WEBHOOK_INSECURE", "--log-level", "EMSIM_LOG_LEVEL", "EMSIM_SHARE_DIR"})
    EXPECT_NE(help.find(pair), std::string::npos) << pair;
}

}  // namespace
}  // namespace emsim::cli
