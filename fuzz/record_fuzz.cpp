// The record reader of a data dir's start (model::ReadRecordText: a row's JSON straight into its
// record) against the document path a state load takes, on any text: the first byte picks the
// kind of record (tests/support/record_read_check.hpp's list), the rest is the row's body.
// Whatever the reader reads must be read by the document path to the same record; what it leaves
// to the document path is fine (the start then takes that path).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common.hpp"
#include "tests/support/record_read_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emsim;
  if (size < 1) return 0;
  constexpr size_t kKinds = sizeof(testing::kRecordKinds) / sizeof(testing::kRecordKinds[0]);
  const auto& kind = testing::kRecordKinds[data[0] % kKinds];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string why = kind.check(text, nullptr);
  if (!why.empty()) fuzz::Finding(std::string(kind.table) + ": " + why);
  return 0;
}
