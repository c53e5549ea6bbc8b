#pragma once
// `emsim scenario run FILE...`. main() only forwards its arguments here.
#include <string>
#include <vector>


namespace emsim::cli {

// argv after "scenario"; answers the process exit code (0 all passed, 1 a scenario failed,
// 2 usage or a scenario file that does not parse).
int ScenarioCommand(const std::vector<std::string>& args);

}  // namespace emsim::cli
