// Writes the seed corpora of the harnesses from the project's own files, so the fuzzer starts
// from inputs that reach deep (a valid purchase, a scenario that runs, the default fixture):
//   router/    every request step of scenarios/*.yaml as a raw request, one file each, and each
//              scenario's requests in a row (raw_request.hpp's format)
//   schema/    each of those bodies with the request schema of its route
//   scenario/  scenarios/*.yaml and scenarios/tests/*.yaml as they are
//   fixture/   fixtures/*.yaml as they are
//   state/     GET /_sim/state's document for the default fixture
//   record/    records of that document, each after its kind's byte (record_fuzz.cpp)
// Usage: fuzz_make_seeds OUT_DIR. Paths come from EMSIM_SOURCE_DIR (common.hpp).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "common.hpp"
#include "model/state.hpp"
#include "raw_request.hpp"
#include "tests/support/record_read_check.hpp"
#include "fixture/fixtures.hpp"
#include "scenario/parse.hpp"
#include "schema/registry.hpp"

namespace fs = std::filesystem;
using emsim::json;

namespace {

int g_written = 0;

void Write(const fs::path& dir, const std::string& name, const std::string& content) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << content;
  ++g_written;
}

std::string Encode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' || c == '$' || c == '{' || c == '}') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The catalogue of operations (schemas/operations.json), read by main().
const emsim::schema::Catalogue* g_operations = nullptr;

// The operation a scenario's request goes to ("" when none: a path the catalogue lacks).
std::string OperationOf(const std::string& method, const std::string& path) {
  const emsim::schema::Operation* op = g_operations->Match(method, path);
  return op ? op->id : "";
}

struct Seeds {
  fs::path out;
  std::string alice_key, bob_key;
  std::set<std::string> seen;  // identical requests are written once

  std::string RequestText(const emsim::scenario::ScenarioCall& c) {
    std::string text = c.method + " " + Encode(c.path);
    char sep = '?';
    for (const auto& [k, v] : c.query.items()) {
      text += sep + Encode(k) + "=" + Encode(v.is_string() ? v.get<std::string>() : v.dump());
      sep = '&';
    }
    text += "\n";
    if (c.path.rfind("/_sim", 0) != 0 || c.path.rfind("/_sim/wallet", 0) == 0 || !c.as.empty())
      text += "x-auth-service: " + (c.as.find("bob") != std::string::npos ? bob_key : alice_key) + "\n";
    if (!c.workspace.empty()) text += "x-workspace-key: " + c.workspace + "\n";
    for (const auto& [k, v] : c.headers.items()) text += k + ": " + (v.is_string() ? v.get<std::string>() : v.dump()) + "\n";
    std::string body = c.rawBody ? *c.rawBody : c.body ? c.body->dump() : "";
    if (!body.empty()) text += "content-type: " + (c.contentType.empty() ? std::string("application/json") : c.contentType) + "\n";
    return text + "\n" + body;
  }

  void Steps(const std::string& file, const std::vector<emsim::scenario::ScenarioStep>& steps, std::vector<std::string>& row) {
    for (const auto& step : steps) {
      if (!step.steps.empty()) Steps(file, step.steps, row);
      if (step.call.method.empty()) continue;
      const std::string text = RequestText(step.call);
      if (!seen.insert(text).second) continue;
      row.push_back(text);
      Write(out / "router", file + "." + std::to_string(step.line), text);
      const std::string op = OperationOf(step.call.method, step.call.path);
      if (!op.empty() && step.call.body) Write(out / "schema", file + "." + std::to_string(step.line), "requests/" + op + "\n" + step.call.body->dump());
    }
  }
};

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_make_seeds OUT_DIR\n";
    return 2;
  }
  const fs::path src = emsim::fuzz::SourceDir();
  const emsim::schema::Registry schemas(src / "schemas");
  g_operations = &schemas.Operations();
  Seeds seeds{argv[1], "emsim_test_alice_3f9c2a7b", "emsim_test_bob_8d41e6c0", {}};
  std::vector<fs::path> scenario_files;
  for (const auto* dir : {"scenarios", "scenarios/tests"})
    for (const auto& e : fs::directory_iterator(src / dir))
      if (e.path().extension() == ".yaml") scenario_files.push_back(e.path());
  std::sort(scenario_files.begin(), scenario_files.end());
  for (const auto& f : scenario_files) {
    Write(seeds.out / "scenario", f.filename().string(), Read(f));
    try {
      const auto sc = emsim::scenario::ParseScenarioFile(f.string());
      std::vector<std::string> row;
      seeds.Steps(f.filename().string(), sc.steps, row);
      // Up to eight of the file's requests in a row (the harness runs at most eight per input).
      for (size_t from = 0; from < row.size(); from += 8) {
        std::string joined;
        for (size_t i = from; i < row.size() && i < from + 8; ++i)
          joined += (i == from ? "" : std::string(emsim::fuzz::kRequestSeparator)) + row[i];
        Write(seeds.out / "router", f.filename().string() + ".row" + std::to_string(from / 8), joined);
      }
    } catch (const std::exception& e) {
      std::cerr << f << ": " << e.what() << "\n";
      return 1;
    }
  }
  for (const auto& e : fs::directory_iterator(src / "fixtures"))
    if (e.path().extension() == ".yaml") Write(seeds.out / "fixture", e.path().filename().string(), Read(e.path()));
  const auto fixture = emsim::fixture::LoadFixtureFile((src / "fixtures/default.yaml").string(), 1);
  Write(seeds.out / "state", "default.json", emsim::model::DumpState(fixture.state).dump(1));
  Write(seeds.out / "state", "empty.json", emsim::model::DumpState(emsim::model::State{}).dump());
  // record/: a kind's index byte, then up to three of the default fixture's records of that kind.
  const json dump = emsim::model::DumpState(fixture.state);
  for (size_t k = 0; k < std::size(emsim::testing::kRecordKinds); ++k) {
    const json rows = dump.value(emsim::testing::kRecordKinds[k].table, json::array());
    for (size_t i = 0; i < rows.size() && i < 3; ++i)
      Write(seeds.out / "record", std::string(emsim::testing::kRecordKinds[k].table) + std::to_string(i),
            std::string(1, static_cast<char>(k)) + rows[i].dump());
  }
  std::cout << "fuzz_make_seeds: " << g_written << " seed files in " << seeds.out.string() << "\n";
  return 0;
}
