#pragma once
// The scenario parser's reading tools (internal to scenario/): parse.cpp reads the header, the
// parts every step shares (name, expect, save) and picks the step's kind; each kind's own keys
// are read by its row of the table in step_kinds.cpp, through these.
#include <set>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "fixture/yaml_doc.hpp"
#include "scenario/ast.hpp"

namespace emsim::scenario {

namespace yaml = fixture::yaml;

class Reader {
 public:
  Reader(std::string file, std::string base_dir) : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  Scenario Parse(const std::string& text);

  // "file:line: what" as a ScenarioParseError.
  [[noreturn]] void Fail(const yaml::Node& at, const std::string& what) const;
  // Every key of `map` is one of `allowed`, and none repeats.
  void OnlyKeys(const yaml::Node& map, const std::string& where, const std::vector<std::string>& allowed) const;
  std::string ScalarText(const yaml::Node& n, const std::string& what) const;
  bool Bool(const yaml::Node& n, const std::string& what) const;
  // YAML -> JSON (YAML 1.2 core typing of bare scalars; quoted ones stay text), with ${variables}
  // checked against what is defined so far and, when `matchers`, matcher trees checked.
  json ToJson(const yaml::Node& n, bool matchers);
  json Map(const yaml::Node& n, const std::string& what, bool matchers = false);
  json StringMap(const yaml::Node& n, const std::string& what);
  // A scalar whose ${variables} must be defined.
  std::string Text(const yaml::Node& n, const std::string& what);
  std::string VarName(const yaml::Node& n, const std::string& what) const;
  // Every ${name...} in `s` names a variable defined by the header or an earlier step.
  void CheckVars(const yaml::Node& at, const std::string& s) const;
  void Define(const std::string& var) { defined_.insert(var); }
  const std::string& DefaultAs() const { return default_as_; }
  // The steps of a list, labelled prefix + 1, 2, ... (a repeat's inner steps: "3.1", "3.2").
  std::vector<ScenarioStep> Steps(const yaml::Node& seq, const std::string& prefix);

 private:
  ScenarioHeader Header(const yaml::Node& root);
  ScenarioStep Step(const yaml::Node& n, const std::string& label);
  void ParseExpect(const yaml::Node& e, ScenarioStep& st, const std::string& where);
  json Convert(const yaml::Node& n, bool matchers, const std::string& path, size_t depth);

  std::string file_, base_dir_;
  size_t budget_ = 0;   // values Convert may still produce (alias copies included)
  int repeat_depth_ = 0;  // repeats being read, one inside another
  std::string default_as_;
  std::set<std::string> defined_;
};

// [A-Za-z_][A-Za-z0-9_]*
bool IsIdentifier(const std::string& s);
std::string JoinNames(const std::vector<std::string>& items);

}  // namespace emsim::scenario
