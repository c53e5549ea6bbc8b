#pragma once
// Runs a parsed scenario against an emsim through a Client (scenario/client.hpp): the same code
// drives a fresh in-process emsim (`emsim scenario run FILE`), one that is already running
// (`--base-url URL`, over HTTP), and the live emsim itself (POST /_sim/scenarios/run).
#include <functional>
#include <memory>
#include <string>

#include "scenario/ast.hpp"
#include "scenario/client.hpp"
#include "scenario/report.hpp"

namespace emsim::schema {
class Registry;
}

namespace emsim::scenario {

struct ScenarioRunOptions {
  // The emsim the scenario runs on (required).
  std::shared_ptr<Client> client;
  // true (a running emsim): POST /_sim/reset, then apply the header's fixtures / seed / clock
  // through PUT /_sim/state and PUT /_sim/clock, and put the clock mode back afterwards.
  // false: the emsim was just started from the header (in-process), nothing to prepare.
  bool prepare = true;
  // Response conformance (always checked when set): the registry of schemas/, and the operation
  // id of a method + path ("" when the path is not a public operation).
  const schema::Registry* schemas = nullptr;
  std::function<std::string(const std::string& method, const std::string& path)> operationOf;
  // The fixture `fixtures: default` means on a running emsim (loaded here, sent by PUT /_sim/state).
  std::string defaultFixture;
  // The emsim's admin token (--admin-token), sent as `Authorization: Bearer` on every request that
  // does not carry its own: its /_sim then needs it. Empty: none sent.
  std::string adminToken;
};

ScenarioReport RunScenario(const Scenario& scenario, const ScenarioRunOptions& options);

}  // namespace emsim::scenario
