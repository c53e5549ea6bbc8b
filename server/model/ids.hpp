#pragma once
// Reproducible identifiers: every generated id is a pure function of (seed, counter), and the
// counter is part of the state, so a run with the same --seed and the same requests produces the
// same ids, and a state dump/load continues the sequence exactly.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/compact_string.hpp"
#include "core/time.hpp"

namespace emsim::model {

class IdGenerator {
 public:
  IdGenerator() = default;
  explicit IdGenerator(std::uint64_t seed) : seed_(seed) {}

  std::string Uuid4();                       // RFC 4122 version 4 layout
  core::CompactString CompactUuid4();        // the same id, never written as text
  std::string UuidV7(Millis unix_ms);        // RFC 9562 version 7: time-ordered
  std::string Token(size_t hex_chars);       // random hex, e.g. webhook secrets
  std::uint64_t Next64();

  std::uint64_t seed() const { return seed_; }
  std::uint64_t counter() const { return counter_; }
  void Restore(std::uint64_t seed, std::uint64_t counter) { seed_ = seed; counter_ = counter; }

 private:
  std::uint64_t seed_ = 0;
  std::uint64_t counter_ = 0;
};

// A UUID-shaped id derived from a text key (e.g. "mailbox:example.com/jane"), used for fixture
// records that do not name their id, so their ids do not depend on --seed.
std::string StableId(std::string_view key);

std::uint64_t SplitMix64(std::uint64_t x);

}  // namespace emsim::model
