#include "api/sim_scenarios.hpp"

#include <filesystem>

#include "app/app.hpp"
#include "app/scenario_command.hpp"
#include "sim/scenario_parse.hpp"

namespace emsim::api {

namespace {
// The runner holds one connection to this server, and emsim delivers webhooks to its own sinks
// over HTTP too: with fewer workers the run would wait on itself.
constexpr int kMinThreads = 4;
}  // namespace

http::Reply SimRunScenario(http::Ctx& ctx) {
  const std::string& text = ctx.req.rawBody;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return model::Error::Validation("body", "send a scenario file (YAML, scenarios/README.md) as the body, with "
                                            "Content-Type: application/yaml");
  const std::string name = ctx.req.Query("name", "scenario.yaml");
  sim::Scenario scenario;
  try {
    // Relative `fixtures:` paths name files of the repository's fixtures/ folder.
    scenario = sim::ParseScenarioText(text, name,
                                      std::filesystem::path(app::DefaultFixturePath()).parent_path().string());
  } catch (const sim::ScenarioParseError& e) {
    return model::Error::Validation("body", e.what());
  }
  if (ctx.svc.options.threads > 0 && ctx.svc.options.threads < kMinThreads)
    return model::Error::Validation("body", "running a scenario on this emsim needs --threads " +
                                                std::to_string(kMinThreads) + " or more");
  std::unique_lock lock(ctx.svc.scenarioRunMu, std::try_to_lock);
  if (!lock.owns_lock())
    return model::Error{model::ErrorCode::kTooManyRequests,
                        "Another scenario is running on this emsim; send this one when it has finished", {}};
  sim::ScenarioRunOptions options = app::ScenarioOptionsFor(ctx.svc);
  options.prepare = true;
  return http::Json(sim::ReportToJson(sim::RunScenario(scenario, options)));
}

}  // namespace emsim::api
