#include "api/control/scenarios.hpp"

#include <filesystem>

#include "api/control/in_process_client.hpp"
#include "app/router.hpp"
#include "scenario/parse.hpp"

namespace emsim::api {

std::string OperationIdOf(const schema::Catalogue& operations, const std::string& method, const std::string& path) {
  const schema::Operation* op = operations.Match(method, path);
  return op && op->Public() ? op->id : "";
}

scenario::ScenarioRunOptions ScenarioOptionsFor(app::Services& svc) {
  scenario::ScenarioRunOptions o;
  // The runner's requests go straight into this emsim's pipeline (none over the network): the
  // run needs no worker thread or connection beyond the one it came in on.
  if (svc.pipeline) o.client = std::make_shared<InProcessClient>(*svc.pipeline);
  o.schemas = &svc.schemas;
  o.operationOf = [&ops = svc.schemas.Operations()](const std::string& method, const std::string& path) {
    return OperationIdOf(ops, method, path);
  };
  o.defaultFixture = svc.defaultFixture;
  o.adminToken = svc.options.adminToken;
  return o;
}

app::Reply SimRunScenario(app::Ctx& ctx) {
  const std::string& text = ctx.req.rawBody;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return model::Error::Validation("body", "send a scenario file (YAML, scenarios/README.md) as the body, with "
                                            "Content-Type: application/yaml");
  const std::string name = ctx.req.Query("name", "scenario.yaml");
  scenario::Scenario scenario;
  try {
    // Relative `fixtures:` paths name files of the repository's fixtures/ folder.
    scenario = scenario::ParseScenarioText(text, name,
                                      std::filesystem::path(ctx.svc.defaultFixture).parent_path().string());
  } catch (const scenario::ScenarioParseError& e) {
    return model::Error::Validation("body", e.what());
  }
  std::unique_lock lock(ctx.svc.scenarioRunMu, std::try_to_lock);
  if (!lock.owns_lock())
    return model::Error{model::ErrorCode::kTooManyRequests,
                        "Another scenario is running on this emsim; send this one when it has finished", {}};
  scenario::ScenarioRunOptions options = ScenarioOptionsFor(ctx.svc);
  options.prepare = true;
  return app::Json(scenario::ReportToJson(scenario::RunScenario(scenario, options)));
}

}  // namespace emsim::api
