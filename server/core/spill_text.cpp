#include "core/spill_text.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace emsim::core {

namespace {
std::string TempDir(const std::string& dir) {
  if (!dir.empty()) return dir;
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

// An unnamed file in `dir`: O_TMPFILE where the file system has it, else a named one unlinked at
// once.
int OpenTemp(const std::string& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string path = dir + "/emsim-spill-XXXXXX";
  const int named = ::mkostemp(path.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(path.c_str());
  return named;
}

std::runtime_error WriteError(const std::string& dir, int err) {
  return std::runtime_error("a text too large to hold in memory could not be written to a temporary file in " + dir +
                            ": " + std::strerror(err));
}
}  // namespace

SpilledText::~SpilledText() { ::close(fd_); }

size_t SpilledText::ReadAt(size_t offset, char* out, size_t n) const {
  if (offset >= size_) return 0;
  if (n > size_ - offset) n = size_ - offset;
  for (;;) {
    const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) throw std::runtime_error(std::string("a spilled text could not be read back: ") + std::strerror(errno));
  }
}

std::string SpilledText::ReadAll() const {
  std::string all(size_, '\0');
  size_t at = 0;
  while (at < size_) {
    const size_t got = ReadAt(at, all.data() + at, size_ - at);
    if (got == 0) throw std::runtime_error("a spilled text ended before its size");
    at += got;
  }
  return all;
}

SpillText::SpillText(size_t limit, std::string dir) : limit_(limit ? limit : 1), dir_(TempDir(dir)) {}

SpillText::~SpillText() {
  if (fd_ >= 0) ::close(fd_);
}

void SpillText::Spill() {
  if (fd_ < 0) {
    fd_ = OpenTemp(dir_);
    if (fd_ < 0) throw WriteError(dir_, errno);
  }
  size_t at = 0;
  while (at < buf_.size()) {
    const ssize_t n = ::write(fd_, buf_.data() + at, buf_.size() - at);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw WriteError(dir_, errno);
    }
    at += static_cast<size_t>(n);
  }
  written_ += buf_.size();
  buf_.clear();  // its capacity is kept: the next piece fills the same buffer
}

std::string SpillText::TakeText() {
  if (spilled()) throw std::logic_error("SpillText::TakeText after the text went to a file");
  return std::move(buf_);
}

std::shared_ptr<SpilledText> SpillText::TakeFile() {
  Spill();
  std::string().swap(buf_);
  auto file = std::make_shared<SpilledText>(fd_, written_);
  fd_ = -1;
  return file;
}

}  // namespace emsim::core
