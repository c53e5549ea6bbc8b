// core::JsonCursor's strings, keys and compact objects, read eight bytes at a time (PlainAsciiRun), against what a
// byte at a time and nlohmann's parser make of the same text: every position of the byte that
// ends a run, in words and in the tail, and random texts mixing plain bytes, escapes, controls and
// UTF-8 (valid and not).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "core/json_read.hpp"

namespace emsim::core {
namespace {

size_t ByteAtATime(std::string_view s) {
  size_t i = 0;
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
  }
  return i;
}

// Plain bytes next to the ones that end a run ('"' 0x22, '\\' 0x5c, 0x1f, 0x80), so a test that
// only looked near them would be caught.
constexpr std::string_view kPlain = " !#$[]^_~aZ09-:{}A";
constexpr std::string_view kEnders[] = {std::string_view("\0", 1), "\x1f", "\"", "\\", "\x7f", "\x80", "\xc3", "\xff"};

TEST(PlainAsciiRun, StopsAtTheFirstByteThatEndsARunWhereverItIs) {
  for (size_t len = 0; len <= 40; ++len) {
    std::string plain;
    for (size_t i = 0; i < len; ++i) plain += kPlain[i % kPlain.size()];
    EXPECT_EQ(PlainAsciiRun(plain.data(), plain.data() + plain.size()), len);
    for (size_t at = 0; at < len; ++at) {
      for (std::string_view ender : kEnders) {
        std::string s = plain;
        s[at] = ender[0];
        // A second ender after the first must not move the answer (a borrow spreads upwards).
        if (at + 1 < len) s[at + 1] = '\0';
        EXPECT_EQ(PlainAsciiRun(s.data(), s.data() + s.size()), ByteAtATime(s))
            << "length " << len << ", byte " << static_cast<int>(static_cast<unsigned char>(ender[0])) << " at " << at;
      }
    }
  }
  // 0x7f (DEL) is printable for JSON: it does not end a run.
  const std::string del = "abc\x7f" "defghijkl";
  EXPECT_EQ(PlainAsciiRun(del.data(), del.data() + del.size()), del.size());
}

TEST(JsonCursor, StringsAndKeysReadAsNlohmannReadsThem) {
  std::mt19937 rng(20261207);
  const std::vector<std::string> pieces = {"a", "Z", " ", "~", "#", "]", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00",
                                           "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xff", "\x01", "\\x"};
  for (int n = 0; n < 20000; ++n) {
    std::string inner;
    const int parts = static_cast<int>(rng() % 24);
    // Mostly plain text, so the runs reach across words.
    for (int i = 0; i < parts; ++i) inner += rng() % 3 ? std::string(1, kPlain[rng() % kPlain.size()]) : pieces[rng() % pieces.size()];
    const std::string text = "\"" + inner + "\"";
    const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);

    std::string got;
    JsonCursor string_cursor(text);
    const bool read = string_cursor.String(got);
    EXPECT_EQ(read, !parsed.is_discarded()) << text;
    if (read && !parsed.is_discarded()) {
      EXPECT_EQ(got, parsed.get<std::string>()) << text;
    }

    // PlainString: only a text without escapes, as it is; it leaves the cursor where it was when
    // it does not read.
    std::string_view plain;
    JsonCursor plain_cursor(text);
    const bool no_escapes = inner.find('\\') == std::string::npos;
    EXPECT_EQ(plain_cursor.PlainString(plain), !parsed.is_discarded() && no_escapes) << text;
    if (!parsed.is_discarded() && no_escapes) {
      EXPECT_EQ(plain, parsed.get<std::string>()) << text;
    } else {
      EXPECT_EQ(plain_cursor.String(got), read) << text;
    }

    // Key: printable ASCII only, then ':'.
    std::string_view key;
    const std::string member = text + ":1";
    JsonCursor key_cursor(member);
    EXPECT_EQ(key_cursor.Key(key), ByteAtATime(inner) == inner.size()) << member;
    if (ByteAtATime(inner) == inner.size()) {
      EXPECT_EQ(key, inner);
    }

    // CompactObject: a value as PlainString takes it, a key as Key does.
    std::string_view object;
    const std::string with_value = "{\"k\":" + text + "}";
    EXPECT_EQ(JsonCursor(with_value).CompactObject(object), !parsed.is_discarded() && no_escapes) << with_value;
    const std::string with_key = "{" + text + ":1}";
    EXPECT_EQ(JsonCursor(with_key).CompactObject(object), ByteAtATime(inner) == inner.size()) << with_key;
  }
}

}  // namespace
}  // namespace emsim::core
