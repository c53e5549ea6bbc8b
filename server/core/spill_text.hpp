#pragma once
// Text written front to back that may outgrow memory: a state dump of a large world is larger than
// the world it describes, and held whole it doubled the server's memory at its peak. Kept in a
// string until it reaches `limit` bytes, then moved, piece by piece, to an anonymous temporary file
// (unlinked at once: it goes away with its descriptor, even when emsim is killed), which is then
// read back by whoever sends it. Below the limit nothing touches the disk.
#include <cstddef>
#include <memory>
#include <string>

namespace emsim::core {

// A finished text in a temporary file: `size` bytes, read at any offset, from any thread.
class SpilledText {
 public:
  SpilledText(int fd, size_t size) : fd_(fd), size_(size) {}
  ~SpilledText();
  SpilledText(const SpilledText&) = delete;
  SpilledText& operator=(const SpilledText&) = delete;

  size_t size() const { return size_; }
  // Up to `n` bytes from `offset` into `out`: how many were read (0 at the end); throws when the
  // file cannot be read.
  size_t ReadAt(size_t offset, char* out, size_t n) const;
  // The whole text (tests, and callers that need it in memory after all).
  std::string ReadAll() const;

 private:
  int fd_;
  size_t size_;
};

class SpillText {
 public:
  // `limit`: the bytes held in memory before the text goes to a file; `dir`: where that file is
  // made (empty: $TMPDIR, else /tmp).
  explicit SpillText(size_t limit, std::string dir = {});
  ~SpillText();
  SpillText(const SpillText&) = delete;
  SpillText& operator=(const SpillText&) = delete;

  // Where the next bytes are appended.
  std::string& text() { return buf_; }
  // Called between pieces (a record, a member): past the limit, what is held goes to the file.
  // Throws std::runtime_error, naming the directory, when it cannot be written.
  void Check() {
    if (buf_.size() >= limit_) Spill();
  }
  size_t limit() const { return limit_; }
  bool spilled() const { return fd_ >= 0; }

  // Once the text is complete, one of: the text itself (never spilled), or the file holding it all.
  std::string TakeText();
  std::shared_ptr<SpilledText> TakeFile();

 private:
  void Spill();

  size_t limit_;
  std::string dir_;
  std::string buf_;
  int fd_ = -1;
  size_t written_ = 0;
};

}  // namespace emsim::core
