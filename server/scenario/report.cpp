#include "scenario/report.hpp"

#include <cstdio>
#include <sstream>

namespace emsim::scenario {

namespace {

const char* OutcomeWord(StepOutcome o) {
  switch (o) {
    case StepOutcome::kPassed: return "passed";
    case StepOutcome::kFailed: return "failed";
    case StepOutcome::kSkipped: return "skipped";
  }
  return "?";
}

// A JSON value pretty-printed and indented, cut after `max_lines` lines so one huge response
// does not bury the rest of the report.
std::string Indented(const json& value, const std::string& indent, size_t max_lines = 40) {
  const std::string text = value.is_string() ? value.get<std::string>()
                                             : value.dump(2, ' ', false, json::error_handler_t::replace);
  std::istringstream in(text);
  std::string line, out;
  size_t n = 0, total = 0;
  while (std::getline(in, line)) {
    if (n < max_lines) {
      out += indent + line + "\n";
      ++n;
    }
    ++total;
  }
  if (total > n) out += indent + "... (" + std::to_string(total - n) + " more lines)\n";
  return out;
}

std::string Xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 forbids most control characters.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += '?';
        else out += c;
    }
  }
  return out;
}

std::string StepTitle(const StepReport& s) {
  std::string t = "step " + s.label;
  if (!s.name.empty()) t += " " + s.name;
  return t;
}

std::string FailureDetail(const StepReport& s, const std::string& indent) {
  std::string out;
  if (!s.problems.empty()) {
    out += indent + "expected vs actual:\n";
    for (const auto& p : s.problems) out += indent + "  " + p + "\n";
  }
  if (s.request.is_object()) {
    std::string line = indent + "request: " + s.request.value("method", "") + " " + s.request.value("path", "");
    if (s.request.contains("query") && !s.request["query"].empty()) line += " query " + s.request["query"].dump();
    out += line + "\n";
    if (s.request.contains("headers") && !s.request["headers"].empty())
      out += indent + "  headers " + s.request["headers"].dump() + "\n";
    if (s.request.contains("body")) out += Indented(s.request["body"], indent + "  ", 20);
  }
  if (s.response.is_object() && s.response.contains("status")) {
    out += indent + "response: " + s.response["status"].dump() + "\n";
    if (s.response.contains("body")) out += Indented(s.response["body"], indent + "  ");
  }
  return out;
}

}  // namespace

std::string FormatReportText(const ScenarioReport& r, bool failures_only) {
  std::string out = "scenario: " + r.name + " (" + r.file + ")\n";
  if (!r.setupError.empty()) out += "  SETUP FAILED: " + r.setupError + "\n";
  for (const auto& s : r.steps) {
    if (failures_only && s.outcome != StepOutcome::kFailed) continue;
    const char* mark = s.outcome == StepOutcome::kPassed ? "  ok   " : s.outcome == StepOutcome::kFailed ? "  FAIL " : "  skip ";
    std::string line = std::string(mark) + s.label + " ";
    if (!s.name.empty()) line += s.name + ": ";
    line += s.summary;
    line += "  (line " + std::to_string(s.line) + ")";
    out += line + "\n";
    if (s.outcome == StepOutcome::kFailed) out += FailureDetail(s, "         ");
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2fs", r.seconds);
  out += std::string(r.ok() ? "PASSED" : "FAILED") + ": " + r.name + ": " + std::to_string(r.passed) + " passed, " +
         std::to_string(r.failed) + " failed, " + std::to_string(r.skipped) + " skipped (" + secs + ")\n";
  return out;
}

json ReportToJson(const ScenarioReport& r) {
  json steps = json::array();
  for (const auto& s : r.steps) {
    json j = {{"step", s.label}, {"line", s.line},         {"kind", s.kind},
              {"name", s.name},  {"summary", s.summary},   {"outcome", OutcomeWord(s.outcome)}};
    if (s.outcome == StepOutcome::kFailed) {
      j["problems"] = s.problems;
      if (s.request.is_object()) j["request"] = s.request;
      if (s.response.is_object()) j["response"] = s.response;
    }
    steps.push_back(std::move(j));
  }
  json out = {{"file", r.file},         {"name", r.name},       {"description", r.description},
              {"passed", r.ok()},        {"counts", {{"passed", r.passed}, {"failed", r.failed}, {"skipped", r.skipped}}},
              {"seconds", r.seconds},    {"steps", std::move(steps)}};
  if (!r.setupError.empty()) out["setupError"] = r.setupError;
  // The readable form too, so a curl user can print it as is.
  out["text"] = FormatReportText(r);
  return out;
}

std::string FormatJUnit(const std::vector<ScenarioReport>& reports) {
  int tests = 0, failures = 0, skipped = 0;
  for (const auto& r : reports) {
    tests += static_cast<int>(r.steps.size()) + (r.setupError.empty() ? 0 : 1);
    failures += r.failed + (r.setupError.empty() ? 0 : 1);
    skipped += r.skipped;
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"emsim scenarios\" tests=\"" << tests << "\" failures=\"" << failures << "\" skipped=\""
    << skipped << "\">\n";
  for (const auto& r : reports) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f", r.seconds);
    x << "  <testsuite name=\"" << Xml(r.name) << "\" file=\"" << Xml(r.file) << "\" tests=\""
      << r.steps.size() + (r.setupError.empty() ? 0 : 1) << "\" failures=\"" << r.failed + (r.setupError.empty() ? 0 : 1)
      << "\" skipped=\"" << r.skipped << "\" time=\"" << secs << "\">\n";
    if (!r.setupError.empty())
      x << "    <testcase name=\"setup\" classname=\"" << Xml(r.file) << "\"><failure message=\""
        << Xml(r.setupError) << "\"/></testcase>\n";
    for (const auto& s : r.steps) {
      const std::string name = s.caseName.empty() ? StepTitle(s) : s.caseName;
      x << "    <testcase name=\"" << Xml(name) << "\" classname=\"" << Xml(r.file)
        << "\" file=\"" << Xml(r.file) << "\" line=\"" << s.line << "\"";
      if (s.outcome == StepOutcome::kPassed) {
        x << "/>\n";
      } else if (s.outcome == StepOutcome::kSkipped) {
        x << "><skipped message=\"an earlier step failed\"/></testcase>\n";
      } else {
        x << "><failure message=\"" << Xml(s.problems.empty() ? std::string("failed") : s.problems.front()) << "\">"
          << Xml(FailureDetail(s, "")) << "</failure></testcase>\n";
      }
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

}  // namespace emsim::scenario
