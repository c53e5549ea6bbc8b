#pragma once
// A hash table from nonzero unsigned keys to small values, flat: (key, value) slots in one
// power-of-two array, found by linear probing from the key's home slot, at most 3/4 full. An erase
// moves the entries after it in its probe run back into the hole (no tombstones, so a table that
// sees many erases never slows down). std::unordered_map allocates a node per entry and finds its
// bucket by a modulo by a prime: in a loop that looks a key up per byte of text (the trigram
// index, model/text_search) or per row (the data file's rowids, runtime/persist), the node's cache
// miss and the modulo were most of the time.
//
// `Home` spreads a key over the slots: only its low bits are used (slot = Home(key) & mask), so a
// key that is already a good hash is its own home, and a small key needs mixing first (FibonacciHome).
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace emsim::core {

// Fibonacci hashing: the product's high bits depend on every bit of the key (its low bits only on
// the key's low bits).
inline size_t FibonacciHome(std::uint32_t key) {
  return static_cast<size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ULL) >> 32);
}
inline size_t FibonacciHome64(std::uint64_t key) {  // bits 32-63 of the product depend on all of the key's
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32);
}
inline size_t IdentityHome(std::uint64_t key) { return static_cast<size_t>(key); }

template <std::unsigned_integral Key, class Value, size_t (*Home)(Key)>
class FlatTable {
 public:
  // `key`'s value, or nullptr. Key 0 is never stored (it marks an empty slot).
  const Value* Find(Key key) const {
    if (used_ == 0) return nullptr;
    const Slot& slot = slots_[SlotOf(key)];
    return slot.key == 0 ? nullptr : &slot.value;
  }
  Value* Find(Key key) { return const_cast<Value*>(std::as_const(*this).Find(key)); }

  // Adds `key` with `value` and answers {its value, true}; or, when `key` is there, answers
  // {its value, false} and changes nothing. The pointer is valid until the next Emplace or Erase.
  std::pair<Value*, bool> Emplace(Key key, const Value& value) {
    if ((used_ + 1) * 4 > slots_.size() * 3) Grow(slots_.empty() ? kMinSlots : slots_.size() * 2);
    Slot& slot = slots_[SlotOf(key)];
    if (slot.key != 0) return {&slot.value, false};
    slot = {key, value};
    ++used_;
    return {&slot.value, true};
  }

  // False when `key` is not there.
  bool Erase(Key key) {
    if (used_ == 0) return false;
    const size_t mask = slots_.size() - 1;
    size_t hole = SlotOf(key);
    if (slots_[hole].key == 0) return false;
    // An entry after the hole moves into it when the hole lies on its probe path: between its home
    // and where it is, cyclically.
    for (size_t i = (hole + 1) & mask; slots_[i].key != 0; i = (i + 1) & mask) {
      const size_t home = Home(slots_[i].key) & mask;
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole] = Slot{};
    --used_;
    return true;
  }

  void Clear() {
    slots_.clear();
    used_ = 0;
  }
  // Room for `entries` without growing.
  void Reserve(size_t entries) {
    size_t slots = kMinSlots;
    while (slots * 3 < entries * 4) slots *= 2;
    if (slots > slots_.size()) Grow(slots);
  }
  size_t size() const { return used_; }

  // f(key, value) for every entry, in slot order (no order a caller may rely on).
  template <class F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_)
      if (s.key != 0) f(s.key, s.value);
  }

 private:
  static constexpr size_t kMinSlots = 64;
  struct Slot {
    Key key = 0;
    Value value{};
  };
  // Where `key` is, or the empty slot its probe ends at (the table is never full).
  size_t SlotOf(Key key) const {
    const size_t mask = slots_.size() - 1;
    size_t i = Home(key) & mask;
    while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & mask;
    return i;
  }
  void Grow(size_t slots) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(slots, Slot{});
    for (const Slot& s : old)
      if (s.key != 0) slots_[SlotOf(s.key)] = s;
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace emsim::core
