// The one duration grammar (model::ParseDuration), tested once: every form it accepts, every way
// it refuses, and the limits (length, 100 years, no signed overflow on huge numbers).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/messages.hpp"
#include "core/time.hpp"
#include "fixture/fixtures.hpp"
#include "scenario/parse.hpp"

namespace emsim::model {
namespace {

struct Accepted {
  const char* text;
  Millis ms;
};

TEST(Duration, AcceptsEveryForm) {
  const Accepted table[] = {
      // a bare number: seconds
      {"90", 90 * kSecond},
      {"0", 0},
      {"1.5", 1500},
      {"0.25", 250},
      {"007", 7 * kSecond},
      // one part
      {"90s", 90 * kSecond},
      {"1500ms", 1500},
      {"15m", 15 * kMinute},
      {"2h", 2 * kHour},
      {"1.5h", 90 * kMinute},
      {"1d", kDay},
      {"0s", 0},
      {"0.5ms", 1},       // rounded to the millisecond (half up)
      {"0.4ms", 0},
      {"1.0005s", 1001},
      {"0.123456789123s", 123},  // decimals beyond the ninth are read and ignored
      // several parts, largest unit first
      {"2h30m", 2 * kHour + 30 * kMinute},
      {"1d2h", kDay + 2 * kHour},
      {"1h30m15s500ms", kHour + 30 * kMinute + 15 * kSecond + 500},
      {"1m5s", kMinute + 5 * kSecond},
      {"2h36m", 2 * kHour + 36 * kMinute},
      {"1d0.5h", kDay + 30 * kMinute},  // a fraction on the last part
      {"90m", 90 * kMinute},            // a part may exceed the next unit up
      // ISO 8601
      {"PT2H30M", 2 * kHour + 30 * kMinute},
      {"PT90S", 90 * kSecond},
      {"P1D", kDay},
      {"P1DT2H", kDay + 2 * kHour},
      {"PT1.5H", 90 * kMinute},
      {"PT0.5S", 500},
      {"PT0S", 0},
      {"P2DT3H4M5S", 2 * kDay + 3 * kHour + 4 * kMinute + 5 * kSecond},
      {"pt2h30m", 2 * kHour + 30 * kMinute},  // letters in any case
      {"p1dT2h", kDay + 2 * kHour},
      // the limit itself
      {"36500d", kMaxDuration},
      {"P36500D", kMaxDuration},
  };
  for (const auto& row : table) {
    EXPECT_EQ(ParseDuration(row.text), std::optional<Millis>(row.ms)) << "'" << row.text << "'";
  }
}

TEST(Duration, RefusesEverythingElse) {
  const char* table[] = {
      // empty and signs
      "", "-5s", "+5s", "-1", "-PT5M",
      // spaces anywhere
      " 5m", "5m ", "5 m", "2h 30m", "5 minutes",
      // units it does not know (weeks, months and years vary or are not emsim's)
      "5x", "5w", "1y", "5min", "5sec", "5S", "5M", "1H", "5mss", "5hh",
      // numbers without a unit after other parts, units without numbers, bad numbers
      "2h30", "m5", "h", "s", ".5s", "1.s", "1..5s", "1.5.5s", "1e3s", "1e3", "0x10", "1,5h",
      // repeated or out-of-order units
      "1h1h", "30m2h", "5s1m", "1ms1s", "1d1d",
      // a fraction before the last part
      "1.5h30m", "0.5d1h",
      // trailing garbage
      "5m!", "90s30", "1d2hx", "5m\n",
      // NaN and infinity in any spelling
      "nan", "NaN", "inf", "infinity", "INFs",
      // ISO forms it refuses
      "P", "PT", "P1DT", "PT2H30", "P1M", "P1Y", "P1W", "PT1D", "P1H", "PT30M2H", "PT1H1H", "PT1.5H30M",
      "PTT1H", "P1DT2HT3M", "P-1D", "PT 1H", "PT1,5H", "1DT2H", "TP1D",
      // beyond 100 years, and numbers that would overflow 64 bits
      "36500.001d", "36501d", "P36501D", "3153600000001ms", "876001h", "99999999999999999999d",
      "99999999999999999999", "99999999999999999999999999999999999999999ms", "PT99999999999999999999S",
      "18446744073709551616ms", "9223372036854775807ms", "9223372036854775808s", "36500d1ms",
  };
  for (const char* text : table) {
    EXPECT_EQ(ParseDuration(text), std::nullopt) << "'" << text << "'";
  }
  // An embedded NUL is not the end of the text.
  EXPECT_EQ(ParseDuration(std::string_view("5m\0", 3)), std::nullopt);
}

TEST(Duration, LongTextIsRefusedBeforeItIsRead) {
  const std::string long_zeros(kMaxDurationChars, '0');
  EXPECT_EQ(ParseDuration(long_zeros), 0);  // 64 zeros: a valid (silly) zero
  EXPECT_EQ(ParseDuration(long_zeros + "0"), std::nullopt);
  EXPECT_EQ(ParseDuration(std::string(100000, '9') + "s"), std::nullopt);
}

TEST(Duration, TheProblemNamesTheValueAndTheGrammar) {
  EXPECT_EQ(DurationProblem("5x"), std::string("'5x' is not ") + msg::kDurationGrammar);
  // Quoted safely: control bytes and non-ASCII shown as '?', long values cut.
  EXPECT_EQ(DurationProblem("\n5\xff"), std::string("'?5?' is not ") + msg::kDurationGrammar);
  const std::string problem = DurationProblem(std::string(1000, 'z'));
  EXPECT_EQ(problem, "'" + std::string(40, 'z') + "...' is not " + msg::kDurationGrammar);
}

// ---- every reader of a duration uses it ------------------------------------------------------------

std::string FixtureError(const std::string& yaml) {
  try {
    fixture::LoadFixtureText(yaml, "f.yaml", 1);
  } catch (const fixture::FixtureError& e) {
    return e.what();
  }
  return "";
}

TEST(Duration, FixtureTimingsTakeTheGrammarInWholeSeconds) {
  const fixture::Fixture f = fixture::LoadFixtureText(
      "timings: {dmarcSeconds: 45, forwardingSeconds: 1.5m, catchAllSeconds: PT2H, exportSeconds: 1d2h3m4s}\n"
      "accounts: []\n",
      "f.yaml", 1);
  EXPECT_EQ(f.state.timings.at("dmarcSeconds"), 45);  // a bare number is seconds, as before
  EXPECT_EQ(f.state.timings.at("forwardingSeconds"), 90);
  EXPECT_EQ(f.state.timings.at("catchAllSeconds"), 7200);
  EXPECT_EQ(f.state.timings.at("exportSeconds"), 93784);
  EXPECT_EQ(FixtureError("timings: {dmarcSeconds: soon}\naccounts: []\n"),
            std::string("f.yaml:1: timings.dmarcSeconds: 'soon' is not ") + msg::kDurationGrammar);
  EXPECT_EQ(FixtureError("timings: {dmarcSeconds: -5}\naccounts: []\n"),
            std::string("f.yaml:1: timings.dmarcSeconds: '-5' is not ") + msg::kDurationGrammar);
  EXPECT_EQ(FixtureError("timings: {dmarcSeconds: 99999999999999999999d}\naccounts: []\n"),
            std::string("f.yaml:1: timings.dmarcSeconds: '99999999999999999999d' is not ") + msg::kDurationGrammar);
  EXPECT_EQ(FixtureError("timings: {dmarcSeconds: 1500ms}\naccounts: []\n"),
            "f.yaml:1: timings.dmarcSeconds: must be whole seconds, got '1500ms'");
  EXPECT_EQ(FixtureError("timings: {dmarcSeconds: [1]}\naccounts: []\n"),
            std::string("f.yaml:1: timings.dmarcSeconds: '' is not ") + msg::kDurationGrammar);
}

TEST(Duration, ScenarioFilesTakeTheGrammarAndNameTheLine) {
  const scenario::Scenario sc = scenario::ParseScenarioText(
      "name: d\nsteps:\n  - advance: PT1H30M\n  - advance: 1.5\n"
      "  - expect_deliveries:\n      attempts_after_event: [0, 1m, PT6M, 36m]\n",
      "d.yaml", ".");
  ASSERT_EQ(sc.steps.size(), 3u);
  EXPECT_EQ(sc.steps[0].call.body, (json{{"seconds", 5400.0}}));
  EXPECT_EQ(sc.steps[1].call.body, (json{{"seconds", 1.5}}));
  EXPECT_EQ(*sc.steps[2].attemptOffsets, (json{0, kMinute, 6 * kMinute, 36 * kMinute}));
  auto error_of = [](const std::string& text) {
    try {
      scenario::ParseScenarioText(text, "d.yaml", ".");
    } catch (const scenario::ScenarioParseError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("name: d\nsteps:\n  - advance: 30m2h\n"),
            std::string("d.yaml:3: step 1: advance: '30m2h' is not ") + msg::kDurationGrammar);
  EXPECT_EQ(error_of("name: d\nsteps:\n  - expect_deliveries:\n      attempts_after_event: [0s, 1w]\n"),
            std::string("d.yaml:4: step 1: attempts_after_event: '1w' is not ") + msg::kDurationGrammar);
}

}  // namespace
}  // namespace emsim::model
