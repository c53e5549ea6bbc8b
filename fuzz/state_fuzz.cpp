// The state loader (model::LoadState) on any JSON document, as PUT /_sim/state and persistence
// call it. LoadState refuses a bad document with an exception (the handler answers 400 for any
// std::exception); a document it accepts must give a State with current indexes whose dump loads
// again to the same dump (the dump/load round trip GET and PUT /_sim/state promise), and whose
// dump written as text (model::DumpStateText, GET /_sim/state) is the document's dump. The text
// reader of `emsim serve --state` (model::LoadStateText) must load the world the document path
// loads from the same text, or refuse it with the same message. And ParseJsonLimited's fast way
// (ParsePlainJson) must build what nlohmann's parser builds from any text it reads.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "common.hpp"
#include "core/json_limits.hpp"
#include "model/state.hpp"
#include "tests/support/typed_json.hpp"

namespace {

// The world a state text loads to (its dump), or "error: " and why: by the text reader, or by
// the document path (the state limits' parser, then LoadState).
std::string ByText(const std::string& text) {
  try {
    return emsim::model::DumpState(emsim::model::LoadStateText(text).state).dump();
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}
std::string ByDocument(const std::string& text) {
  auto doc = emsim::model::ParseJsonLimited(text, emsim::model::kStateJsonLimits, "state");
  if (!doc) return "error: " + doc.error().errors.front().msg;
  try {
    return emsim::model::DumpState(emsim::model::LoadState(*doc)).dump();
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (ByText(text) != ByDocument(text)) fuzz::Finding("the text reader of --state and the document path disagree");
  // ParseJsonLimited's fast way reads a text only as nlohmann's parser does, number types included.
  if (json fast; model::ParsePlainJson(text, model::kStateJsonLimits, fast)) {
    const auto slow = model::ParseJsonWithNlohmann(text, model::kStateJsonLimits, "state");
    if (!slow || !testing::SameTypedJson(fast, slow.value())) fuzz::Finding("the fast JSON reader read a text otherwise than nlohmann");
  }
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
  if (model::DumpStateText(state) != first.dump()) fuzz::Finding("the dump written as text differs from the document's");
  return 0;
}
