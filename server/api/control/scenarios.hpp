#pragma once
#include <string>

#include "app/types.hpp"
#include "schema/catalogue.hpp"
#include "scenario/run.hpp"

namespace emsim::api {

// POST /_sim/scenarios/run: a scenario file (YAML) in the body, run on this live emsim; answers
// the report as JSON (200 whether the scenario passed or not: `passed` says which).
app::Reply SimRunScenario(app::Ctx& ctx);

// What POST /_sim/scenarios/run and `emsim scenario run` share: the runner's view of this build.
// The operation id of the public operation of the catalogue a request calls ("domains.list"), or
// "" (unknown path, or /_sim: no response schema to check its answer against).
std::string OperationIdOf(const schema::Catalogue& operations, const std::string& method, const std::string& path);
// Runner options for the emsim `svc` belongs to: its schemas, the route table, and a client that
// calls its pipeline in-process.
scenario::ScenarioRunOptions ScenarioOptionsFor(app::Services& svc);

}  // namespace emsim::api
