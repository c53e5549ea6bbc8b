#include "core/text.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace emsim::model {
namespace {

// Every comparison that ignores case (list filters, the search indexes' trigrams, names taken)
// folds with AsciiLower: it must fold exactly as std::tolower does in the C locale, which the
// answers were written against, for every byte (UTF-8's bytes above 0x7F stay as they are).
TEST(Text, TheOneFoldIsTheCLocalesToLowerForEveryByte) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    EXPECT_EQ(static_cast<unsigned char>(AsciiLower(c)), std::tolower(b)) << "byte " << b;
  }
  EXPECT_EQ(ToLower("Caf\xC3\x89 ABC-xyz"), "caf\xC3\x89 abc-xyz");
  EXPECT_TRUE(ContainsFolded("Theo.JONES@Northwind.io", "jones@north"));
  EXPECT_FALSE(ContainsFolded("caf\xC3\x89", "caf\xC3\xA9"));  // é and É differ: not ASCII
  EXPECT_TRUE(EqualsFolded("Chunked", "chunKED"));
  EXPECT_TRUE(EqualsFolded("", ""));
  EXPECT_FALSE(EqualsFolded("chunked", "chunked "));
  EXPECT_FALSE(EqualsFolded("caf\xC3\x89", "caf\xC3\xA9"));
}

}  // namespace
}  // namespace emsim::model
