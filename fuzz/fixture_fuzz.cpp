// The fixture loader (fixture/fixtures.hpp) on any text, as `emsim serve --fixtures`, POST
// /_sim/tenants templates and scenarios load fixture files. A FixtureError is the expected answer
// (emsim refuses to start and names file, line and field); any other exception escapes, because
// App would not catch it. A fixture that loads must give a State whose indexes are current.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common.hpp"
#include "model/state.hpp"
#include "fixture/fixtures.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    emsim::fixture::Fixture f = emsim::fixture::LoadFixtureText(text, "fuzz.yaml", 1);
    const std::string problems = emsim::model::IndexProblems(f.state);
    if (!problems.empty()) emsim::fuzz::Finding("a loaded fixture's indexes are stale: " + problems);
  } catch (const emsim::fixture::FixtureError&) {
  }
  return 0;
}
