#pragma once
// Files named by client-supplied documents (a scenario's `fixtures:`), and reading any file with
// a size cap. A scenario may arrive over HTTP (POST /_sim/scenarios/run), so its references must
// not reach /dev/zero, /proc/self/environ or a secret elsewhere on the machine.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace emsim::sim {

struct FileRefError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The canonical path of `reference`, a relative path naming a regular file inside `base_dir`
// (after following symlinks): no absolute path, no `..`, no symlink leading out, no device, FIFO or
// folder, at most `max_bytes`. Throws FileRefError saying which rule it broke.
std::string ResolveContainedFile(const std::string& base_dir, const std::string& reference, std::uintmax_t max_bytes);

// The whole of a regular file of at most `max_bytes` (checked on the opened file, so a path that
// changes under us cannot turn into a device). Throws FileRefError.
std::string ReadRegularFile(const std::string& path, std::uintmax_t max_bytes);

}  // namespace emsim::sim
