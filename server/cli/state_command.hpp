#pragma once
// A world as a document: `emsim serve --state FILE` boots from a GET /_sim/state?secrets=true
// document (JSON or YAML), and `emsim state dump|load --url URL` takes one from, or puts one into,
// a running emsim.
#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "model/state.hpp"

namespace emsim::cli {

// The document in FILE: JSON when it starts with '{', else YAML (plain scalars typed as YAML 1.2's
// core schema: null, true/false, integers, floats; quoted ones stay text). Throws
// std::runtime_error naming the file and what is wrong. Read under the state limits
// (core/json_limits.hpp) and without recursion on the document's depth.
json ReadStateFile(const std::string& path);

// `emsim serve --state FILE`: the world in FILE and the rest of its document (the clock), or
// std::runtime_error naming the file and what is wrong, as ReadStateFile and model::LoadState
// would. A JSON file's growing lists are read straight into records (model::LoadStateText): their
// document was ~6 times the file. A file over `max_bytes` (--max-state-bytes) is refused.
model::LoadedStateText LoadStateFile(const std::string& path, std::uintmax_t max_bytes);

// `emsim state dump|load ...`; answers the exit code.
int StateCommand(const std::vector<std::string>& args);

}  // namespace emsim::cli
