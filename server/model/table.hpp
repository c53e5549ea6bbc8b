#pragma once
// Table<T>: records in insertion order (so every listing and dump is deterministic) with an
// id index. T's `id` is a std::string or a core::CompactString (comparable with a string_view).
//
// Change tracking (for durable state, runtime/persist.hpp): while Track(true) is on, the table
// notes the id of every row it hands out to change (Edit, Insert, Erase) and whether the whole
// table was (EditAll, Clear, Assign). That is a superset of what changed, which is what a durable
// copy needs. Find and iteration only read, whatever the constness of the table: what is noted is
// what the code said it would change. Off, it costs a branch.
//
// Rows live in a std::deque, not a vector: appending never moves existing rows. With a vector, the
// insert that crossed a power of two moved every row under the store's write lock (tens of ms at
// 100k placement orders), which every concurrent request then waited for (p99). The id
// index grows in small steps for the same reason (model/id_index.hpp).
#include <algorithm>
#include <concepts>
#include <deque>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/compact_string.hpp"
#include "model/id_index.hpp"

namespace emsim::model {

// What a table finds a record by: its id as text, or as a CompactString.
template <class K>
concept TableKey = std::same_as<K, core::CompactString> || std::convertible_to<const K&, std::string_view>;

template <class T>
class Table {
 public:
  // Edit, Find, Contains: by its text (a string, a view, a literal) or by a CompactString id,
  // which the index takes as it is (a UUID's bits: no text written to hash or compare it).
  // Edit is the record to change: noted as changed (so it is written again), unlike Find, which
  // only reads. Separate names, not const overloads: a non-const State made every Find a noted
  // change, so a purchase rewrote the mailboxes it only read.
  template <TableKey Key>
  T* Edit(const Key& id) {
    const size_t row = RowOf(id);
    if (row == IdIndex::npos) return nullptr;
    Note(row);
    return &rows_[row];
  }
  template <TableKey Key>
  const T* Find(const Key& id) const {
    const size_t row = RowOf(id);
    return row == IdIndex::npos ? nullptr : &rows_[row];
  }
  template <TableKey Key>
  bool Contains(const Key& id) const {
    return RowOf(id) != IdIndex::npos;
  }

  // Inserts a new record; a duplicate id is a bug in the caller (fixtures check ids first).
  T& Insert(T row) {
    // The row goes in first, so the index only ever names rows that exist; one hash lookup both
    // checks the id and indexes it (the hot path of loading a big fixture).
    rows_.push_back(std::move(row));
    bool fresh = false;
    try {
      fresh = index_.Insert(IdKey(rows_.back().id), rows_.size() - 1, KeyOf());
    } catch (...) {
      rows_.pop_back();
      throw;
    }
    if (!fresh) {
      std::string id = IdText(rows_.back().id).str();
      rows_.pop_back();
      throw std::logic_error("duplicate id " + id);
    }
    Note(rows_.size() - 1);
    return rows_.back();
  }

  // Removes a record, keeping the order of the others.
  bool Erase(const std::string& id) {
    const size_t row = index_.Find(id, KeyOf());
    if (row == IdIndex::npos) return false;
    PinNotes();
    Note(IdIndex::npos, id);
    rows_.erase(rows_.begin() + static_cast<std::ptrdiff_t>(row));
    Reindex();
    return true;
  }

  // Removes the records of `ids` (unknown ones are skipped) with one reindex, keeping the order
  // of the others.
  void EraseAll(const std::vector<std::string>& ids) {
    std::vector<bool> gone(rows_.size(), false);
    bool any = false;
    PinNotes();
    for (const auto& id : ids) {
      const size_t row = index_.Find(id, KeyOf());
      if (row == IdIndex::npos) continue;
      Note(IdIndex::npos, id);
      gone[row] = any = true;
    }
    if (!any) return;
    size_t i = 0;
    std::erase_if(rows_, [&](const T&) { return gone[i++]; });
    Reindex();
  }

  void Clear() {
    TouchAll();
    rows_.clear();
    index_.Clear();
  }
  void Reserve(size_t n) { index_.Reserve(n); }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  // Iteration only reads; EditAll is the whole table to change (every row noted).
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  std::deque<T>& EditAll() {
    TouchAll();
    return rows_;
  }
  const std::deque<T>& rows() const { return rows_; }
  const T& back() const { return rows_.back(); }

  // Many rows at once (a data dir's start reads them in place): each appended default-made and
  // filled by the caller, with no index entry, until IndexLoaded() indexes them all (throwing
  // std::invalid_argument on a duplicate id, as Assign does). Nothing may look rows up between.
  T& AppendForLoad() {
    TouchAll();
    return rows_.emplace_back();
  }
  void IndexLoaded() { Reindex(); }

  void Assign(std::vector<T> rows) {
    TouchAll();
    rows_.assign(std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    Reindex();
  }

 // ---- change tracking ---------------------------------------------------------------------------
  // Turning it on or off forgets what was noted.
  void Track(bool on) {
    tracking_ = on;
    touched_.clear();
    all_touched_ = false;
  }
  bool tracking() const { return tracking_; }
  // Hands what was noted since the last call to `each(id, row)` (id a std::string_view valid for
  // the call; row null: the id is gone) or,
  // when the whole table may have changed, answers true and hands nothing (the caller takes
  // every row); then forgets it. An id is handed once however often it was noted, in the order
  // it was first noted: rows inserted together reach the durable copy in the table's order, so a
  // restart lists them as before (sorted, two workspaces of a new tenant came back swapped).
  template <class F>
  bool TakeChanges(F&& each) {
    if (all_touched_) {
      all_touched_ = false;
      touched_.clear();
      return true;
    }
    // Rows noted by position while no erase has moved any (no lookup: each row of a purchase
    // was looked up again by its id here), else all by id.
    const bool by_id = std::any_of(touched_.begin(), touched_.end(), [](const Touch& t) { return t.row == IdIndex::npos; });
    if (by_id) PinNotes();
    auto same = [by_id](const Touch& a, const Touch& b) { return by_id ? a.id == b.id : a.row == b.row; };
    auto hand = [&](const Touch& t) {
      if (by_id) return each(std::string_view(t.id), Find(t.id));
      const IdText id(rows_[t.row].id);
      each(id.view, &rows_[t.row]);
    };
    if (touched_.size() <= kScanUpTo) {
      // A write notes a few rows (a purchase's orders): repeats found by a scan, not a hash set.
      for (auto t = touched_.begin(); t != touched_.end(); ++t)
        if (std::none_of(touched_.begin(), t, [&](const Touch& u) { return same(u, *t); })) hand(*t);
    } else if (by_id) {
      std::unordered_set<std::string_view> handed;
      handed.reserve(touched_.size());
      for (const auto& t : touched_)
        if (handed.insert(t.id).second) hand(t);
    } else {
      std::unordered_set<size_t> handed;
      handed.reserve(touched_.size());
      for (const auto& t : touched_)
        if (handed.insert(t.row).second) hand(t);
    }
    touched_.clear();
    return false;
  }

 private:
  static constexpr size_t kScanUpTo = 8;
  // The row of `id`, or IdIndex::npos: the one lookup behind Find and Contains.
  template <TableKey Key>
  size_t RowOf(const Key& id) const {
    if constexpr (std::same_as<Key, core::CompactString>) return index_.Find(id, KeyOf());
    else return index_.Find(std::string_view(id), KeyOf());
  }
  // The index keeps row numbers only; it reads an id from its row to confirm a hash match.
  auto KeyOf() const {
    return [this](size_t row) -> const auto& { return rows_[row].id; };
  }
  using IdText = core::TextOf;  // a row's id as text
  // A row's id as the index takes it: a CompactString as it is, a std::string as a view.
  static const core::CompactString& IdKey(const core::CompactString& id) { return id; }
  static std::string_view IdKey(const std::string& id) { return id; }
  void Reindex() {
    index_.Clear();
    index_.Reserve(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i)
      if (!index_.Insert(IdKey(rows_[i].id), i, KeyOf()))
        throw std::invalid_argument("duplicate id " + IdText(rows_[i].id).str());
  }
  // A noted row: by its position (no text made, no lookup later) until an erase moves rows; then,
  // and for an erased row, by its id.
  struct Touch {
    size_t row;      // IdIndex::npos: noted by `id`
    std::string id;
  };
  void Note(size_t row, std::string id = {}) {
    // Once the whole table is to be written, nothing needs noting (and positions noted could go
    // stale: EditAll hands out the rows themselves).
    if (tracking_ && !all_touched_) touched_.push_back({row, std::move(id)});
  }
  void TouchAll() {
    all_touched_ = tracking_;
    touched_.clear();
  }
  // Before rows move: the positions noted so far become ids.
  void PinNotes() {
    for (auto& t : touched_)
      if (t.row != IdIndex::npos) {
        t.id = IdText(rows_[t.row].id).str();
        t.row = IdIndex::npos;
      }
  }
  std::deque<T> rows_;
  IdIndex index_;
  bool tracking_ = false;
  bool all_touched_ = false;
  std::vector<Touch> touched_;
};

}  // namespace emsim::model
