// The default fixture's clock (fixtures/default.yaml: 2026-01-01T09:00:00Z), which the tests'
// expected times are written against, and the ISO text of an instant after it.
#pragma once

#include <cstdint>
#include <string>

#include "core/time.hpp"

namespace emsim::testing {

inline constexpr std::int64_t kFixtureStartSeconds = 1767258000;
inline constexpr std::int64_t kFixtureStartMs = kFixtureStartSeconds * 1000;

// The ISO-8601 text of the fixture's start plus offset_seconds, as answers and events carry it.
inline std::string FixtureTimeIso(std::int64_t offset_seconds) {
  return model::FormatIso((kFixtureStartSeconds + offset_seconds) * 1000);
}

}  // namespace emsim::testing
