#pragma once
// IdIndex: id -> row number, for Table<T>, that never rehashes all of itself in one insert.
//
// Why: a std::unordered_map rehashes every entry when it crosses its load factor. Under the
// store's write lock that stalled every concurrent request: 20 ms at 42k placement orders, 45 ms
// at 85k (the three tables a purchase writes cross the line on the same request), and it was the
// whole of the MONTHLY purchase's p99 in the benchmark (issue 7).
//
// How: when the live map is about to grow, it becomes `old_` and a fresh map, reserved for twice
// its size, becomes the live one. Every later insert moves kMovesPerInsert entries from old_ to the
// live map (node handles: no key is copied, no node allocated). The live map has room for
// 2N entries and receives at most 1 + kMovesPerInsert per insert while it drains the N old
// ones, so old_ is empty long before the live map is full, and the live map itself never
// rehashes: the only bulk work left is reserve() on an empty map (allocating its buckets).
// Lookups look in both maps. This is Redis's incremental rehashing, on top of std::unordered_map.
#include <algorithm>
#include <cstddef>
#include <string>
#include <unordered_map>

namespace emsim::model {

class IdIndex {
 public:
  static constexpr size_t kMovesPerInsert = 2;

  const size_t* Find(const std::string& id) const {
    if (auto it = live_.find(id); it != live_.end()) return &it->second;
    if (old_.empty()) return nullptr;
    auto it = old_.find(id);
    return it == old_.end() ? nullptr : &it->second;
  }
  size_t* Find(const std::string& id) {
    return const_cast<size_t*>(static_cast<const IdIndex&>(*this).Find(id));
  }
  bool Contains(const std::string& id) const { return Find(id) != nullptr; }
  size_t size() const { return live_.size() + old_.size(); }

  // Adds id -> row; false (and nothing changes) when the id is already there.
  bool Insert(const std::string& id, size_t row) {
    if (old_.empty() && live_.size() + 1 > live_.bucket_count() * live_.max_load_factor()) {
      old_ = std::move(live_);  // a growth step begins (harmless even if `id` turns out a duplicate)
      live_ = Map();
      live_.max_load_factor(old_.max_load_factor());
      live_.reserve(std::max<size_t>(2 * old_.size(), 16));
    }
    if (!old_.empty() && old_.find(id) != old_.end()) return false;
    // One lookup checks and inserts; it cannot rehash: reserved above (see the header comment).
    if (!live_.try_emplace(id, row).second) return false;
    Drain(kMovesPerInsert);
    return true;
  }

  bool Erase(const std::string& id) { return live_.erase(id) + old_.erase(id) != 0; }

  void Clear() {
    live_.clear();
    old_ = Map();
  }

  // Room for n entries without any growth step (bulk loads).
  void Reserve(size_t n) {
    Drain(old_.size());
    live_.reserve(n);
  }

  // For tests: entries still waiting in the old map.
  size_t Pending() const { return old_.size(); }

 private:
  using Map = std::unordered_map<std::string, size_t>;

  void Drain(size_t n) {
    for (; n > 0 && !old_.empty(); --n) live_.insert(old_.extract(old_.begin()));
    if (old_.empty() && old_.bucket_count() > 1) old_ = Map();  // hand its buckets back
  }

  Map live_;
  Map old_;
};

}  // namespace emsim::model
