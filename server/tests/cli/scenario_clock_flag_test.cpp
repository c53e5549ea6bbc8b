// `emsim scenario run --clock real|manual` runs every file in that clock mode, whatever its
// `clock:` header says: CI runs all scenario files in both modes with it.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/scenario_command.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

namespace fs = std::filesystem;

TEST(ScenarioCommand, ClockFlagOverridesTheHeadersMode) {
  const fs::path dir = fs::temp_directory_path() / ("emsim_clockflag_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "mode.yaml").string();
  std::ofstream(file) << "name: mode\nclock: {mode: manual}\nsteps:\n"
                         "  - GET: /_sim/clock\n    expect: {body: {mode: real}}\n";
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int as_written = cli::ScenarioCommand({"run", file});
  const int on_real = cli::ScenarioCommand({"run", file, "--clock", "real"});
  const int on_manual = cli::ScenarioCommand({"run", file, "--clock", "manual"});
  const int bad = cli::ScenarioCommand({"run", file, "--clock", "fast"});
  ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(as_written, 1) << "the header says manual";
  EXPECT_EQ(on_real, 0);
  EXPECT_EQ(on_manual, 1);
  EXPECT_EQ(bad, 2);
  EXPECT_NE(err.find("--clock must be real or manual, got 'fast'"), std::string::npos) << err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace emsim::testing
