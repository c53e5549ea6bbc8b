#pragma once
// IdIndex: id -> row number, for Table<T>. A flat open-addressing table that grows in bounded
// steps and keeps no copy of the ids.
//
// Why flat: the index of a table a purchase writes to is looked up and inserted into on every
// request, under the store's write lock, and the tables grow by a row per request. With
// std::unordered_map<std::string, size_t> each insert allocated a node and a copy of the 36-byte
// id, and each lookup chased bucket -> node -> key through three cache misses: the three inserts of
// a MONTHLY purchase were ~10% of its CPU samples at 100k+ rows. Here a slot is 8 bytes
// (32 bits of the id's hash and the row), a fresh id is refused or placed after touching one cache
// line, and the id itself is read from the row (the caller's `key_of`) only when a hash matches.
// 8 bytes, not 16 (a 64-bit hash and a size_t row): a purchase adds an entry to three indexes, and
// at two to four slots per entry the wider slots were ~240 bytes of the ~2 KB it adds to memory.
// A 32-bit hash still tells ids apart (a false match costs one id comparison) and still places
// entries in arrays of up to 2^32 slots; rows are limited to 2^32 - 2.
//
// Why steps: growing a hash table rehashes every entry, and under the write lock that stalled
// every concurrent request (45 ms at 85k rows, the whole MONTHLY p99 of the time). When the live
// array reaches half full it becomes `old_`, a live array twice its size takes over, and every
// later insert drains kSlotsDrainedPerInsert slots of old_ (in order, from cursor_), moving their
// entries to the live array. Arithmetic: old_ has C slots holding at most C/2 entries, so it is
// drained after C/4 inserts, by when the live array (2C slots) holds at most C/2 + C/4 entries:
// still under half full, so a growth step never starts while another is under way. Lookups look
// in both arrays. This is Redis's incremental rehashing.
//
// Why a spare, zeroed ahead: a growth step's new array is large (16 MiB at a million rows).
// Zero-filling it in one go at the step stalled every request behind the write lock (p99 34 ms in
// the benchmark). Taking it from calloc spread that cost over the inserts, but made each page's
// first touch a read (a probe): the kernel maps its shared zero page, and the write that follows
// copies it and flushes the TLB of every core, which in this VM cost ~2% of the MONTHLY
// purchase's CPU. So the array the next step will use is allocated shortly before the step and
// zeroed one page per insert (kBytesZeroedPerInsert): every page is written before it is read,
// the cost is still spread, and no single insert pays for the whole array. Arrays too small to
// matter (kSpareMinSlots) are zeroed at once.
//
// Linear probing: a probe ends at an empty slot. A drained slot of old_ becomes a tombstone, not
// empty, so ids placed past it in old_ are still found. Nothing is ever erased one by one:
// Table::Erase renumbers the rows and rebuilds the index.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "core/compact_string.hpp"

namespace emsim::model {

class IdIndex {
 public:
  static constexpr size_t kSlotsDrainedPerInsert = 4;  // one cache line of old_
  static constexpr size_t kBytesZeroedPerInsert = 4096;  // one page of the spare
  static constexpr size_t kSpareMinSlots = 16384;       // a live array of 128 KiB
  static constexpr size_t kSlotBytes = 8;
  static constexpr size_t npos = static_cast<size_t>(-1);

  // key_of(row) returns the id of that row, as something comparable with a std::string_view.

  // `id`: a std::string_view, or a core::CompactString (compared with the rows' ids as values).
  template <class Key, class KeyOf>
  size_t Find(const Key& id, const KeyOf& key_of) const {
    const std::uint32_t h = Hash(id);
    if (size_t row = Probe(live_, id, h, key_of); row != npos) return row;
    return old_.empty() ? npos : Probe(old_, id, h, key_of);
  }

  // Adds id -> row; false (and nothing changes but a growth step begun) when the id is there.
  template <class Key, class KeyOf>
  bool Insert(const Key& id, size_t row, const KeyOf& key_of) {
    if (row >= kMaxRow) throw std::length_error("IdIndex: more than 2^32 - 2 rows");
    if (old_.empty()) {
      if (2 * (live_size_ + 1) > live_.size()) Grow();
      else PrepareSpare();
    }
    const std::uint32_t h = Hash(id);
    if (!old_.empty() && Probe(old_, id, h, key_of) != npos) return false;
    const size_t mask = live_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = live_[i];
      if (s.row1 == kEmpty) {
        s = {h, static_cast<std::uint32_t>(row + 1)};
        ++live_size_;
        break;
      }
      if (s.hash == h && key_of(s.row1 - 1) == id) return false;
    }
    Drain(kSlotsDrainedPerInsert);
    return true;
  }

  size_t size() const { return live_size_ + old_size_; }

  void Clear() {
    live_ = SlotArray();
    old_ = SlotArray();
    spare_ = Spare();
    live_size_ = old_size_ = cursor_ = 0;
  }

  // Room for n entries without a growth step (bulk loads): finishes any step under way, then
  // moves the entries into an array of the final size at once.
  void Reserve(size_t n) {
    Drain(old_.size());
    if (2 * n <= live_.size()) return;
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    spare_ = Spare();
    SlotArray bigger(cap);
    for (size_t i = 0; i < live_.size(); ++i)
      if (live_[i].row1 != kEmpty) Place(bigger, live_[i]);
    live_ = std::move(bigger);
  }

  // For tests: entries still waiting in old_; bytes of the next step's array zeroed so far; the
  // live array's size.
  size_t Pending() const { return old_size_; }
  size_t SpareBytesZeroed() const { return spare_.zeroed; }
  size_t LiveSlots() const { return live_.size(); }

 private:
  struct Slot {
    std::uint32_t hash;
    std::uint32_t row1;  // row + 1; kEmpty, or kMoved
  };
  static_assert(sizeof(Slot) == kSlotBytes);
  static constexpr std::uint32_t kEmpty = 0;  // all zero bits, so zeroing an array empties it
  static constexpr std::uint32_t kMoved = ~std::uint32_t{0};  // a drained slot of old_
  static constexpr size_t kMaxRow = kMoved - 1;  // row + 1 must differ from kMoved

  // An array of slots from malloc: zero-filled (written page by page, never read first), or left
  // for the caller to zero (the spare). Copyable, as Table is.
  enum class Uninitialized { kYes };
  class SlotArray {
   public:
    SlotArray() = default;
    explicit SlotArray(size_t n) : SlotArray(n, Uninitialized::kYes) {
      if (n_) std::memset(static_cast<void*>(p_.get()), 0, n_ * sizeof(Slot));
    }
    SlotArray(size_t n, Uninitialized) : n_(n), p_(n ? static_cast<Slot*>(std::malloc(n * sizeof(Slot))) : nullptr) {
      if (n && !p_) throw std::bad_alloc();
    }
    SlotArray(const SlotArray& o) : SlotArray(o.n_, Uninitialized::kYes) {
      if (n_) std::memcpy(static_cast<void*>(p_.get()), o.p_.get(), n_ * sizeof(Slot));
    }
    SlotArray(SlotArray&& o) noexcept : n_(std::exchange(o.n_, 0)), p_(std::move(o.p_)) {}
    SlotArray& operator=(SlotArray o) noexcept {
      n_ = std::exchange(o.n_, 0);
      p_ = std::move(o.p_);
      return *this;
    }
    char* bytes() { return reinterpret_cast<char*>(p_.get()); }
    size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    Slot& operator[](size_t i) { return p_[i]; }
    const Slot& operator[](size_t i) const { return p_[i]; }

   private:
    struct Free {
      void operator()(Slot* p) const { std::free(p); }
    };
    size_t n_ = 0;
    std::unique_ptr<Slot[], Free> p_;
  };

  // core::IdHash: a CompactString id (a UUID's bits) and its text hash alike.
  static std::uint32_t Hash(std::string_view id) { return Fold(core::IdHash(id)); }
  template <std::same_as<core::CompactString> C>  // (a std::string converts to either)
  static std::uint32_t Hash(const C& id) { return Fold(id.IdHash()); }
  static std::uint32_t Fold(std::uint64_t h) { return static_cast<std::uint32_t>(h ^ (h >> 32)); }

  template <class Key, class KeyOf>
  static size_t Probe(const SlotArray& slots, const Key& id, std::uint32_t h, const KeyOf& key_of) {
    if (slots.empty()) return npos;
    const size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots[i];
      if (s.row1 == kEmpty) return npos;
      if (s.hash == h && s.row1 != kMoved && key_of(s.row1 - 1) == id) return s.row1 - 1;
    }
  }

  // Puts an entry known to be absent into an array with room (no key comparison needed).
  static void Place(SlotArray& slots, const Slot& s) {
    const size_t mask = slots.size() - 1;
    size_t i = s.hash & mask;
    while (slots[i].row1 != kEmpty) i = (i + 1) & mask;
    slots[i] = s;
  }

  // The next growth step's array, zeroed up to `zeroed` bytes. A copy of the index starts without
  // one (its bytes past `zeroed` are not initialized, so there is nothing to copy).
  struct Spare {
    SlotArray slots;
    size_t zeroed = 0;
    Spare() = default;
    Spare(const Spare&) {}
    Spare& operator=(const Spare&) {
      *this = Spare();
      return *this;
    }
    Spare(Spare&&) noexcept = default;
    Spare& operator=(Spare&&) noexcept = default;
  };

  // Called on an insert that does not start a growth step: once the live array is within size/64
  // entries of half full, allocates the spare and zeroes one more page of it. Zeroing it all takes
  // 2 * size * kSlotBytes / 4096 = size/256 inserts, so it ends well before the step.
  void PrepareSpare() {
    const size_t n = live_.size();
    if (n < kSpareMinSlots || 2 * (live_size_ + 1) + n / 32 <= n) return;
    if (spare_.slots.size() != 2 * n) {
      spare_.slots = SlotArray(2 * n, Uninitialized::kYes);
      spare_.zeroed = 0;
    }
    ZeroSpare(kBytesZeroedPerInsert);
  }

  void ZeroSpare(size_t bytes) {
    const size_t total = spare_.slots.size() * sizeof(Slot);
    const size_t end = std::min(total, spare_.zeroed + bytes);
    if (end > spare_.zeroed) std::memset(spare_.slots.bytes() + spare_.zeroed, 0, end - spare_.zeroed);
    spare_.zeroed = end;
  }

  void Grow() {
    old_ = std::move(live_);
    old_size_ = live_size_;
    const size_t n = old_.empty() ? 16 : 2 * old_.size();
    if (spare_.slots.size() == n) {
      ZeroSpare(n * sizeof(Slot));  // normally done already; the rest otherwise
      live_ = std::move(spare_.slots);
    } else {
      live_ = SlotArray(n);
    }
    spare_ = Spare();
    live_size_ = 0;
    cursor_ = 0;
    if (old_size_ == 0) old_ = SlotArray();
  }

  void Drain(size_t slots) {
    if (old_.empty()) return;
    for (const size_t end = std::min(old_.size(), cursor_ + slots); cursor_ < end; ++cursor_) {
      Slot& s = old_[cursor_];
      if (s.row1 == kEmpty || s.row1 == kMoved) continue;
      Place(live_, s);
      ++live_size_;
      --old_size_;
      s.row1 = kMoved;
    }
    if (cursor_ == old_.size()) {
      old_ = SlotArray();  // hands its memory back
      cursor_ = 0;
    }
  }

  SlotArray live_;  // size 0 or a power of two, at most half full
  SlotArray old_;   // during a growth step: the previous live array, draining
  size_t live_size_ = 0;
  size_t old_size_ = 0;
  size_t cursor_ = 0;  // old_'s slots below it are drained
  Spare spare_;
};

}  // namespace emsim::model
