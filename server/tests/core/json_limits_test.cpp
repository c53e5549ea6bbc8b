// ParseJsonLimited's fast way (ParsePlainJson) against nlohmann's parser, the slow way
// (ParseJsonWithNlohmann): random documents, valid and broken, must come out the same, number
// types included, or be left to the slow way; and every limit reached is left to the slow way,
// which names it.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/json_limits.hpp"
#include "tests/support/typed_json.hpp"

namespace emsim::model {
namespace {

using testing::SameTypedJson;

class Documents {
 public:
  explicit Documents(std::uint32_t seed) : rng_(seed) {}

  std::string Next() {
    std::string text = Space() + Value(0) + Space();
    if (rng_() % 3 == 0) Break(text);
    return text;
  }

 private:
  std::string Pick(const std::vector<std::string>& from) { return from[rng_() % from.size()]; }
  std::string Space() { return Pick({"", "", "", " ", "\n", "\t", "\r\n", "  "}); }
  std::string Text() {
    static const std::vector<std::string> pieces = {"a", "Z", " ", "~", "#", "]", "\\\"", "\\\\", "\\n", "\\/", "\\u00e9",
                                                    "\\ud83d\\ude00", "\\udc00", "\xc3\xa9", "\xe2\x82\xac", "\xc3",
                                                    "\xff", "\x01", "\\x", "mbx_nw_01_01", "MONTHLY"};
    std::string s = "\"";
    const int parts = static_cast<int>(rng_() % 6);
    for (int i = 0; i < parts; ++i) s += Pick(pieces);
    return s + "\"";
  }
  std::string Value(int depth) {
    switch (rng_() % (depth < 5 ? 8 : 5)) {
      case 0:
      case 1:
        return Text();
      case 2:
        return Pick({"0", "-0", "1", "-1", "42", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                     "18446744073709551615", "18446744073709551616", "-9223372036854775809", "01", "-01", "1.5",
                     "1e3", "-", "2E-2", "0.0"});
      case 3:
        return Pick({"true", "false", "null", "nul", "True"});
      case 4:
        return rng_() % 2 ? "{}" : "[]";
      case 5:
      case 6: {
        std::string s = "{" + Space();
        const int n = static_cast<int>(rng_() % 4);
        for (int i = 0; i < n; ++i) {
          if (i) s += "," + Space();
          // Repeated keys (the last one stays), an escaped key, keys outside ASCII.
          s += Pick({"\"a\"", "\"b\"", "\"placementType\"", "\"\"", "\"\\u0061\"", "\"\xc3\xa9\"", "\"a\""}) + Space() +
               ":" + Space() + Value(depth + 1) + Space();
        }
        return s + "}";
      }
      default: {
        std::string s = "[" + Space();
        const int n = static_cast<int>(rng_() % 4);
        for (int i = 0; i < n; ++i) s += (i ? "," + Space() : "") + Value(depth + 1) + Space();
        return s + "]";
      }
    }
  }
  void Break(std::string& text) {
    if (text.empty()) return;
    const size_t at = rng_() % text.size();
    static const std::string bytes = std::string(",:{}[]\"\\ a0-.e", 14) + std::string("\0\xff", 2);
    switch (rng_() % 4) {
      case 0: text[at] = bytes[rng_() % bytes.size()]; break;
      case 1: text.erase(at, 1); break;
      case 2: text.insert(at, 1, bytes[rng_() % bytes.size()]); break;
      default: text.resize(at); break;
    }
  }

  std::mt19937 rng_;
};

TEST(ParsePlainJson, ReadsWhatNlohmannReadsWithTheSameTypesOrLeavesIt) {
  Documents docs(20261208);
  int read = 0, left = 0;
  for (int n = 0; n < 40000; ++n) {
    const std::string text = docs.Next();
    const auto slow = ParseJsonWithNlohmann(text);
    json fast;
    if (!ParsePlainJson(text, kRequestJsonLimits, fast)) {
      ++left;
      continue;
    }
    ++read;
    ASSERT_TRUE(slow.ok()) << "read a text the slow way refuses (" << slow.error().message << "): " << text;
    ASSERT_TRUE(SameTypedJson(fast, slow.value())) << text << "\nread as " << fast.dump() << "\nslow way: " << slow.value().dump();
    // And the whole parse answers that document.
    const auto whole = ParseJsonLimited(text);
    ASSERT_TRUE(whole.ok()) << text;
    EXPECT_TRUE(SameTypedJson(whole.value(), slow.value())) << text;
  }
  // Both ways were taken often: the generator reaches the fast reader and past it.
  EXPECT_GT(read, 8000);
  EXPECT_GT(left, 8000);
}

TEST(ParsePlainJson, ReadsTheBodiesClientsSend) {
  for (const std::string text : {
           R"({"placementType":"MONTHLY","testName":"bench","mailboxIds":["mbx_nw_01_01"]})",
           R"({ "amount": 5000, "paymentMethod": "WALLET", "autoRecharge": {"enabled": false, "threshold": -0} })",
           R"({"domains":[{"name":"example.com","years":1}],"note":"caf\u00e9 \"ok\""})", "[]", "{}", "null", "-7"}) {
    json fast;
    EXPECT_TRUE(ParsePlainJson(text, kRequestJsonLimits, fast)) << text;
    const auto slow = ParseJsonWithNlohmann(text);
    ASSERT_TRUE(slow.ok()) << text;
    EXPECT_TRUE(SameTypedJson(fast, slow.value())) << text;
  }
}

// Every limit: at it, read here; one past it, left to the slow way, which names the limit.
TEST(ParsePlainJson, LeavesEveryLimitReachedToTheSlowWayWhichNamesIt) {
  const JsonLimits limits{3, 5, 4, 20};  // depth, string bytes, items, values
  struct Case {
    std::string at, past, named;
  };
  const std::vector<Case> cases = {
      {R"([[["x"]]])", R"([[[["x"]]]])", "nests deeper than 3 levels"},
      {R"(["12345"])", R"(["123456"])", "a string is longer than 5 bytes"},
      {R"(["1234\u0035"])", R"(["1234\u00e9"])", "a string is longer than 5 bytes"},  // bytes after unescaping
      {R"({"12345":1})", R"({"123456":1})", "a string is longer than 5 bytes"},
      {"[1,2,3,4]", "[1,2,3,4,5]", "an array has more than 4 items"},
      {R"({"a":1,"b":2,"c":3,"d":4})", R"({"a":1,"b":2,"c":3,"d":4,"a":5})", "an object has more than 4 members"},
      // 20 values as the slow way counts them: the array, 4 objects, 4 keys, 3 arrays and 8 numbers.
      {R"([{"a":[1,2,3]},{"b":[3,4,5]},{"c":[1]},{"d":2}])", R"([{"a":[1,2,3]},{"b":[3,4,5]},{"c":[1]},{"d":[2]}])",
       "more than 20 values"},
  };
  for (const auto& c : cases) {
    json fast;
    EXPECT_TRUE(ParsePlainJson(c.at, limits, fast)) << c.at;
    EXPECT_TRUE(ParseJsonLimited(c.at, limits).ok()) << c.at;
    EXPECT_FALSE(ParsePlainJson(c.past, limits, fast)) << c.past;
    const auto refused = ParseJsonLimited(c.past, limits);
    ASSERT_FALSE(refused.ok()) << c.past;
    EXPECT_NE(refused.error().message.find(c.named), std::string::npos) << c.past << ": " << refused.error().message;
    // The same refusal the slow way gives by itself.
    EXPECT_EQ(refused.error().message, ParseJsonWithNlohmann(c.past, limits).error().message);
  }
}

}  // namespace
}  // namespace emsim::model
