#pragma once
// Table<T>: records in insertion order (so every listing and dump is deterministic) with an
// id index. T must have a std::string `id`.
//
// Rows live in a std::deque, not a vector: appending never moves existing rows. With a vector, the
// insert that crossed a power of two moved every row under the store's write lock (tens of ms at
// 100k placement orders), which every concurrent request then waited for (issue 7, p99).
#include <deque>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace emsim::model {

template <class T>
class Table {
 public:
  T* Find(const std::string& id) {
    auto it = index_.find(id);
    return it == index_.end() ? nullptr : &rows_[it->second];
  }
  const T* Find(const std::string& id) const {
    auto it = index_.find(id);
    return it == index_.end() ? nullptr : &rows_[it->second];
  }
  bool Contains(const std::string& id) const { return index_.count(id) != 0; }

  // Inserts a new record; a duplicate id is a bug in the caller (fixtures check ids first).
  T& Insert(T row) {
    // One hash lookup for the check and the insert (the hot path of loading a big fixture).
    const auto [it, fresh] = index_.try_emplace(row.id, rows_.size());
    if (!fresh) throw std::logic_error("duplicate id " + row.id);
    try {
      rows_.push_back(std::move(row));
    } catch (...) {
      index_.erase(it);  // no index entry without its row
      throw;
    }
    return rows_.back();
  }

  // Removes a record, keeping the order of the others.
  bool Erase(const std::string& id) {
    auto it = index_.find(id);
    if (it == index_.end()) return false;
    rows_.erase(rows_.begin() + static_cast<std::ptrdiff_t>(it->second));
    Reindex();
    return true;
  }

  void Clear() { rows_.clear(); index_.clear(); }
  void Reserve(size_t n) { index_.reserve(n); }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  auto begin() { return rows_.begin(); }
  auto end() { return rows_.end(); }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  const std::deque<T>& rows() const { return rows_; }
  const T& back() const { return rows_.back(); }

  void Assign(std::vector<T> rows) {
    rows_.assign(std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    Reindex();
  }

 private:
  void Reindex() {
    index_.clear();
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (!index_.emplace(rows_[i].id, i).second) throw std::invalid_argument("duplicate id " + rows_[i].id);
    }
  }
  std::deque<T> rows_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace emsim::model
