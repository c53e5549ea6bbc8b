#pragma once
// `emsim scenario run FILE...` and what POST /_sim/scenarios/run shares with it: the runner's
// view of this build (its schemas and route table). main() only forwards its arguments here.
#include <string>
#include <vector>

#include "app/services.hpp"
#include "sim/scenario_run.hpp"

namespace emsim::app {

// The operation id of a public route ("domains.list"), or "" (unknown path, or /_sim).
std::string OperationIdOf(const std::string& method, const std::string& path);

// Runner options for the emsim `svc` belongs to: its schemas, the route table, and the live
// server's own address.
sim::ScenarioRunOptions ScenarioOptionsFor(Services& svc);

// argv after "scenario"; answers the process exit code (0 all passed, 1 a scenario failed,
// 2 usage or a scenario file that does not parse).
int ScenarioCommand(const std::vector<std::string>& args);

}  // namespace emsim::app
