// The state loader (model::LoadState) on any JSON document, as PUT /_sim/state and persistence
// call it. LoadState refuses a bad document with an exception (the handler answers 400 for any
// std::exception); a document it accepts must give a State with current indexes whose dump loads
// again to the same dump (the dump/load round trip GET and PUT /_sim/state promise).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "common.hpp"
#include "model/state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emsim;
  const json doc = json::parse(reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size, nullptr, false);
  if (doc.is_discarded()) return 0;
  model::State state;
  try {
    state = model::LoadState(doc);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string problems = model::IndexProblems(state);
  if (!problems.empty()) fuzz::Finding("a loaded state's indexes are stale: " + problems);
  const json first = model::DumpState(state);
  model::State again;
  try {
    again = model::LoadState(first);
  } catch (const std::exception& e) {
    fuzz::Finding(std::string("the dump of a loaded state does not load: ") + e.what());
  }
  if (model::DumpState(again) != first) fuzz::Finding("dump -> load -> dump differs from the first dump");
  return 0;
}
