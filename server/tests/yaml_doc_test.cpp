// fixture/yaml_doc.hpp is emsim's one YAML reader (fixtures and scenarios, libyaml underneath). It
// reads scalars as fixtures were always read (yaml-cpp's conversions, which they were written
// against): the nulls, booleans and integers below are those, spelled out.
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "fixture/fixture_gen.hpp"
#include "fixture/yaml_doc.hpp"

namespace emsim {
namespace {

using fixture::yaml::Document;
using fixture::yaml::Node;

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The tree in one line: ~ for null, bare scalars as they are, quoted and block ones in "",
// [a, b] and {k: v}.
std::string Dump(const Node& n) {
  if (n.IsNull()) return "~";
  if (n.IsScalar()) return n.IsPlainScalar() ? n.Scalar() : "\"" + n.Scalar() + "\"";
  std::string out = n.IsSequence() ? "[" : "{";
  for (size_t i = 0; i < n.size(); ++i) {
    if (i) out += ", ";
    out += n.IsSequence() ? Dump(n[i]) : Dump(n.Key(i)) + ": " + Dump(n.Value(i));
  }
  return out + (n.IsSequence() ? "]" : "}");
}

std::string DumpText(const std::string& text) { return Dump(Document::Parse(text).Root()); }

TEST(YamlDoc, EveryFixtureAndScenarioReads) {
  const std::filesystem::path root = std::filesystem::path(cli::DefaultFixturePath()).parent_path().parent_path();
  int files = 0;
  for (const char* dir : {"fixtures", "scenarios", "scenarios/tests"}) {
    if (!std::filesystem::exists(root / dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      if (entry.path().extension() != ".yaml") continue;
      ++files;
      const std::string text = ReadFile(entry.path());
      // Some files of scenarios/tests are broken on purpose, but none is broken YAML.
      EXPECT_NO_THROW(EXPECT_TRUE(Document::Parse(text).Root().IsMap()) << entry.path()) << entry.path();
    }
  }
  EXPECT_GE(files, 10);
  // Generated fixtures too, spelled out.
  fixture::GenerateOptions o;
  o.mailboxes = 40;
  o.accounts = 2;
  o.emailsPerMailbox = 2;
  for (bool expand : {false, true}) {
    std::ostringstream text;
    fixture::WriteGeneratedFixture(text, o, expand);
    EXPECT_TRUE(Document::Parse(text.str()).Root().IsMap()) << "expand " << expand;
  }
}

TEST(YamlDoc, TrickyYamlReadsAsWritten) {
  EXPECT_EQ(DumpText("a: 1\nb: ~\nc: null\nd: Null\ne: NULL\nf:\ng: ''\nh: 'null'\ni: \"~\"\nk: nil\n"),
            "{a: 1, b: ~, c: ~, d: ~, e: ~, f: ~, g: \"\", h: \"null\", i: \"~\", k: nil}");
  EXPECT_EQ(DumpText("list: [a, 'b', \"c\", ~, null]\n"), "{list: [a, \"b\", \"c\", ~, ~]}");
  EXPECT_EQ(DumpText("map: { x: 1, y: , 'z': \"q\" }\n"), "{map: {x: 1, y: ~, \"z\": \"q\"}}");
  EXPECT_EQ(DumpText("- a\n- - b\n  - c\n-\n- { k: v }\n"), "[a, [b, c], ~, {k: v}]");
  EXPECT_EQ(DumpText("text: |\n  line one\n  line two\nfolded: >\n  one\n  two\n\nkeep: |+\n  x\n\nstrip: |-\n  y\n"),
            "{text: \"line one\nline two\n\", folded: \"one two\n\", keep: \"x\n\n\", strip: \"y\"}");
  EXPECT_EQ(DumpText("quoted: \"tab\\tnew \\u00e9 \\\" end\"\nsingle: 'it''s'\nplain: a b  c # comment\n"),
            "{quoted: \"tab\tnew \u00e9 \" end\", single: \"it's\", plain: a b  c}");
  EXPECT_EQ(DumpText("anchor: &a { k: v, n: [1, 2] }\nalias: *a\nscalar: &s hello\nagain: *s\n"),
            "{anchor: {k: v, n: [1, 2]}, alias: {k: v, n: [1, 2]}, scalar: hello, again: hello}");
  EXPECT_EQ(DumpText("# only a comment\nkey: value # trailing\n\n\n  # indented comment\nother: 2\n"),
            "{key: value, other: 2}");
  EXPECT_EQ(DumpText("first: 1\n---\nsecond: 2\n"), "{first: 1}");  // the first document only
  EXPECT_EQ(DumpText("---\nstarted: yes\n...\n"), "{started: yes}");
  EXPECT_EQ(DumpText("crlf: 1\r\nnext: two\r\n"), "{crlf: 1, next: two}");
  EXPECT_EQ(DumpText("key with spaces: v\n? complex\n: value\n"), "{key with spaces: v, complex: value}");
  EXPECT_EQ(DumpText("dup: 1\ndup: 2\n"), "{dup: 1, dup: 2}");  // kept: the scenario parser refuses them by line
  EXPECT_EQ(DumpText(""), "~");
  EXPECT_EQ(DumpText("just a scalar\n"), "just a scalar");
  EXPECT_EQ(DumpText("multi: this is\n  a plain scalar\n  over lines\n"), "{multi: this is a plain scalar over lines}");
  EXPECT_EQ(DumpText("tagged: ! 5\nbare: 5\n"), "{tagged: \"5\", bare: 5}");
  // Lines (0-based) are what errors cite.
  const Document doc = Document::Parse("a: 1\nb:\n  - x\n  - y\nc: { d: 2 }\n");
  EXPECT_EQ(doc.Root().Line(), 0);
  EXPECT_EQ(doc.Root()["b"].Line(), 2);
  EXPECT_EQ(doc.Root()["b"][1].Line(), 3);
  EXPECT_EQ(doc.Root()["c"]["d"].Line(), 4);
  EXPECT_EQ(doc.Root().Key(2).Line(), 4);
}

TEST(YamlDoc, IntegersAndBooleansReadAsFixturesAlwaysRead) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
  const std::pair<const char*, std::optional<std::int64_t>> ints[] = {
      {"0", 0}, {"-0", 0}, {"7", 7}, {"-7", -7}, {"007", 7}, {"0x1F", 31}, {"0X1f", 31}, {"017", 15}, {"08", {}},
      {"+5", 5}, {"5 ", 5}, {" 5", {}}, {"5x", {}}, {"1e3", {}}, {"1.0", {}}, {"9223372036854775807", max},
      {"9223372036854775808", {}}, {"-9223372036854775808", min}, {"-9223372036854775809", {}},
      {"123456789012345678", 123456789012345678}, {"1234567890123456789", 1234567890123456789}, {"", {}}, {"-", {}},
      {"+", {}}, {"1_000", {}}};
  for (const auto& [text, expected] : ints)
    EXPECT_EQ(Document::Parse(std::string("v: \"") + text + "\"\n").Root()["v"].AsInt(), expected) << "'" << text << "'";
  const std::pair<const char*, std::optional<bool>> bools[] = {
      {"y", true}, {"Y", true}, {"n", false}, {"N", false}, {"yes", true}, {"Yes", true}, {"YES", true}, {"yEs", {}},
      {"no", false}, {"NO", false}, {"true", true}, {"True", true}, {"TRUE", true}, {"tRUE", {}}, {"TRue", {}},
      {"false", false}, {"False", false}, {"on", true}, {"On", true}, {"ON", true}, {"off", false}, {"OFF", false},
      {"1", {}}, {"0", {}}, {"", {}}, {"yes ", {}}, {"t", {}}};
  for (const auto& [text, expected] : bools)
    EXPECT_EQ(Document::Parse(std::string("v: \"") + text + "\"\n").Root()["v"].AsBool(), expected) << "'" << text << "'";
  // Not scalars: no number, no boolean.
  const Document doc = Document::Parse("a: [1]\nb: ~\n");
  EXPECT_EQ(doc.Root()["a"].AsInt(), std::nullopt);
  EXPECT_EQ(doc.Root()["b"].AsBool(), std::nullopt);
  EXPECT_EQ(doc.Root()["missing"].AsInt(), std::nullopt);
}

TEST(YamlDoc, LookupsOnTheWrongKindAreUndefined) {
  const Document doc = Document::Parse("map: { a: 1 }\nlist: [x, y]\nscalar: s\n");
  const auto root = doc.Root();
  EXPECT_FALSE(root["nope"].IsDefined());
  EXPECT_EQ(root["nope"].Line(), -1);
  EXPECT_FALSE(root["nope"]["deeper"].IsDefined());
  EXPECT_FALSE(root["list"]["a"].IsDefined());
  EXPECT_FALSE(root["list"][2].IsDefined());
  EXPECT_EQ(root["list"][1].Scalar(), "y");
  EXPECT_FALSE(root["scalar"]["a"].IsDefined());
  EXPECT_FALSE(root["map"][0].IsDefined());
  EXPECT_EQ(root["map"].size(), 1u);
  EXPECT_EQ(root["map"].Key(0).Scalar(), "a");
  EXPECT_FALSE(root["map"].Key(1).IsDefined());
  EXPECT_EQ(root["scalar"].size(), 0u);
  EXPECT_EQ(root["map"].Scalar(), "");
}

TEST(YamlDoc, TextThatIsNotYamlIsAnErrorWithItsLine) {
  try {
    Document::Parse("accounts: [\n");
    FAIL() << "accepted an unclosed flow sequence";
  } catch (const fixture::yaml::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("flow"), std::string::npos) << e.what();
    EXPECT_EQ(e.line, 1);
  }
  EXPECT_THROW(Document::Parse("a: *nowhere\n"), fixture::yaml::ParseError);
  // An alias inside its own anchor's node is a cycle: refused.
  EXPECT_THROW(Document::Parse("a: &x [*x]\n"), fixture::yaml::ParseError);
  EXPECT_THROW(Document::Parse("a: b: c\n"), fixture::yaml::ParseError);
}

TEST(YamlDoc, NestingIsBoundedWithoutRecursion) {
  const size_t limit = Document::kMaxDepth;
  EXPECT_NO_THROW(Document::Parse(std::string(limit, '[') + std::string(limit, ']')));
  try {
    Document::Parse(std::string(limit + 1, '[') + std::string(limit + 1, ']'));
    FAIL() << "a document deeper than the limit was read";
  } catch (const fixture::yaml::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("nests deeper"), std::string::npos) << e.what();
  }
  // Far deeper still: refused as soon as the limit is passed, not read to the end.
  EXPECT_THROW(Document::Parse(std::string(1'000'000, '[')), fixture::yaml::ParseError);
}

}  // namespace
}  // namespace emsim
