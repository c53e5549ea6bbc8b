#include "cli/scenario_command.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/app.hpp"
#include "api/routes.hpp"
#include "app/route.hpp"
#include "app/router.hpp"
#include "api/control/scenarios.hpp"
#include "scenario/parse.hpp"

namespace emsim::cli {

namespace {

constexpr const char* kScenarioUsage = R"(Usage: emsim scenario run FILE... [flags]

Runs each scenario file (scenarios/README.md) and prints, step by step, what held and what did
not. Every file is parsed before any runs: a malformed one stops everything (exit 2).

  --base-url URL    run against an emsim that is already running (e.g. http://127.0.0.1:8080)
                    instead of a fresh in-process one per file; it is reset first (POST
                    /_sim/reset) unless the file says `reset: false`; with EMSIM_ADMIN_TOKEN
                    set, requests carry it as that emsim's admin token
  --junit FILE      also write JUnit XML (one testsuite per file, one testcase per step,
                    named from the step as written, so names are the same on every run)
  --clock MODE      real or manual: run every file on this clock mode, whatever its `clock:`
                    header says (CI runs every file in both modes)
  --schemas DIR     JSON Schemas for response conformance (default: the repository's schemas/)
  --var NAME=VALUE  set the variable NAME (a string) before step 1, over the file's `vars:`
                    (repeatable); e.g. --var receiver=naive
  --quiet           print only failing steps and the summary lines

Exit status: 0 every scenario passed, 1 some step failed, 2 usage or parse error.
)";

}  // namespace

int ScenarioCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kScenarioUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "run") {
    std::cerr << "emsim scenario: unknown subcommand '" << args[0] << "'\n" << kScenarioUsage;
    return 2;
  }
  std::vector<std::string> files;
  std::string base_url, junit, schemas_dir, clock_mode;
  bool quiet = false;
  json vars = json::object();
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) {
      if (i + 1 >= args.size()) {
        std::cerr << "emsim scenario run: " << flag << " needs a value\n";
        std::exit(2);
      }
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kScenarioUsage;
      return 0;
    } else if (a == "--base-url") base_url = value("--base-url");
    else if (a == "--junit") junit = value("--junit");
    else if (a == "--schemas") schemas_dir = value("--schemas");
    else if (a == "--clock") {
      clock_mode = value("--clock");
      if (clock_mode != "real" && clock_mode != "manual") {
        std::cerr << "emsim scenario run: --clock must be real or manual, got '" << clock_mode << "'\n";
        return 2;
      }
    }
    else if (a == "--var") {
      const std::string v = value("--var");
      const size_t eq = v.find('=');
      if (eq == 0 || eq == std::string::npos) {
        std::cerr << "emsim scenario run: --var takes NAME=VALUE, got '" << v << "'\n";
        return 2;
      }
      vars[v.substr(0, eq)] = v.substr(eq + 1);
    }
    else if (a == "--quiet") quiet = true;
    else if (a.rfind("--", 0) == 0) {
      std::cerr << "emsim scenario run: unknown flag '" << a << "'\n" << kScenarioUsage;
      return 2;
    } else files.push_back(a);
  }
  if (files.empty()) {
    std::cerr << "emsim scenario run: name at least one scenario file\n" << kScenarioUsage;
    return 2;
  }

  // Parse everything first: a typo in file 3 stops the run before file 1 starts.
  std::vector<scenario::Scenario> scenarios;
  int bad = 0;
  for (const auto& f : files) {
    try {
      scenarios.push_back(scenario::ParseScenarioFile(f));
    } catch (const scenario::ScenarioParseError& e) {
      std::cerr << "emsim scenario: " << e.what() << "\n";
      ++bad;
    }
  }
  if (bad) {
    std::cerr << "emsim scenario: " << bad << " file(s) do not parse; nothing was run\n";
    return 2;
  }
  if (!clock_mode.empty())
    for (auto& sc : scenarios) sc.header.clockMode = clock_mode;
  for (auto& sc : scenarios) sc.header.vars.update(vars);

  std::unique_ptr<schema::Registry> remote_schemas;
  if (!base_url.empty()) {
    try {
      remote_schemas = std::make_unique<schema::Registry>(schemas_dir.empty() ? DefaultSchemasDir() : schemas_dir);
    } catch (const std::exception& e) {
      std::cerr << "emsim scenario: schemas: " << e.what() << "\n";
      return 2;
    }
  }

  std::vector<scenario::ScenarioReport> reports;
  for (const auto& sc : scenarios) {
    scenario::ScenarioReport rep;
    if (!base_url.empty()) {
      scenario::ScenarioRunOptions o;
      o.client = scenario::MakeHttpClient(base_url);
      o.prepare = true;
      o.schemas = remote_schemas.get();
      o.operationOf = [&ops = remote_schemas->Operations()](const std::string& method, const std::string& path) {
        return api::OperationIdOf(ops, method, path);
      };
      o.defaultFixture = DefaultFixturePath();
      if (const char* token = std::getenv("EMSIM_ADMIN_TOKEN")) o.adminToken = token;  // a guarded emsim's /_sim
      rep = scenario::RunScenario(sc, o);
    } else {
      // A fresh emsim per file, configured from its header: manual clock unless the file says
      // otherwise, its fixtures and seed. The runner calls its pipeline in-process; it still
      // listens (on a port of its own) because its sinks receive webhooks over real HTTP.
      Options opt;
      opt.host = "127.0.0.1";
      opt.port = 0;
      opt.fixtures = sc.header.fixtures == "default" ? "" : sc.header.fixtures;
      opt.schemasDir = schemas_dir;
      opt.clockMode = sc.header.clockMode == "real" ? runtime::ClockMode::kReal : runtime::ClockMode::kManual;
      opt.startTime = sc.header.clockStart;
      opt.seed = sc.header.seed.value_or(1);
      try {
        App app(opt);
        app.Start();
        scenario::ScenarioRunOptions o = api::ScenarioOptionsFor(app.services());
        o.prepare = false;
        rep = scenario::RunScenario(sc, o);
        app.Stop();
      } catch (const std::exception& e) {
        rep.file = sc.file;
        rep.name = sc.header.name;
        rep.setupError = std::string("cannot start an in-process emsim: ") + e.what();
      }
    }
    const std::string text = scenario::FormatReportText(rep, quiet);
    std::cout << text << std::flush;
    reports.push_back(std::move(rep));
  }

  int passed = 0, failed = 0;
  for (const auto& r : reports) (r.ok() ? passed : failed)++;
  std::cout << "scenarios: " << passed << " passed, " << failed << " failed\n";
  if (!junit.empty()) {
    std::ofstream out(junit, std::ios::binary);
    out << scenario::FormatJUnit(reports);
    if (!out) {
      std::cerr << "emsim scenario: cannot write " << junit << "\n";
      return 2;
    }
  }
  return failed ? 1 : 0;
}

}  // namespace emsim::cli
