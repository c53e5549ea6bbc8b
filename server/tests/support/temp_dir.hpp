#pragma once
// A fresh directory under /tmp for one test, removed with everything in it when the test ends.
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace emsim::testing {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/emsim-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace emsim::testing
