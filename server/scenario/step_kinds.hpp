#pragma once
// The step kinds of the scenario language, one row each (internal to scenario/). Adding a kind:
//   1. a value in StepKind (ast.hpp);
//   2. its row in StepKinds() (step_kinds.cpp): its YAML key, the keys allowed beside it, a parse
//      function that lowers it to the one call it makes (ScenarioCall: method, path, body) plus
//      what to check, and its line for the report.
// The runner needs nothing more for a kind that makes one call and checks it with `expect:` and
// `save:`; parse.cpp reads `name`, `expect` and `save` for every kind. Only a kind that checks
// something beyond the response (the expect_* listings) or runs no call (set, repeat) has code in
// run.cpp.
#include <string>
#include <vector>

#include "scenario/reader.hpp"

namespace emsim::scenario {

struct StepKindSpec {
  StepKind kind;
  const char* key;                    // the YAML key that names the step ("request": GET:, POST:, ...)
  std::vector<std::string> siblings;  // the keys allowed beside it
  // Reads the step's own keys into `st` (st.call.method is set already for a request).
  // `label` is the step's number ("3", "7.2"); `where` is "step <label>", for messages.
  void (*parse)(Reader& r, const yaml::Node& step, ScenarioStep& st, const std::string& label,
                const std::string& where);
  // The report's one-line description of the step, as written (before ${variables} are filled in).
  std::string (*display)(const ScenarioStep& st, const yaml::Node& step);
  bool sendsCall = true;  // false: set and repeat, which the runner does itself
};

const std::vector<StepKindSpec>& StepKinds();
const StepKindSpec& SpecOf(StepKind kind);

// The HTTP methods a request step may name.
const std::vector<std::string>& RequestMethods();

}  // namespace emsim::scenario
