#pragma once
// What the harnesses share: the checkout's folders, and the one rule for what counts as a finding.
// libFuzzer reports a crash, a sanitizer error, a timeout, running out of memory, or an exception
// that escapes the harness (std::terminate): a harness lets escape exactly the exceptions that
// would reach a user as a 5xx or stop emsim at start-up.
#include <cstdio>
#include <cstdlib>
#include <string>

namespace emsim::fuzz {

inline std::string SourceDir() {
  const char* env = std::getenv("EMSIM_SOURCE_DIR");
  return env && *env ? env : EMSIM_SOURCE_DIR;
}

// A finding that is not a crash by itself (a wrong answer): print why, then abort so libFuzzer
// keeps the input as a crash artifact.
[[noreturn]] inline void Finding(const std::string& what) {
  std::fprintf(stderr, "\n==emsim-fuzz== FINDING: %s\n", what.c_str());
  std::abort();
}

}  // namespace emsim::fuzz
