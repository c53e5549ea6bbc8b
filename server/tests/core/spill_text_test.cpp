#include "core/spill_text.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace emsim::core {
namespace {

// A directory of the test's own, so the test can see that a spilled text leaves no file behind.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("emsim-spill-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  bool Empty() const { return std::filesystem::is_empty(path); }
};

TEST(SpillText, BelowItsLimitTheTextStaysInMemoryAndTouchesNoFile) {
  TempDir dir;
  SpillText out(1000, dir.path.string());
  out.text().append(999, 'a');
  out.Check();
  EXPECT_FALSE(out.spilled());
  EXPECT_EQ(out.TakeText(), std::string(999, 'a'));
  EXPECT_TRUE(dir.Empty());
}

TEST(SpillText, PastItsLimitTheTextGoesToAnUnnamedFileAndReadsBackWhole) {
  TempDir dir;
  SpillText out(64, dir.path.string());
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    const std::string piece = "{\"n\":" + std::to_string(i) + "},";
    out.text() += piece;
    expected += piece;
    out.Check();
    ASSERT_LT(out.text().size(), 64 + piece.size()) << "held more than the limit and one piece";
  }
  out.text() += "end";  // after the last Check: still part of the text
  expected += "end";
  ASSERT_TRUE(out.spilled());
  EXPECT_TRUE(dir.Empty()) << "the spill file has a name in " << dir.path;
  const std::shared_ptr<SpilledText> file = out.TakeFile();
  ASSERT_EQ(file->size(), expected.size());
  EXPECT_EQ(file->ReadAll(), expected);
  // Read back in pieces, as the HTTP layer sends it; a read past the end gives nothing.
  char piece[100];
  ASSERT_EQ(file->ReadAt(1000, piece, sizeof piece), sizeof piece);
  EXPECT_EQ(std::string(piece, sizeof piece), expected.substr(1000, 100));
  EXPECT_EQ(file->ReadAt(expected.size() - 3, piece, sizeof piece), 3u);
  EXPECT_EQ(file->ReadAt(expected.size(), piece, sizeof piece), 0u);
}

TEST(SpillText, AFileThatCannotBeMadeIsAnErrorNamingWhere) {
  SpillText out(8, "/nonexistent-emsim-dir");
  out.text() = "more than eight bytes";
  try {
    out.Check();
    FAIL() << "spilled into a directory that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-emsim-dir"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace emsim::core
