// IdIndex (model/id_index.hpp): Table's id index, which grows in bounded steps so that no insert
// under the store's write lock rehashes the whole index.
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/id_index.hpp"
#include "model/table.hpp"

namespace emsim::model {
namespace {

// The index keeps row numbers and reads ids from the rows; here the "rows" are a vector of ids.
struct Rows {
  std::vector<std::string> ids;
  auto KeyOf() const {
    return [this](size_t row) -> const std::string& { return ids[row]; };
  }
};

// Random inserts, duplicate inserts, lookups and clears, checked after every step against a
// std::map doing the same: the index answers like a plain map through every growth step,
// including ids placed past a slot that a growth step has already drained.
TEST(IdIndex, AnswersLikeAMapThroughGrowthSteps) {
  std::mt19937 rng(7);
  IdIndex index;
  Rows rows;
  std::map<std::string, size_t> expected;
  size_t saw_pending = 0, found_while_pending = 0;
  for (int step = 0; step < 80000; ++step) {
    const std::string id = "id-" + std::to_string(rng() % 30000);
    const unsigned op = rng() % 100;
    if (op < 70) {
      const size_t row = rows.ids.size();
      rows.ids.push_back(id);
      const bool fresh = expected.emplace(id, row).second;
      ASSERT_EQ(index.Insert(id, row, rows.KeyOf()), fresh) << id;
    } else if (op == 99 && step % 13 == 0) {
      index.Clear();
      expected.clear();
    } else {
      const size_t row = index.Find(id, rows.KeyOf());
      auto it = expected.find(id);
      ASSERT_EQ(row != IdIndex::npos, it != expected.end()) << id;
      if (it != expected.end()) {
        ASSERT_EQ(row, it->second);
        if (index.Pending() > 0) ++found_while_pending;
      }
    }
    ASSERT_EQ(index.size(), expected.size());
    saw_pending = std::max(saw_pending, index.Pending());
    if (step % 9973 == 0 && !expected.empty()) {
      // A copy (Table and State are copied) answers alike, growth step under way or not.
      const IdIndex copy = index;
      ASSERT_EQ(copy.size(), index.size());
      ASSERT_EQ(copy.Pending(), index.Pending());
      for (const auto& [known, row] : expected) ASSERT_EQ(copy.Find(known, rows.KeyOf()), row) << known;
    }
  }
  EXPECT_GT(saw_pending, 1000u) << "the test never looked up entries while a growth step was under way";
  EXPECT_GT(found_while_pending, 200u) << "too few lookups of present ids during growth steps";
  for (const auto& [id, row] : expected) ASSERT_EQ(index.Find(id, rows.KeyOf()), row) << id;
  EXPECT_EQ(index.Find("id-never", rows.KeyOf()), IdIndex::npos);
}

// The bound itself: while old entries wait, an insert moves at most one cache line of them, and
// the old array is drained before the live one needs to grow again.
TEST(IdIndex, EachInsertMovesABoundedNumberOfEntries) {
  IdIndex index;
  Rows rows;
  size_t max_moved = 0, steps = 0;
  for (size_t i = 0; i < 200000; ++i) {
    rows.ids.push_back("k" + std::to_string(i));
    const size_t before = index.Pending();
    ASSERT_TRUE(index.Insert(rows.ids.back(), i, rows.KeyOf()));
    const size_t after = index.Pending();
    if (after < before) max_moved = std::max(max_moved, before - after);
    // A growth step hands the whole live array over at once (a move, O(1)) and only then drains.
    if (after > before) {
      ++steps;
      EXPECT_EQ(before, 0u) << "a growth step started before the last one finished";
    }
  }
  EXPECT_GE(steps, 10u);
  EXPECT_GT(max_moved, 0u);
  EXPECT_LE(max_moved, IdIndex::kSlotsDrainedPerInsert);
  EXPECT_EQ(index.size(), 200000u);
  for (size_t i = 0; i < 200000; i += 997) EXPECT_EQ(index.Find("k" + std::to_string(i), rows.KeyOf()), i);
  // A bulk reserve finishes any step and leaves room: the next inserts start none.
  index.Reserve(300000);
  EXPECT_EQ(index.Pending(), 0u);
  for (size_t i = 200000; i < 300000; ++i) {
    rows.ids.push_back("k" + std::to_string(i));
    ASSERT_TRUE(index.Insert(rows.ids.back(), i, rows.KeyOf()));
    ASSERT_EQ(index.Pending(), 0u);
  }
  EXPECT_EQ(index.Find("k123456", rows.KeyOf()), 123456u);
}

// The array a growth step moves to is zeroed ahead, a page per insert, and is ready when the step
// starts: no insert zeroes a whole array, and no page of it is read before it is written.
TEST(IdIndex, TheNextStepsArrayIsZeroedAheadAPagePerInsert) {
  IdIndex index;
  Rows rows;
  size_t big_steps = 0;
  for (size_t i = 0; i < 100000; ++i) {
    rows.ids.push_back("z" + std::to_string(i));
    const size_t zeroed_before = index.SpareBytesZeroed(), slots_before = index.LiveSlots();
    ASSERT_TRUE(index.Insert(rows.ids.back(), i, rows.KeyOf()));
    if (index.LiveSlots() != slots_before) {  // this insert started a growth step
      if (slots_before >= IdIndex::kSpareMinSlots) {
        ++big_steps;
        EXPECT_EQ(zeroed_before, 2 * slots_before * IdIndex::kSlotBytes) << "the spare was not ready at " << slots_before << " slots";
      }
      EXPECT_EQ(index.SpareBytesZeroed(), 0u);
    } else {
      ASSERT_LE(index.SpareBytesZeroed() - std::min(index.SpareBytesZeroed(), zeroed_before),
                IdIndex::kBytesZeroedPerInsert);
    }
  }
  EXPECT_GE(big_steps, 4u);  // from 16384 slots to 32768, ..., 262144
  for (size_t i = 0; i < 100000; i += 101) EXPECT_EQ(index.Find("z" + std::to_string(i), rows.KeyOf()), i);
  // A copy made while the spare is half zeroed does not take it, and grows correctly on its own.
  while (index.SpareBytesZeroed() == 0) {
    rows.ids.push_back("z" + std::to_string(rows.ids.size()));
    ASSERT_TRUE(index.Insert(rows.ids.back(), rows.ids.size() - 1, rows.KeyOf()));
  }
  IdIndex copy = index;
  EXPECT_EQ(copy.SpareBytesZeroed(), 0u);
  const size_t slots = copy.LiveSlots();
  for (size_t i = rows.ids.size(); copy.LiveSlots() == slots; ++i) {
    rows.ids.push_back("z" + std::to_string(i));
    ASSERT_TRUE(copy.Insert(rows.ids.back(), i, rows.KeyOf()));
  }
  for (size_t i = 0; i < rows.ids.size(); i += 7) EXPECT_EQ(copy.Find(rows.ids[i], rows.KeyOf()), i);
}

struct Row {
  std::string id;
  int v = 0;
};

TEST(IdIndex, TableKeepsRowsAndIndexTogether) {
  Table<Row> t;
  for (int i = 0; i < 5000; ++i) t.Insert({"r" + std::to_string(i), i});
  EXPECT_THROW(t.Insert({"r42", -1}), std::logic_error);
  EXPECT_EQ(t.size(), 5000u) << "a refused duplicate leaves no row behind";
  EXPECT_EQ(t.Find("r42")->v, 42);
  EXPECT_TRUE(t.Erase("r10"));
  EXPECT_FALSE(t.Contains("r10"));
  EXPECT_EQ(t.Find("r4999")->v, 4999);
  EXPECT_EQ(t.Find("r11")->v, 11);
  EXPECT_EQ(t.size(), 4999u);
  Table<Row> copy = t;  // the State is copied (baseline, tenants): the index must come along
  EXPECT_EQ(copy.Find("r4321")->v, 4321);
}

}  // namespace
}  // namespace emsim::model
