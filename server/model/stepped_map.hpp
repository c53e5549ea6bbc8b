#pragma once
// SteppedMap<V>: a std::unordered_map<std::string, V> whose growth never rehashes every entry in
// one insert.
//
// Why: the indexes a write adds to under the store's lock (whether a domain name or a mailbox
// username is taken) hold an entry per domain or mailbox. std::unordered_map rehashes all its nodes
// when it grows, and at millions of nodes that is hundreds of ms (a cache miss per node) during
// which every request waits: the soak's p99 of 290 ms at 1.7 M domain purchases and 776 ms at 3 M
// mailboxes. Here, when the live map is about to grow, it becomes `old_`, a new live map reserved
// for twice its entries takes over, and each later insert moves kMovedPerInsert nodes from old_
// (node handles: no allocation, no copy of a key or value). Arithmetic as IdIndex's: old_ holds n
// entries, drained after n / kMovedPerInsert inserts, by when the live map holds at most
// n + n / kMovedPerInsert < 2n: it never grows while old_ is draining. Lookups look in both.
// Small maps (under kSteppedFrom entries) grow as std::unordered_map does.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>

namespace emsim::model {

template <class V>
class SteppedMap {
 public:
  using Map = std::unordered_map<std::string, V>;
  static constexpr size_t kMovedPerInsert = 8;
  static constexpr size_t kSteppedFrom = 4096;

  V* Find(const std::string& key) {
    if (auto it = live_.find(key); it != live_.end()) return &it->second;
    if (!old_.empty())
      if (auto it = old_.find(key); it != old_.end()) return &it->second;
    return nullptr;
  }
  const V* Find(const std::string& key) const { return const_cast<SteppedMap*>(this)->Find(key); }
  bool contains(const std::string& key) const { return Find(key) != nullptr; }
  size_t size() const { return live_.size() + old_.size(); }
  bool empty() const { return size() == 0; }

  // The entry of `key`, made (value-initialized) when there is none.
  V& operator[](const std::string& key) {
    Step();
    if (auto it = live_.find(key); it != live_.end()) return it->second;
    GrowIfFull();
    if (!old_.empty())
      if (auto node = old_.extract(key)) return live_.insert(std::move(node)).position->second;
    return live_.try_emplace(key).first->second;
  }
  void erase(const std::string& key) {
    if (live_.erase(key) == 0 && !old_.empty()) old_.erase(key);
  }
  void clear() {
    Map().swap(live_);
    Map().swap(old_);
  }
  void reserve(size_t n) { live_.reserve(n); }

  // Whether a growth step is under way (entries in both maps; tests).
  bool Stepping() const { return !old_.empty(); }
  // The live map's buckets (tests: it must not change while a step drains).
  size_t LiveBuckets() const { return live_.bucket_count(); }

  // Every entry, in no particular order.
  template <class F>
  void ForEach(F&& f) const {
    for (const auto& [k, v] : live_) f(k, v);
    for (const auto& [k, v] : old_) f(k, v);
  }
  // A plain copy (for comparisons in tests and IndexProblems).
  Map ToMap() const {
    Map out;
    out.reserve(size());
    ForEach([&](const std::string& k, const V& v) { out.emplace(k, v); });
    return out;
  }

 private:
  // Before an insert into live_: when it would make live_ rehash everything, start a step instead.
  void GrowIfFull() {
    const auto capacity = static_cast<size_t>(static_cast<double>(live_.bucket_count()) * live_.max_load_factor());
    if (live_.size() + 1 <= capacity || live_.size() < kSteppedFrom) return;
    while (!old_.empty()) Step();  // not reached by the arithmetic above; kept for safety
    old_ = std::move(live_);
    live_ = Map();
    live_.reserve(2 * old_.size());
  }
  void Step() {
    if (old_.empty()) return;
    for (size_t i = 0; i < kMovedPerInsert && !old_.empty(); ++i) live_.insert(old_.extract(old_.begin()));
    if (old_.empty()) Map().swap(old_);  // its bucket array too
  }

  Map live_, old_;
};

}  // namespace emsim::model
