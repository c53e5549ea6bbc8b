// Integer reads from JSON (core/json.hpp): a number beyond the target type is refused with
// nlohmann's out_of_range, never cast (a cast from such a double is undefined behaviour, which a
// state document with `"date": 1.7e89` once reached), and within range they read as before.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/json.hpp"

namespace emsim {
namespace {

template <class T>
bool Refused(const json& j) {
  try {
    (void)j.get<T>();
    return false;
  } catch (const json::out_of_range& e) {
    EXPECT_EQ(e.id, 406);
    return true;
  }
}

TEST(JsonIntegers, DoublesBeyondTheTargetAreRefused) {
  EXPECT_TRUE(Refused<std::int64_t>(json(1.77778e89)));
  EXPECT_TRUE(Refused<std::int64_t>(json(-1e19)));
  EXPECT_TRUE(Refused<std::int64_t>(json(9223372036854775808.0)));  // 2^63
  EXPECT_TRUE(Refused<std::uint64_t>(json(-1.0)));
  EXPECT_TRUE(Refused<std::uint64_t>(json(18446744073709551616.0)));  // 2^64
  EXPECT_TRUE(Refused<int>(json(3e9)));
  EXPECT_TRUE(Refused<int>(json(std::numeric_limits<double>::infinity())));
  EXPECT_TRUE(Refused<int>(json(std::numeric_limits<double>::quiet_NaN())));
}

TEST(JsonIntegers, IntegersBeyondTheTargetAreRefusedNotWrapped) {
  EXPECT_TRUE(Refused<std::uint64_t>(json(-1)));
  EXPECT_TRUE(Refused<int>(json(std::int64_t{1} << 40)));
  EXPECT_TRUE(Refused<std::int64_t>(json(std::uint64_t{1} << 63)));
  EXPECT_TRUE(Refused<unsigned>(json(-5)));
}

TEST(JsonIntegers, ValuesInRangeReadAsBefore) {
  EXPECT_EQ(json(-9223372036854775807LL - 1).get<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(json(std::numeric_limits<std::uint64_t>::max()).get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(json(2147483647).get<int>(), 2147483647);
  EXPECT_EQ(json(1.9).get<int>(), 1);  // truncated, as nlohmann always did
  EXPECT_TRUE(Refused<std::uint64_t>(json(-0.5)));  // no negative number becomes an unsigned one
  EXPECT_EQ(json::parse(R"({"n": 42})").value("n", 0), 42);
  // to_json is unchanged: an integer stays an integer of the same sign.
  EXPECT_TRUE(json(std::int64_t{-3}).is_number_integer());
  EXPECT_TRUE(json(std::uint64_t{3}).is_number_unsigned());
  EXPECT_EQ(json(std::int64_t{-3}).dump(), "-3");
}

}  // namespace
}  // namespace emsim
