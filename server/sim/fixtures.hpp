#pragma once
// Loads a fixture file (fixtures/README.md) into a State. A malformed file throws FixtureError
// whose message names the file, the line and the field: emsim refuses to start with it.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "model/state.hpp"

namespace emsim::sim {

struct FixtureError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Fixture {
  model::State state;  // with its indexes current
  std::optional<model::Millis> clockStart;
  // Set for a fixture with a `generate:` mapping: builds `state` again, exactly, from the file's
  // own records and the recipe, so model::Store need not keep a copy of a big generated state.
  std::function<model::State()> rebuild;
};

// The largest fixture file read (a generated fixture of 100,000 domains is ~30 MB).
inline constexpr std::uintmax_t kMaxFixtureBytes = 256ull * 1024 * 1024;

// A regular file of at most kMaxFixtureBytes (sim/contained_file.hpp), else FixtureError.
Fixture LoadFixtureFile(const std::string& path, std::uint64_t seed);
Fixture LoadFixtureText(const std::string& yaml_text, const std::string& name, std::uint64_t seed);

// The timing keys a fixture may set (seconds), with their defaults. Unknown keys are an error.
const std::map<std::string, std::int64_t>& DefaultTimings();

}  // namespace emsim::sim
