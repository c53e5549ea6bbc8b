// IdIndex (model/id_index.hpp): Table's id index, which grows in bounded steps so that no insert
// under the store's write lock rehashes the whole index (issue 7).
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "model/id_index.hpp"
#include "model/table.hpp"

namespace emsim::model {
namespace {

// Random inserts, duplicate inserts, erases, lookups and clears, checked after every step
// against a std::map doing the same: the index answers like a plain map through every growth step.
TEST(IdIndex, AnswersLikeAMapThroughGrowthSteps) {
  std::mt19937 rng(7);
  IdIndex index;
  std::map<std::string, size_t> expected;
  size_t saw_pending = 0;
  for (int step = 0; step < 60000; ++step) {
    const std::string id = "id-" + std::to_string(rng() % 20000);
    const unsigned op = rng() % 100;
    if (op < 70) {
      const bool fresh = expected.emplace(id, static_cast<size_t>(step)).second;
      ASSERT_EQ(index.Insert(id, static_cast<size_t>(step)), fresh) << id;
    } else if (op < 85) {
      ASSERT_EQ(index.Erase(id), expected.erase(id) == 1) << id;
    } else if (op == 99 && step % 7 == 0) {
      index.Clear();
      expected.clear();
    } else {
      const size_t* row = index.Find(id);
      auto it = expected.find(id);
      ASSERT_EQ(row != nullptr, it != expected.end()) << id;
      if (row) {
        ASSERT_EQ(*row, it->second);
      }
    }
    ASSERT_EQ(index.size(), expected.size());
    saw_pending = std::max(saw_pending, index.Pending());
  }
  EXPECT_GT(saw_pending, 1000u) << "the test never looked up entries while a growth step was under way";
  for (const auto& [id, row] : expected) {
    const size_t* got = index.Find(id);
    ASSERT_NE(got, nullptr) << id;
    EXPECT_EQ(*got, row);
  }
}

// The bound itself: while old entries wait, each insert moves at most kMovesPerInsert of them,
// and the old map is empty before the live one needs to grow again.
TEST(IdIndex, EachInsertMovesABoundedNumberOfEntries) {
  IdIndex index;
  size_t max_moved = 0;
  for (size_t i = 0; i < 200000; ++i) {
    const size_t before = index.Pending();
    ASSERT_TRUE(index.Insert("k" + std::to_string(i), i));
    const size_t after = index.Pending();
    if (after < before) max_moved = std::max(max_moved, before - after);
    // A growth step hands the whole live map over at once (a move, O(1)) and only then drains.
    if (after > before) {
      EXPECT_EQ(before, 0u) << "a growth step started before the last one finished";
    }
  }
  EXPECT_EQ(max_moved, IdIndex::kMovesPerInsert);
  EXPECT_EQ(index.size(), 200000u);
  for (size_t i = 0; i < 200000; i += 997) EXPECT_EQ(*index.Find("k" + std::to_string(i)), i);
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
