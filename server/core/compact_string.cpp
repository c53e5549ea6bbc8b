#include "core/compact_string.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

namespace emsim::core {

struct CompactString::Entry {
  std::atomic<std::uint32_t> refs{1};
  std::string text;
};

namespace {

struct Pool {
  std::mutex mu;
  std::unordered_map<std::string_view, CompactString::Entry*> byText;  // keys view the entries' text
};

// Never destroyed: values in static storage may outlive any other static.
Pool& ThePool() {
  static Pool* pool = new Pool();
  return *pool;
}

// A byte's hex value, or 0x10 for a byte that is not a lower-case hex digit (upper case is not
// canonical: such text is pooled as it is). A table, not comparisons: the digits of a random UUID
// mix 0-9 and a-f unpredictably, and the branches' mispredictions were a restart's largest cost.
constexpr std::array<std::uint8_t, 256> kHexValue = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(0x10);
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  return t;
}();

// The 128 bits of a canonical UUID's text (8-4-4-4-12 lower-case hex, RFC 4122 variant), or false.
bool ParseUuid(std::string_view t, std::uint64_t& hi, std::uint64_t& lo) {
  if (t.size() != CompactString::kUuidChars || t[8] != '-' || t[13] != '-' || t[18] != '-' || t[23] != '-')
    return false;
  const auto* p = reinterpret_cast<const unsigned char*>(t.data());
  std::uint8_t bad = 0;
  // Fixed counts: the compiler unrolls each group, and a bad digit is only looked at once at the end.
  auto digits = [&](size_t from, size_t n, std::uint64_t acc) {
    for (size_t i = 0; i < n; ++i) {
      const std::uint8_t d = kHexValue[p[from + i]];
      bad |= d;
      acc = (acc << 4) | (d & 0xf);
    }
    return acc;
  };
  const std::uint64_t h = digits(14, 4, digits(9, 4, digits(0, 8, 0)));
  const std::uint64_t l = digits(24, 12, digits(19, 4, 0));
  if (bad & 0x10) return false;
  hi = h;
  lo = l;
  return (lo & 0xc000000000000000ULL) == 0x8000000000000000ULL;
}

}  // namespace

namespace {
// splitmix64's finalizer: every bit of the UUID reaches the low bits the index's slots use.
std::uint64_t Mix(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
std::uint64_t UuidHash(std::uint64_t hi, std::uint64_t lo) noexcept { return Mix(hi ^ Mix(lo)); }
}  // namespace

std::uint64_t IdHash(std::string_view text) noexcept {
  std::uint64_t hi = 0, lo = 0;
  if (ParseUuid(text, hi, lo)) return UuidHash(hi, lo);
  return std::hash<std::string_view>{}(text);
}

std::uint64_t CompactString::IdHash() const noexcept { return IsUuid() ? UuidHash(hi_, lo_) : Hash(); }

namespace {
// Each byte's two hex digits, so a UUID is 16 lookups: a digit at a time (a shift, a mask and a
// lookup per digit) was ~190 instructions a UUID, and a purchase writes a dozen (its answer, its
// durable rows).
struct HexPairs {
  char pair[256][2];
  constexpr HexPairs() : pair() {
    constexpr char kHex[] = "0123456789abcdef";
    for (int i = 0; i < 256; ++i) {
      pair[i][0] = kHex[i >> 4];
      pair[i][1] = kHex[i & 0xf];
    }
  }
};
constexpr HexPairs kHexPairs;

// The low `bytes` bytes of v, most significant first, as 2 * bytes hex digits at p.
inline char* PutHex(char* p, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i, p += 2) std::memcpy(p, kHexPairs.pair[(v >> (8 * i)) & 0xff], 2);
  return p;
}
}  // namespace

// Written by hand: snprintf cost ~3k instructions per id, and a purchase draws and writes several
// ids under the store's write lock.
void WriteUuid(std::uint64_t hi, std::uint64_t lo, char* out36) noexcept {
  char* p = PutHex(out36, hi >> 32, 4);
  *p++ = '-';
  p = PutHex(p, hi >> 16, 2);
  *p++ = '-';
  p = PutHex(p, hi, 2);
  *p++ = '-';
  p = PutHex(p, lo >> 48, 2);
  *p++ = '-';
  PutHex(p, lo, 6);
}

CompactString CompactString::FromUuid(std::uint64_t hi, std::uint64_t lo) {
  CompactString s;
  s.hi_ = hi;
  s.lo_ = (lo & ~kVariantMask) | kVariant;
  return s;
}

namespace {
thread_local CompactString::BulkAssign* tls_bulk = nullptr;
}  // namespace

// Keyed by a view of the pooled text itself (kept alive by the copy beside it).
struct CompactString::BulkAssign::Seen {
  std::unordered_map<std::string_view, CompactString> texts;
};

CompactString::BulkAssign::BulkAssign() : seen_(new Seen), outer_(tls_bulk) { tls_bulk = this; }

CompactString::BulkAssign::~BulkAssign() {
  tls_bulk = outer_;
  delete seen_;
}

void CompactString::Assign(std::string_view text) {
  if (text.empty()) return;
  if (ParseUuid(text, hi_, lo_)) return;
  hi_ = lo_ = 0;
  if (BulkAssign* bulk = tls_bulk) {
    auto& seen = bulk->seen_->texts;
    if (auto it = seen.find(text); it != seen.end()) {
      it->second.Retain();
      hi_ = it->second.hi_;
      return;
    }
    AssignPooled(text);  // pooled as usual, then remembered
    if (seen.size() < BulkAssign::kBulkTexts) seen.emplace(std::string_view(PooledEntry()->text), *this);
    return;
  }
  AssignPooled(text);
}

void CompactString::AssignPooled(std::string_view text) {
  Pool& pool = ThePool();
  std::lock_guard lock(pool.mu);
  if (auto it = pool.byText.find(text); it != pool.byText.end()) {
    it->second->refs.fetch_add(1, std::memory_order_relaxed);
    hi_ = reinterpret_cast<std::uintptr_t>(it->second);
    return;
  }
  auto* e = new Entry();
  try {
    e->text.assign(text);
    pool.byText.emplace(std::string_view(e->text), e);
  } catch (...) {
    delete e;
    throw;
  }
  hi_ = reinterpret_cast<std::uintptr_t>(e);
}

void CompactString::Retain() const noexcept {
  if (Entry* e = PooledEntry()) e->refs.fetch_add(1, std::memory_order_relaxed);
}

void CompactString::Release() noexcept {
  Entry* e = PooledEntry();
  if (!e) return;
  hi_ = lo_ = 0;
  // Not the last holder: drop the count without the lock.
  std::uint32_t r = e->refs.load(std::memory_order_relaxed);
  while (r > 1)
    if (e->refs.compare_exchange_weak(r, r - 1, std::memory_order_acq_rel, std::memory_order_relaxed)) return;
  // Perhaps the last: decide under the lock, where a text is pooled afresh, so no thread finds
  // this entry between its count reaching zero and its removal.
  Pool& pool = ThePool();
  std::lock_guard lock(pool.mu);
  if (e->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    pool.byText.erase(std::string_view(e->text));
    delete e;
  }
}

size_t CompactString::size() const noexcept {
  if (IsUuid()) return kUuidChars;
  const Entry* e = PooledEntry();
  return e ? e->text.size() : 0;
}

std::string_view CompactString::View(Buffer& buf) const noexcept {
  if (IsUuid()) {
    WriteUuid(hi_, lo_, buf);
    return std::string_view(buf, kUuidChars);
  }
  const Entry* e = PooledEntry();
  // Empty: a view of "" (not a null pointer, which memcpy and friends must not be given).
  return e ? std::string_view(e->text) : std::string_view("", 0);
}

size_t CompactString::PooledCount() {
  Pool& pool = ThePool();
  std::lock_guard lock(pool.mu);
  return pool.byText.size();
}

}  // namespace emsim::core
