#pragma once
// What a scenario run found, step by step, and three ways to print it: readable text for a
// terminal, JSON for POST /_sim/scenarios/run, JUnit XML for CI (`--junit FILE`).
#include <string>
#include <vector>

#include "core/json.hpp"

namespace emsim::scenario {

enum class StepOutcome { kPassed, kFailed, kSkipped };

struct StepReport {
  std::string label;    // "3", "7.2 [i=5]"
  int line = 0;
  std::string kind;     // "request", "advance", ...
  std::string name;     // the step's `name:`, if any
  std::string summary;  // "POST /v1/domain/buy-domain as alice -> 200"
  // The JUnit test-case name: the top-level step's number and the step as written in the file,
  // before ${variables} are filled in ("step 4 buy: POST /v1/domains/${dom.id} as alice"). CI
  // tools track a test by its name, so it holds no id, time or status of the run.
  std::string caseName;
  StepOutcome outcome = StepOutcome::kSkipped;
  std::vector<std::string> problems;  // one line each: mismatches, schema issues, save failures
  json request;         // failed steps: {method, path, query, headers, body}
  json response;        // failed steps: {status, body}
};

struct ScenarioReport {
  std::string file, name, description;
  std::string setupError;  // preparing the run failed: no step ran
  std::vector<StepReport> steps;
  int passed = 0, failed = 0, skipped = 0;
  double seconds = 0;
  bool ok() const { return setupError.empty() && failed == 0; }
};

// One line per step; for a failure, the request, the response and the expected-vs-actual lines.
// `failures_only`: passing and skipped steps are left out (the summary line stays).
std::string FormatReportText(const ScenarioReport& report, bool failures_only = false);
json ReportToJson(const ScenarioReport& report);
// One <testsuite> per scenario, one <testcase> per top-level step, named by StepReport::caseName.
std::string FormatJUnit(const std::vector<ScenarioReport>& reports);

}  // namespace emsim::scenario
