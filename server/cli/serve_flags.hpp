#pragma once
// `emsim serve`'s flags and their environment variables, in one table: every flag --foo-bar can
// also be given as EMSIM_FOO_BAR (containers and CI configure by environment), and a flag on the
// command line wins over its variable. main() parses with it; tests call it directly.
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "app/services.hpp"

namespace emsim::cli {

// A flag or variable emsim cannot use; the message names it and what it needs.
struct FlagError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The value of flag or variable `name` as a whole number in min..max (max -1: no upper bound);
// FlagError naming `name` otherwise. Every numeric flag of emsim's commands reads through it.
long long WholeNumber(const std::string& name, const std::string& v, long long min = 0, long long max = -1);

// "--log-format" -> "EMSIM_LOG_FORMAT".
std::string EnvName(std::string_view flag);

// Reads the variables (through getenv, so tests pass their own), then the arguments. Throws
// FlagError. `--help` is not a flag here: main() looks for it first.
using Getenv = std::function<const char*(const char*)>;
app::Options ParseServeFlags(const std::vector<std::string>& args, const Getenv& getenv);

// The "Environment variables" part of `emsim serve --help`: every flag with its variable.
std::string ServeEnvHelp();

}  // namespace emsim::cli
