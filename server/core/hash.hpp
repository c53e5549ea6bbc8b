#pragma once
// FNV-1a, 64 bits: stable across runs and platforms, no dependency. Not for secrets (signing is
// HMAC-SHA256, events/signer.hpp). Every step `(h ^ byte) * prime` is a bijection of h for a given
// byte, so two inputs that differ in one byte always hash differently: the checksum of a durable
// row (runtime/persist.hpp) catches any single flipped bit or byte.
#include <cstdint>
#include <string_view>

namespace emsim::core {

inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

inline std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t h = kFnvOffset) {
  for (unsigned char c : bytes) h = (h ^ c) * kFnvPrime;
  return h;
}

}  // namespace emsim::core
