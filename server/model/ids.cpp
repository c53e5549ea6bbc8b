#include "model/ids.hpp"

#include "core/compact_string.hpp"
#include "core/hash.hpp"

namespace emsim::model {
namespace {

std::string FormatUuid(std::uint64_t hi, std::uint64_t lo) {
  std::string out(core::CompactString::kUuidChars, '-');
  core::WriteUuid(hi, lo, out.data());
  return out;
}

}  // namespace

std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t IdGenerator::Next64() { return SplitMix64(seed_ * 0x100000001b3ULL ^ SplitMix64(++counter_)); }

core::CompactString IdGenerator::CompactUuid4() {
  std::uint64_t hi = Next64(), lo = Next64();
  hi = (hi & ~0xf000ULL) | 0x4000ULL;                           // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;    // RFC 4122 variant
  return core::CompactString::FromUuid(hi, lo);
}

std::string IdGenerator::Uuid4() { return CompactUuid4().str(); }

std::string IdGenerator::UuidV7(Millis unix_ms) {
  std::uint64_t rand_a = Next64(), lo = Next64();
  std::uint64_t hi = (static_cast<std::uint64_t>(unix_ms) << 16) | 0x7000ULL | (rand_a & 0x0fffULL);
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return FormatUuid(hi, lo);
}

std::string IdGenerator::Token(size_t hex_chars) {
  std::string out;
  static constexpr char kHex[] = "0123456789abcdef";
  while (out.size() < hex_chars) {
    std::uint64_t v = Next64();
    for (int i = 0; i < 16 && out.size() < hex_chars; ++i, v >>= 4) out += kHex[v & 0xf];
  }
  return out;
}

std::string StableId(std::string_view key) {
  // Two FNV-1a passes with different offsets, mixed: stable across runs and platforms.
  const std::uint64_t a = core::Fnv1a64(key);
  std::uint64_t b = 0x84222325cbf29ce4ULL;
  for (unsigned char c : key) b = (b ^ c) * core::kFnvPrime + 7;
  std::uint64_t hi = SplitMix64(a), lo = SplitMix64(b);
  hi = (hi & ~0xf000ULL) | 0x4000ULL;
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return FormatUuid(hi, lo);
}

}  // namespace emsim::model
