// DumpJson / AppendJson / JsonOut::Value (core/json_out.hpp) must give exactly the bytes of
// nlohmann's dump(), and the same exception where dump() throws (the response writer
// will use them instead of dump()). A seeded random property test plus the edge cases by name.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/json_out.hpp"

namespace emsim {
namespace {

// What a serializer produced: its text, or the nlohmann type_error it threw.
struct Outcome {
  std::string text;
  int error_id = 0;
  std::string what;
  bool operator==(const Outcome&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return o.error_id ? os << "type_error " << o.error_id << ": " << o.what : os << o.text;
}

template <class F>
Outcome Capture(F&& f) {
  try {
    return {f(), 0, ""};
  } catch (const json::type_error& e) {
    return {"", e.id, e.what()};
  }
}
Outcome ByNlohmann(const json& v) { return Capture([&] { return v.dump(); }); }
Outcome ByDumpJson(const json& v) { return Capture([&] { return core::DumpJson(v); }); }
Outcome ByJsonOutValue(const json& v) { return Capture([&] { return core::JsonOut().Value(v).str(); }); }

std::string Printable(const std::string& s) {
  std::string out;
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F) out += static_cast<char>(c);
    else out += std::string("\\x") + kHex[c >> 4] + kHex[c & 0xF];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Random documents

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  json Document(int depth = 0) {
    const int kind = Below(depth >= 4 ? 6 : 8);
    switch (kind) {
      case 0: return nullptr;
      case 1: return Below(2) == 1;
      case 2: return Integer();
      case 3: return Unsigned();
      case 4: return Double();
      case 5: return json(String());
      case 6: {
        json a = json::array();
        for (int i = Below(6); i > 0; --i) a.push_back(Document(depth + 1));
        return a;
      }
      default: {
        json o = json::object();
        for (int i = Below(6); i > 0; --i) o[String()] = Document(depth + 1);
        return o;
      }
    }
  }

  // Mostly valid UTF-8 with every kind of byte that needs work; one string in ~12 gets a
  // random byte somewhere (usually invalid UTF-8).
  std::string String() {
    std::string s;
    const int pieces = Below(4) == 0 ? Below(40) : Below(8);
    for (int i = 0; i < pieces; ++i) {
      switch (Below(10)) {
        case 0: s += static_cast<char>(Below(0x20)); break;  // control character
        case 1: s += Below(2) ? '"' : '\\'; break;
        case 2: AppendUtf8(s, 0x80 + Below(0x800 - 0x80)); break;  // 2 bytes
        case 3: {                                                   // 3 bytes, no surrogate
          int cp = 0x800 + Below(0x10000 - 0x800);
          if (cp >= 0xD800 && cp <= 0xDFFF) cp -= 0x800;
          AppendUtf8(s, cp);
          break;
        }
        case 4: AppendUtf8(s, 0x10000 + Below(0x110000 - 0x10000)); break;  // 4 bytes
        case 5: s += static_cast<char>(0x7F); break;
        default:  // a run of plain ASCII, long enough to cross 8-byte words
          for (int n = Below(20); n > 0; --n) s += static_cast<char>(0x20 + Below(0x5F));
      }
    }
    if (Below(12) == 0) s.insert(s.begin() + Below(static_cast<int>(s.size()) + 1), static_cast<char>(Below(256)));
    return s;
  }

 private:
  int Below(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }

  json Integer() {
    static constexpr std::int64_t kEdges[] = {0, 1, -1, 9, 10, -10, std::numeric_limits<std::int64_t>::min(),
                                              std::numeric_limits<std::int64_t>::max()};
    if (Below(3) == 0) return kEdges[Below(8)];
    return static_cast<std::int64_t>(rng_()) >> Below(64);
  }
  json Unsigned() {
    static constexpr std::uint64_t kEdges[] = {0, 1, 10, std::numeric_limits<std::uint64_t>::max(),
                                               std::uint64_t{1} << 63};
    if (Below(3) == 0) return kEdges[Below(5)];
    return rng_() >> Below(64);
  }
  json Double() {
    static constexpr double kEdges[] = {0.1, -0.0, 0.0, 1.0, -1.5, 1e308, 5e-324, 2.2250738585072014e-308,
                                        1e21, 1e-7, 123456789012345678.0, 0.30000000000000004,
                                        std::numeric_limits<double>::max(), std::numeric_limits<double>::quiet_NaN(),
                                        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    switch (Below(4)) {
      case 0: return kEdges[Below(16)];
      case 1: return std::bit_cast<double>(rng_());  // any bit pattern, NaNs included
      case 2: return static_cast<double>(Below(2000000) - 1000000) / 100.0;
      default: return static_cast<double>(static_cast<std::int64_t>(rng_() >> 11));
    }
  }
  static void AppendUtf8(std::string& s, int cp) {
    auto c = [&](int v) { s += static_cast<char>(v); };
    if (cp < 0x800) {
      c(0xC0 | cp >> 6);
    } else if (cp < 0x10000) {
      c(0xE0 | cp >> 12);
      c(0x80 | (cp >> 6 & 0x3F));
    } else {
      c(0xF0 | cp >> 18);
      c(0x80 | (cp >> 12 & 0x3F));
      c(0x80 | (cp >> 6 & 0x3F));
    }
    c(0x80 | (cp & 0x3F));
  }

  std::mt19937_64 rng_;
};

TEST(DumpJson, RandomDocumentsGiveTheBytesAndExceptionsOfDump) {
  Generator gen(20240607);
  int same_text = 0;
  int same_error = 0;
  for (int i = 0; i < 10000; ++i) {
    const json doc = gen.Document();
    const Outcome expected = ByNlohmann(doc);
    ASSERT_EQ(ByDumpJson(doc), expected) << "document " << i;
    ASSERT_EQ(ByJsonOutValue(doc), expected) << "document " << i;
    ++(expected.error_id ? same_error : same_text);
  }
  // Both branches must have been exercised for the test to mean anything.
  EXPECT_GT(same_text, 7000) << same_error;
  EXPECT_GT(same_error, 300) << same_text;
}

TEST(DumpJson, RandomStringsAsValuesAndKeys) {
  Generator gen(7);
  for (int i = 0; i < 20000; ++i) {
    const std::string s = gen.String();
    ASSERT_EQ(ByDumpJson(json(s)), ByNlohmann(json(s))) << Printable(s);
    const json keyed = {{s, 1}};
    ASSERT_EQ(ByDumpJson(keyed), ByNlohmann(keyed)) << Printable(s);
  }
}

// ---------------------------------------------------------------------------------------------
// Cases by name

TEST(DumpJson, EveryEscapeAsNlohmannWritesIt) {
  EXPECT_EQ(core::DumpJson("\b\t\n\f\r\"\\"), R"("\b\t\n\f\r\"\\")");
  EXPECT_EQ(core::DumpJson(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");  // lower-case hex
  EXPECT_EQ(core::DumpJson("\x7f/"), "\"\x7f/\"");                                        // DEL and '/' unescaped
  for (int c = 0; c < 0x80; ++c) {
    const std::string s = "ab" + std::string(1, static_cast<char>(c)) + "cdefghijkl";
    EXPECT_EQ(core::DumpJson(json(s)), json(s).dump()) << c;
    const json keyed = {{s, s}};
    EXPECT_EQ(core::DumpJson(keyed), keyed.dump()) << c;
  }
}

// The escaper stores 8-16 byte strings as two overlapping words when neither needs work.
// Every length around that path, with a byte that needs work (or none) at every position:
// quote, backslash, control character, DEL, a 2-byte UTF-8 sequence, an invalid byte.
TEST(DumpJson, EveryLengthAndPositionAroundTheTwoWordPath) {
  const std::string specials[] = {"\"", "\\", std::string("\x01"), "\x7f", "\xc3\xab", "\xff", ""};
  for (size_t len = 0; len <= 20; ++len) {
    for (size_t at = 0; at <= len; ++at) {
      for (const std::string& special : specials) {
        std::string s(len, 'a');
        for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>('a' + i % 26);
        s.insert(at, special);
        ASSERT_EQ(ByDumpJson(json(s)), ByNlohmann(json(s))) << Printable(s);
        ASSERT_EQ(Capture([&] { return core::JsonOut().String(s).str(); }), ByNlohmann(json(s))) << Printable(s);
      }
    }
  }
}

TEST(DumpJson, ValidUtf8PassesThroughUnchanged) {
  for (std::string s : {"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
                        "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "Zo\xc3\xab \xe2\x82\xac \xf0\x9f\x98\x80 ok"}) {
    EXPECT_EQ(core::DumpJson(json(s)), "\"" + s + "\"") << Printable(s);
    EXPECT_EQ(core::DumpJson(json(s)), json(s).dump()) << Printable(s);
  }
}

TEST(DumpJson, InvalidUtf8ThrowsWhatDumpThrows) {
  const std::string cases[] = {
      "\xc3",                  // truncated 2-byte sequence at the end
      "ab\xe2\x82",            // truncated 3-byte sequence at the end
      "\xe2\x82z",             // truncated, followed by ASCII
      "\xf0\x9f\x98",          // truncated 4-byte sequence
      "\xc0\xaf",              // overlong '/'
      "\xc1\xbf",              // overlong
      "\xe0\x80\xaf",          // overlong 3-byte
      "\xf0\x80\x80\xaf",      // overlong 4-byte
      "\x80",                  // lone continuation byte
      "abc\xbf",               // lone continuation after ASCII
      "\xed\xa0\x80",          // UTF-16 surrogate U+D800 encoded in UTF-8
      "\xed\xbf\xbf",          // surrogate U+DFFF
      "\xf4\x90\x80\x80",      // beyond U+10FFFF
      "\xf5\x80\x80\x80",      // lead byte never valid
      "\xff",                  // never valid
      "\xc3\x22",              // a quote where a continuation byte must be
      "ok \xc3\xab then \xe9", // valid, then invalid
  };
  for (const std::string& s : cases) {
    const Outcome expected = ByNlohmann(json(s));
    ASSERT_EQ(expected.error_id, 316) << Printable(s);
    EXPECT_EQ(ByDumpJson(json(s)), expected) << Printable(s);
    EXPECT_EQ(ByDumpJson(json{{"k", json::array({1, s})}}), ByNlohmann(json{{"k", json::array({1, s})}})) << Printable(s);
    EXPECT_EQ(ByDumpJson(json{{s, 1}}), ByNlohmann(json{{s, 1}})) << Printable(s);  // as a key
    // The text writer's own strings throw the same, and a failed string leaves no partial bytes.
    EXPECT_EQ(Capture([&] { return core::JsonOut().BeginObject().KeyText(s).Int(1).EndObject().str(); }), expected);
    std::string out = "[1,";
    EXPECT_EQ(Capture([&] { core::AppendJsonString(out, s); return out; }), expected) << Printable(s);
    EXPECT_EQ(out, "[1,");
  }
}

// Every 2-byte string from a non-ASCII lead, and every 3- and 4-byte lead against the bytes where
// UTF-8's rules change (continuation range ends, the E0/ED/F0/F4 special ranges, ASCII, '"').
TEST(DumpJson, Utf8BoundariesMatchNlohmannsDecoder) {
  const unsigned char edges[] = {0x00, 0x22, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xf0};
  int checked = 0;
  auto check = [&](std::initializer_list<int> bytes) {
    std::string s;
    for (int b : bytes) s += static_cast<char>(b);
    ASSERT_EQ(ByDumpJson(json(s)), ByNlohmann(json(s))) << Printable(s);
    ++checked;
  };
  for (int a = 0x80; a < 0x100; ++a) {
    for (int b = 0; b < 0x100; ++b) check({a, b});
    if (a < 0xE0) continue;
    for (int b : edges)
      for (int c : edges) {
        check({a, b, c});
        if (a < 0xF0) continue;
        for (int d : edges) check({a, b, c, d});
      }
  }
  EXPECT_EQ(checked, 128 * 256 + 32 * 13 * 13 + 16 * 13 * 13 * 13);
}

// The word-at-a-time scan: every kind of byte at every position of strings around the 8-byte
// word boundaries, and each as the last byte (the padded tail).
TEST(DumpJson, SpecialBytesAtEveryPositionAroundWordBoundaries) {
  const std::string specials[] = {std::string(1, '\0'), "\x1f", "\"", "\\", "\n", "\x7f", "\xc3\xa9",
                                  "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\x80", "\xff"};
  for (size_t len = 0; len <= 25; ++len)
    for (size_t at = 0; at <= len; ++at)
      for (const std::string& special : specials) {
        std::string s(len, 'x');
        s.insert(at, special);
        const Outcome expected = ByNlohmann(json(s));
        ASSERT_EQ(ByDumpJson(json(s)), expected) << Printable(s);
        std::string out = "[";
        const Outcome appended = Capture([&] { core::AppendJsonString(out, s); return out.substr(1); });
        ASSERT_EQ(appended, expected) << Printable(s);
        ASSERT_EQ(out, expected.error_id ? "[" : "[" + expected.text);
      }
}

TEST(DumpJson, LargeDocumentsAndAppendingToLongText) {
  json big = json::array();
  for (int i = 0; i < 3000; ++i) big.push_back({{"i", i}, {"s", "line\t" + std::to_string(i) + " \xc3\xa9\"q\""}});
  big.push_back(std::string(100000, 'a') + "\x01");
  EXPECT_EQ(core::DumpJson(big), big.dump());
  // JsonOut::Value after a long prefix, twice (the writer grows from where it is).
  core::JsonOut w;
  w.BeginArray();
  for (int i = 0; i < 2000; ++i) w.String("padding padding padding");
  w.Value(big).Value(big).EndArray();
  json expected = json::array();
  for (int i = 0; i < 2000; ++i) expected.push_back("padding padding padding");
  expected.push_back(big);
  expected.push_back(big);
  EXPECT_EQ(w.str(), expected.dump());
  // A failing document leaves the text it was appended to as it was.
  std::string out = "prefix";
  const json bad = {{"a", json::array({1, 2, "fine"})}, {"b", "bad \xed\xa0\x80"}};
  EXPECT_EQ(Capture([&] { core::AppendJson(out, bad); return out; }), ByNlohmann(bad));
  EXPECT_EQ(out, "prefix");
}

TEST(DumpJson, NumbersAndScalars) {
  for (const json& v : {json(nullptr), json(true), json(false), json(0), json(-0.0), json(0.1), json(1.0), json(1e308),
                        json(-1e-308), json(std::numeric_limits<double>::quiet_NaN()),
                        json(std::numeric_limits<double>::infinity()), json(std::numeric_limits<std::int64_t>::min()),
                        json(std::numeric_limits<std::int64_t>::max()), json(std::numeric_limits<std::uint64_t>::max()),
                        json(42u), json(-7), json::array(), json::object(), json::array({json::array(), json::object()}),
                        json::binary({1, 2, 255}), json::binary({}, 7)}) {
    EXPECT_EQ(core::DumpJson(v), v.dump()) << v.dump();
  }
  EXPECT_EQ(core::DumpJson(json(1.0)), "1.0");
  EXPECT_EQ(core::DumpJson(json(-0.0)), "-0.0");
  EXPECT_EQ(core::DumpJson(json(std::nan(""))), "null");
}

// A request's duration in the log (durationMs): the bytes dump() writes for the double rounded to
// hundredths, for every value of the first ten seconds, both signs, and random ones up to the bound.
TEST(AppendJsonHundredths, GivesTheBytesDumpGivesForTheDoubleOfTwoPlaces) {
  auto expect_same = [](std::int64_t h) {
    std::string out = "x";
    core::AppendJsonHundredths(out, h);
    ASSERT_EQ(out, "x" + json(static_cast<double>(h) / 100).dump()) << h;
  };
  for (std::int64_t h = -1000; h <= 1'000'000; ++h) expect_same(h);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const int digits = static_cast<int>(rng() % 16);  // every magnitude below 10^15
    std::int64_t bound = 1;
    for (int d = 0; d < digits; ++d) bound *= 10;
    const auto h = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(bound));
    expect_same(rng() % 2 ? h : -h);
  }
  // Past the bound, dump()'s own text (it may choose an exponent there).
  for (const std::int64_t h : {std::int64_t{999'999'999'999'999}, std::int64_t{1'000'000'000'000'000},
                               std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min() + 1})
    expect_same(h);
  std::string out;
  core::AppendJsonHundredths(out, 1234);
  EXPECT_EQ(out, "12.34");
}

TEST(DumpJson, ObjectsInNlohmannsKeyOrder) {
  const json doc = json::parse(R"({"b":1,"a":{"z":[],"B":null,"\u00e9":2,"":3},"A":[{"y":1,"x":2}]})");
  EXPECT_EQ(core::DumpJson(doc), doc.dump());
  EXPECT_EQ(core::DumpJson(doc), R"({"A":[{"x":2,"y":1}],"a":{"":3,"B":null,"z":[],"é":2},"b":1})");
}

TEST(JsonOutValue, WritesInPlaceWithTheRightCommas) {
  const json record = {{"id", "x\"1"}, {"tags", {"a", "b"}}, {"n", 3}};
  core::JsonOut w;
  w.BeginObject()
      .Key("first")
      .Value(record)
      .Key("list")
      .BeginArray()
      .Value(1)
      .Value(json::array())
      .String("s")
      .Value(record)
      .Value(json::object())
      .EndArray()
      .Key("scalar")
      .Value(nullptr)
      .Key("last")
      .Int(5)
      .EndObject();
  const json same = {{"first", record},
                     {"list", json::array({1, json::array(), "s", record, json::object()})},
                     {"scalar", nullptr},
                     {"last", 5}};
  // JsonOut writes keys in the order given; nlohmann sorts them: compare as parsed documents
  // and pin the exact text.
  EXPECT_EQ(json::parse(w.str()), same);
  EXPECT_EQ(w.str(),
            R"({"first":{"id":"x\"1","n":3,"tags":["a","b"]},"list":[1,[],"s",{"id":"x\"1","n":3,"tags":["a","b"]},{}],)"
            R"("scalar":null,"last":5})");
  core::JsonOut top;
  EXPECT_EQ(top.Value(record).str(), record.dump());  // a value at the top level, no separator
  core::JsonOut arr;
  EXPECT_EQ(arr.BeginArray().Value(record).Value(record).EndArray().str(), json::array({record, record}).dump());
}

}  // namespace
}  // namespace emsim
