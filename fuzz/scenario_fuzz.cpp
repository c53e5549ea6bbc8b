// The scenario parser (scenario/parse.hpp) on any text, as POST /_sim/scenarios/run and
// `emsim scenario run` call it; `fixtures:` paths resolve against the project's scenarios/ folder.
// A ScenarioParseError is the expected answer to a bad file (a 400); any other exception escapes,
// because the handler would turn it into a 500.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common.hpp"
#include "scenario/parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string kBaseDir = emsim::fuzz::SourceDir() + "/scenarios";
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    emsim::scenario::Scenario s = emsim::scenario::ParseScenarioText(text, "fuzz.yaml", kBaseDir);
    (void)s;
  } catch (const emsim::scenario::ScenarioParseError&) {
  }
  return 0;
}
