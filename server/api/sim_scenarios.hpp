#pragma once
#include "http/types.hpp"

namespace emsim::api {

// POST /_sim/scenarios/run: a scenario file (YAML) in the body, run on this live emsim; answers
// the report as JSON (200 whether the scenario passed or not: `passed` says which).
http::Reply SimRunScenario(http::Ctx& ctx);

}  // namespace emsim::api
