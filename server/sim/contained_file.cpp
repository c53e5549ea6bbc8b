#include "sim/contained_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>

namespace emsim::sim {

namespace fs = std::filesystem;

std::string ResolveContainedFile(const std::string& base_dir, const std::string& reference, std::uintmax_t max_bytes) {
  if (reference.empty()) throw FileRefError("the file name is empty");
  const fs::path ref(reference);
  if (ref.is_absolute() || ref.has_root_name() || ref.has_root_directory())
    throw FileRefError(reference + ": must be a path relative to the scenario's folder, not an absolute path");
  for (const auto& part : ref)
    if (part == "..") throw FileRefError(reference + ": must stay inside the scenario's folder (no '..')");
  std::error_code ec;
  const fs::path base = fs::canonical(base_dir.empty() ? "." : base_dir, ec);
  if (ec) throw FileRefError(base_dir + ": the scenario's folder cannot be read");
  const fs::path target = fs::canonical(base / ref, ec);
  if (ec) throw FileRefError(reference + ": no such file");
  // Canonical paths: a symlink inside the folder that points out of it ends outside `base`.
  const auto [b, t] = std::mismatch(base.begin(), base.end(), target.begin(), target.end());
  if (b != base.end()) throw FileRefError(reference + ": leads outside the scenario's folder");
  if (!fs::is_regular_file(target, ec)) throw FileRefError(reference + ": not a regular file");
  const std::uintmax_t size = fs::file_size(target, ec);
  if (ec || size > max_bytes)
    throw FileRefError(reference + ": larger than " + std::to_string(max_bytes) + " bytes");
  return target.string();
}

std::string ReadRegularFile(const std::string& path, std::uintmax_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw FileRefError(path + ": cannot open (" + std::strerror(errno) + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw FileRefError(path + ": not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw FileRefError(path + ": larger than " + std::to_string(max_bytes) + " bytes");
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileRefError(path + ": cannot read (" + std::strerror(errno) + ")");
    if (n == 0) break;  // shrank while we read: keep what there was
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace emsim::sim
