// SteppedMap: the same entries as a std::unordered_map through inserts, finds and erases of every
// kind, while its growth goes in steps (the live map's buckets never change while old entries are
// drained into it).
#include "model/stepped_map.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>

namespace emsim::model {
namespace {

TEST(SteppedMap, HoldsWhatAnUnorderedMapHoldsThroughGrowthSteps) {
  SteppedMap<std::int64_t> stepped;
  std::unordered_map<std::string, std::int64_t> plain;
  std::mt19937 rng(3);
  size_t steps = 0, step_writes = 0;
  bool was_stepping = false;
  size_t buckets_at_start = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::string key = "k" + std::to_string(rng() % 150000);
    switch (rng() % 8) {
      case 0:
        stepped.erase(key);
        plain.erase(key);
        break;
      case 1: {
        const std::int64_t* v = stepped.Find(key);
        auto it = plain.find(key);
        ASSERT_EQ(v != nullptr, it != plain.end()) << key;
        if (v) {
          ASSERT_EQ(*v, it->second) << key;
        }
        break;
      }
      default:
        stepped[key] += i;
        plain[key] += i;
    }
    ASSERT_EQ(stepped.size(), plain.size());
    if (stepped.Stepping()) {
      if (!was_stepping) {
        ++steps;
        buckets_at_start = stepped.LiveBuckets();
      }
      ++step_writes;
      ASSERT_EQ(stepped.LiveBuckets(), buckets_at_start) << "the live map rehashed while a step was draining";
    }
    was_stepping = stepped.Stepping();
  }
  EXPECT_GE(steps, 2u) << "the map never grew in steps";
  EXPECT_GT(step_writes, 0u);
  EXPECT_EQ(stepped.ToMap(), plain);
  stepped.clear();
  EXPECT_TRUE(stepped.empty());
  EXPECT_EQ(stepped.Find("k1"), nullptr);
}

}  // namespace
}  // namespace emsim::model
