// sim/yaml_doc.hpp reads fixtures with libyaml (issue 7: start-up) but must mean exactly what
// yaml-cpp's YAML::Load meant: the same tree, the same nulls, booleans and integers, the same
// lines, and yaml-cpp's own message for text that is not YAML. Checked against yaml-cpp itself.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "cli/app.hpp"
#include "fixture/fixture_gen.hpp"
#include "fixture/yaml_doc.hpp"

namespace emsim {
namespace {

using fixture::yaml::Document;

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compares the whole tree; answers the first difference ("" when none).
std::string Diff(const fixture::yaml::Node& ours, const YAML::Node& theirs, const std::string& at) {
  const auto where = at.empty() ? std::string("<root>") : at;
  switch (theirs.Type()) {
    case YAML::NodeType::Null:
      return ours.IsNull() ? "" : where + ": null in yaml-cpp";
    case YAML::NodeType::Scalar:
      if (!ours.IsScalar()) return where + ": scalar in yaml-cpp";
      if (ours.Scalar() != theirs.Scalar()) return where + ": '" + ours.Scalar() + "' vs '" + theirs.Scalar() + "'";
      break;
    case YAML::NodeType::Sequence: {
      if (!ours.IsSequence() || ours.size() != theirs.size()) return where + ": a sequence of another size in yaml-cpp";
      for (size_t i = 0; i < theirs.size(); ++i)
        if (auto d = Diff(ours[i], theirs[i], at + "[" + std::to_string(i) + "]"); !d.empty()) return d;
      break;
    }
    case YAML::NodeType::Map: {
      if (!ours.IsMap() || ours.size() != theirs.size()) return where + ": a map of another size in yaml-cpp";
      size_t i = 0;
      for (const auto& kv : theirs) {
        if (auto d = Diff(ours.Key(i), kv.first, at + "{key " + std::to_string(i) + "}"); !d.empty()) return d;
        const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : std::to_string(i);
        if (auto d = Diff(ours.Value(i), kv.second, at + "." + name); !d.empty()) return d;
        ++i;
      }
      break;
    }
    default:
      return where + ": undefined in yaml-cpp";
  }
  // Lines are what fixture errors cite (a null has no text of its own to point at).
  if (ours.Line() != theirs.Mark().line)
    return where + ": line " + std::to_string(ours.Line()) + " vs " + std::to_string(theirs.Mark().line);
  return "";
}

std::string DiffText(const std::string& text, bool expect_libyaml = true) {
  const Document doc = Document::Parse(text);
  if (expect_libyaml && !doc.ParsedByLibyaml()) return "fell back to yaml-cpp";
  return Diff(doc.Root(), YAML::Load(text), "");
}

TEST(YamlDoc, EveryFixtureAndScenarioReadsAsYamlCppReadsIt) {
  const std::filesystem::path root = std::filesystem::path(cli::DefaultFixturePath()).parent_path().parent_path();
  int files = 0;
  for (const char* dir : {"fixtures", "scenarios", "scenarios/tests"}) {
    if (!std::filesystem::exists(root / dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      if (entry.path().extension() != ".yaml") continue;
      ++files;
      EXPECT_EQ(DiffText(ReadFile(entry.path())), "") << entry.path();
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
    EXPECT_EQ(DiffText(text.str()), "") << "expand " << expand;
  }
}

TEST(YamlDoc, TrickyYamlReadsAsYamlCppReadsIt) {
  const char* cases[] = {
      "a: 1\nb: ~\nc: null\nd: Null\ne: NULL\nf:\ng: ''\nh: 'null'\ni: \"~\"\nj: !!str null\nk: nil\n",
      "list: [a, 'b', \"c\", ~, null]\n",
      "map: { x: 1, y: , 'z': \"q\" }\n",
      "- a\n- - b\n  - c\n-\n- { k: v }\n",
      "text: |\n  line one\n  line two\nfolded: >\n  one\n  two\n\nkeep: |+\n  x\n\nstrip: |-\n  y\n",
      "quoted: \"tab\\tnew\\nline \\u00e9 \\\" end\"\nsingle: 'it''s'\nplain: a b  c # comment\n",
      "anchor: &a { k: v, n: [1, 2] }\nalias: *a\nscalar: &s hello\nagain: *s\n",
      "# only a comment\nkey: value # trailing\n\n\n  # indented comment\nother: 2\n",
      "first: 1\n---\nsecond: 2\n",
      "---\nstarted: yes\n...\n",
      "accounts:\n- id: a\n  workspaces:\n  - id: w\n",
      "crlf: 1\r\nnext: two\r\n",
      "unicode: \"Zoë — ✓\"\nkey with spaces: v\n\"quoted key\": w\n? complex\n: value\n",
      "dup: 1\ndup: 2\n",
      "",
      "just a scalar\n",
      "nested:\n  deeper:\n    deepest: [ { a: [ { b: c } ] } ]\n",
      "multi: this is\n  a plain scalar\n  over lines\n",
  };
  for (const char* text : cases) EXPECT_EQ(DiffText(text), "") << text;
}

TEST(YamlDoc, IntegersAndBooleansReadAsYamlCppReadsThem) {
  for (const char* s : {"0", "-0", "7", "-7", "007", "0x1F", "0X1f", "017", "08", "+5", "5 ", " 5", "5x", "1e3", "1.0",
                        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                        "123456789012345678", "1234567890123456789", "", "-", "+", "0x", "1_000", "٣"}) {
    const Document doc = Document::Parse(std::string("v: \"") + s + "\"\n");
    const YAML::Node theirs = YAML::Load(std::string("v: \"") + s + "\"\n")["v"];
    std::optional<std::int64_t> expected;
    try {
      expected = theirs.as<std::int64_t>();
    } catch (const YAML::Exception&) {
    }
    EXPECT_EQ(doc.Root()["v"].AsInt(), expected) << "'" << s << "'";
  }
  for (const char* s : {"y", "Y", "n", "N", "yes", "Yes", "YES", "yEs", "no", "NO", "true", "True", "TRUE", "tRUE",
                        "TRue", "false", "False", "on", "On", "ON", "off", "OFF", "1", "0", "", "yes ", "t"}) {
    const Document doc = Document::Parse(std::string("v: \"") + s + "\"\n");
    const YAML::Node theirs = YAML::Load(std::string("v: \"") + s + "\"\n")["v"];
    std::optional<bool> expected;
    try {
      expected = theirs.as<bool>();
    } catch (const YAML::Exception&) {
    }
    EXPECT_EQ(doc.Root()["v"].AsBool(), expected) << "'" << s << "'";
  }
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

TEST(YamlDoc, TextLibyamlRefusesGoesToYamlCpp) {
  // Not YAML for either: yaml-cpp's message and line (0-based), as fixture errors always showed.
  try {
    Document::Parse("accounts: [\n");
    FAIL() << "accepted an unclosed flow sequence";
  } catch (const fixture::yaml::ParseError& e) {
    EXPECT_EQ(std::string(e.what()), "end of sequence flow not found");
    EXPECT_EQ(e.line, 1);
  }
  EXPECT_THROW(Document::Parse("a: *nowhere\n"), fixture::yaml::ParseError);
  // An alias before its anchor is complete (a cycle): not read by libyaml, yaml-cpp decides.
  try {
    const Document doc = Document::Parse("a: &x [*x]\n");
    EXPECT_FALSE(doc.ParsedByLibyaml());
  } catch (const fixture::yaml::ParseError&) {
  }
}

}  // namespace
}  // namespace emsim
