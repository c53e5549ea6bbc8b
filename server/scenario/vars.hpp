#pragma once
// Scenario variables: `save` and `set` store JSON values; "${name}" or "${name.path.0}" reads
// them back anywhere in a later step. A string that is exactly one "${...}" becomes the value
// itself (a number stays a number); inside longer text the value is spliced in as text.
// "$${" is a literal "${".
#include <optional>
#include <stdexcept>
#include <string>

#include "core/json.hpp"

namespace emsim::scenario {

struct VariableError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A value inside `doc` by JSON pointer ("/data/id") or dotted path ("data.id", "data.domains.0.id").
std::optional<json> LookupPath(const json& doc, const std::string& path);

// Replaces every ${...} in every string of `value`; throws VariableError naming what is missing.
json Interpolate(const json& value, const json& vars);
std::string InterpolateText(const std::string& text, const json& vars);

}  // namespace emsim::scenario
