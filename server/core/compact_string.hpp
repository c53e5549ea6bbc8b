#pragma once
// CompactString: an immutable string in 16 bytes, for the fields a world holds millions of.
//
// Why: a placement purchase keeps an invoice, a cart and a test per mailbox, and each of those
// records repeats the same few values (the account, the workspace, the mailbox and its address)
// and holds 36-character UUIDs. As std::string each UUID was 32 bytes plus a 48-byte heap block,
// and each repeated value 32 bytes plus, past 15 characters, a block of its own: most of the
// ~2.6 KB a purchase kept resident. Here
//   - a canonical UUID (8-4-4-4-12 lower-case hex with the RFC 4122 variant, what every id
//     generator of emsim writes) is stored as its 128 bits, and written back as the same text;
//   - any other text is shared: one pooled copy per distinct text, counted, freed with its last
//     holder. A million tests of one mailbox hold one copy of its address.
// Both forms are canonical for their text (a UUID's text is never pooled, the pool holds one copy
// per text), so two values are equal exactly when their 16 bytes are.
//
// Thread safety: values are immutable; copies may be made and dropped on any thread (the count is
// atomic). Only a count that reaches zero, or a text pooled afresh, takes the pool's lock; a
// holder never drops the last reference while another thread pools the same text (both under the
// lock), so an entry is freed exactly once.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

namespace emsim::core {

// Writes a UUID's text (8-4-4-4-12 lower-case hex, 36 characters) from its two halves.
void WriteUuid(std::uint64_t hi, std::uint64_t lo, char* out36) noexcept;

// The hash a table's id index keys a record by (model/id_index.hpp), for an id held as text or as
// a CompactString alike: a canonical UUID's hashes its 128 bits, any other text is hashed as text.
// A restart rebuilds the index of millions of UUID ids; writing each one out as text to hash it was
// ~6% of a million-purchase restart.
std::uint64_t IdHash(std::string_view text) noexcept;

class CompactString {
 public:
  struct Entry;  // a pooled text (compact_string.cpp)
  static constexpr size_t kUuidChars = 36;
  // Room for any UUID's text (View).
  using Buffer = char[kUuidChars];

  CompactString() noexcept = default;
  CompactString(std::string_view text) { Assign(text); }  // NOLINT: converts like std::string does
  CompactString(const std::string& text) : CompactString(std::string_view(text)) {}
  CompactString(const char* text) : CompactString(std::string_view(text)) {}
  // A UUID from its two halves (RFC 4122 variant: lo's top two bits are 10).
  static CompactString FromUuid(std::uint64_t hi, std::uint64_t lo);

  CompactString(const CompactString& o) noexcept : hi_(o.hi_), lo_(o.lo_) { Retain(); }
  CompactString(CompactString&& o) noexcept : hi_(o.hi_), lo_(o.lo_) { o.hi_ = o.lo_ = 0; }
  CompactString& operator=(const CompactString& o) noexcept {
    if (this != &o) {
      CompactString copy(o);
      Swap(copy);
    }
    return *this;
  }
  CompactString& operator=(CompactString&& o) noexcept {
    CompactString moved(std::move(o));
    Swap(moved);
    return *this;
  }
  ~CompactString() { Release(); }

  bool empty() const noexcept { return hi_ == 0 && lo_ == 0; }
  size_t size() const noexcept;
  // The text, in `buf` for a UUID (valid while buf lives), else the pooled copy's.
  std::string_view View(Buffer& buf) const noexcept;
  std::string str() const {
    Buffer buf;
    return std::string(View(buf));
  }
  // Lets code pass one where a std::string is taken (a copy of the text).
  operator std::string() const { return str(); }  // NOLINT
  void AppendTo(std::string& out) const {
    Buffer buf;
    out += View(buf);
  }
  // IdHash of the text (below), from the bits of a UUID without writing its text out.
  std::uint64_t IdHash() const noexcept;
  // std::hash<std::string_view> of the text, so lookups by text and by value agree.
  size_t Hash() const noexcept {
    Buffer buf;
    return std::hash<std::string_view>{}(View(buf));
  }

  friend bool operator==(const CompactString& a, const CompactString& b) noexcept {
    return a.hi_ == b.hi_ && a.lo_ == b.lo_;
  }
  friend bool operator==(const CompactString& a, std::string_view b) noexcept {
    CompactString::Buffer buf;
    return a.View(buf) == b;
  }
  friend bool operator==(const CompactString& a, const std::string& b) noexcept {
    return a == std::string_view(b);
  }
  friend bool operator==(const CompactString& a, const char* b) noexcept { return a == std::string_view(b); }
  // Text order (as std::string orders), for sorting.
  friend bool operator<(const CompactString& a, const CompactString& b) noexcept {
    CompactString::Buffer ba, bb;
    return a.View(ba) < b.View(bb);
  }

  friend std::string operator+(std::string a, const CompactString& b) {
    b.AppendTo(a);
    return a;
  }
  friend std::string operator+(const char* a, const CompactString& b) { return std::string(a) + b; }
  friend std::string operator+(const CompactString& a, std::string_view b) {
    std::string out = a.str();
    out += b;
    return out;
  }
  friend std::string operator+(const CompactString& a, const char* b) { return a + std::string_view(b); }

  // Distinct texts pooled now (tests: the pool frees what no value holds).
  static size_t PooledCount();

  // While one lives, texts this thread pools are remembered by it: a text seen again is a copy of
  // the first (a count raised) instead of a lookup in the pool under its lock. For bulk reads (a
  // restart reads millions of records whose account, workspace, type and currency repeat): the
  // pool's lock and lookup were 11% of a 1 M-purchase restart, on both reading threads. It holds
  // what it remembers until it ends (at most kBulkTexts distinct texts; past that, the pool).
  class BulkAssign {
   public:
    BulkAssign();
    ~BulkAssign();
    BulkAssign(const BulkAssign&) = delete;
    BulkAssign& operator=(const BulkAssign&) = delete;

   private:
    friend class CompactString;
    static constexpr size_t kBulkTexts = 1 << 16;
    struct Seen;
    Seen* seen_;
    BulkAssign* outer_;
  };

 private:
  // Forms: both words 0: empty. lo's top two bits 10: a UUID (hi, lo its halves). Else hi is the
  // Entry* of a pooled text and lo is 0.
  static constexpr std::uint64_t kVariantMask = 0xc000000000000000ULL;
  static constexpr std::uint64_t kVariant = 0x8000000000000000ULL;
  bool IsUuid() const noexcept { return (lo_ & kVariantMask) == kVariant; }
  Entry* PooledEntry() const noexcept {
    return (lo_ == 0 && hi_ != 0) ? reinterpret_cast<Entry*>(static_cast<std::uintptr_t>(hi_)) : nullptr;
  }
  void Assign(std::string_view text);
  void AssignPooled(std::string_view text);  // a text that is not a UUID
  void Retain() const noexcept;
  void Release() noexcept;
  void Swap(CompactString& o) noexcept {
    std::swap(hi_, o.hi_);
    std::swap(lo_, o.lo_);
  }

  std::uint64_t hi_ = 0, lo_ = 0;
};

// The text of a std::string or a CompactString, valid while this lives (code generic over both,
// as a Table is over its rows' ids).
class TextOf {
 public:
  explicit TextOf(std::string_view s) : view(s) {}
  explicit TextOf(const std::string& s) : view(s) {}
  explicit TextOf(const CompactString& s) : view(s.View(buf_)) {}
  TextOf(const TextOf&) = delete;
  TextOf& operator=(const TextOf&) = delete;
  std::string str() const { return std::string(view); }

 private:
  CompactString::Buffer buf_;

 public:
  const std::string_view view;
};

// JSON: the text (nlohmann finds these by argument-dependent lookup). A value that is not a string
// is refused with nlohmann's own message for a std::string, so loads name it as before.
template <class Json>
void to_json(Json& j, const CompactString& s) {
  CompactString::Buffer buf;
  j = s.View(buf);
}
template <class Json>
void from_json(const Json& j, CompactString& s) {
  s = CompactString(j.template get<std::string>());
}

}  // namespace emsim::core

template <>
struct std::hash<emsim::core::CompactString> {
  size_t operator()(const emsim::core::CompactString& s) const noexcept { return s.Hash(); }
};
