#pragma once
// Reads a scenario file (YAML, scenarios/README.md) into a Scenario. Everything that can be
// checked without running is checked here, so a typo stops the run before its first step:
// unknown keys, malformed steps, bad durations and timestamps, unknown matchers, and
// ${variables} used before any step defines them. Errors read "file:line: what was expected".
#include <stdexcept>
#include <string>

#include "scenario/ast.hpp"

namespace emsim::scenario {

struct ScenarioParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `fixtures:` paths are resolved against the scenario file's folder.
Scenario ParseScenarioFile(const std::string& path);
// `name` is used in messages; relative `fixtures:` paths resolve against `base_dir`.
Scenario ParseScenarioText(const std::string& yaml_text, const std::string& name, const std::string& base_dir);

}  // namespace emsim::scenario
