#include "core/flat_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>

namespace emsim::core {
namespace {

// Every key's home is one of four slots: long probe runs that wrap past the array's end, so an
// erase has entries to move back across the wrap, and a lookup must walk past them.
size_t FewHomes(std::uint32_t key) { return (key % 4) * 17 + 60; }

// The table against std::unordered_map over random adds, finds and erases, through growth from
// empty, with every key checked at intervals (a key moved back by an erase into the wrong place,
// or left stranded behind a hole, is found missing or found when erased).
template <size_t (*Home)(std::uint32_t)>
void AnswersAsAMap(std::uint32_t key_range) {
  FlatTable<std::uint32_t, int, Home> table;
  std::unordered_map<std::uint32_t, int> map;
  std::mt19937 rng(11);
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t key = 1 + rng() % key_range;
    switch (rng() % 3) {
      case 0:
        ASSERT_EQ(table.Erase(key), map.erase(key) == 1) << key;
        break;
      default: {
        const auto [value, added] = table.Emplace(key, i);
        const auto [it, map_added] = map.emplace(key, i);
        ASSERT_EQ(added, map_added) << key;
        ASSERT_EQ(*value, it->second) << key;  // an existing key keeps its value
      }
    }
    if (i % 499 == 0) {
      for (std::uint32_t k = 1; k <= key_range; ++k) {
        const int* found = table.Find(k);
        const auto it = map.find(k);
        ASSERT_EQ(found != nullptr, it != map.end()) << k;
        if (found) {
          ASSERT_EQ(*found, it->second) << k;
        }
      }
      ASSERT_EQ(table.size(), map.size());
      std::map<std::uint32_t, int> listed;
      table.ForEach([&](std::uint32_t k, int v) { ASSERT_TRUE(listed.emplace(k, v).second) << k; });
      ASSERT_EQ(listed, (std::map<std::uint32_t, int>(map.begin(), map.end())));
    }
  }
}

TEST(FlatTable, AnswersAsAMapWouldThroughAddsAndErases) { AnswersAsAMap<FibonacciHome>(3000); }

TEST(FlatTable, AnswersAsAMapWouldWhenKeysCrowdIntoAFewHomes) { AnswersAsAMap<FewHomes>(40); }

TEST(FlatTable, ClearAndReserveKeepItAnswering) {
  FlatTable<std::uint64_t, std::int64_t, IdentityHome> table;
  EXPECT_EQ(table.Find(5), nullptr);
  EXPECT_FALSE(table.Erase(5));
  table.Reserve(1000);
  for (std::uint64_t k = 1; k <= 1000; ++k) ASSERT_TRUE(table.Emplace(k << 32, static_cast<std::int64_t>(k)).second);
  ASSERT_EQ(*table.Find(7ULL << 32), 7);
  table.Clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.Find(7ULL << 32), nullptr);
  ASSERT_TRUE(table.Emplace(7ULL << 32, 70).second);
  EXPECT_EQ(*table.Find(7ULL << 32), 70);
}

}  // namespace
}  // namespace emsim::core
