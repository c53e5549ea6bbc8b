// emsim-contract-tests: flags -> find out what the target is -> GoogleTest.
#include <iostream>

#include <gtest/gtest.h>

#include "client.hpp"
#include "config.hpp"

namespace {

// emsim's default fixture account, used when the target is emsim, no --api-key was given and
// the emsim has no /_sim/tenants to hand out an isolated account.
constexpr const char* kEmsimFixtureKey = "emsim_test_alice_3f9c2a7b";

contract::Reply g_health;

void Detect() {
  contract::Config& c = contract::MutableCfg();
  contract::Reply health = contract::Sim("GET", "/_sim/health");
  g_health = health;
  c.isEmsim = health.status == 200 && health.isJson && health.body.is_object() &&
              health.body.value("status", "") == "ok" && health.body.contains("version");
  if (c.isEmsim && c.asRealDeployment) {
    c.isEmsim = false;
    return;
  }
  if (c.isEmsim) c.emsimVersion = health.body["version"].is_string() ? health.body["version"].get<std::string>() : "";
  if (!c.isEmsim || !c.apiKey.empty()) return;
  // An isolated tenant keeps the suite's changes away from other users of the same emsim.
  contract::Reply tenant = contract::Sim("POST", "/_sim/tenants", nlohmann::json::object());
  if (tenant.status == 201 || tenant.status == 200) {
    if (tenant.isJson && tenant.body.value("apiKey", "") != "") {
      c.apiKey = tenant.body["apiKey"];
      c.apiKeyFromEmsim = true;
      return;
    }
  }
  c.apiKey = kEmsimFixtureKey;
  c.apiKeyFromEmsim = true;
}

}  // namespace

int main(int argc, char** argv) {
  bool help = false;
  if (std::string err = contract::ParseConfig(argc, argv, &help); !err.empty()) {
    std::cerr << "emsim-contract-tests: " << err << "\n";
    return 2;
  }
  if (help) std::cout << contract::kUsage << "\n";
  testing::InitGoogleTest(&argc, argv);
  if (help) return 0;
  const bool listing = testing::GTEST_FLAG(list_tests);
  if (!listing) {
    Detect();
    const contract::Config& c = contract::Cfg();
    if (c.apiKey.empty()) {
      if (g_health.status == 0)
        std::cerr << "emsim-contract-tests: " << c.baseUrl << " does not answer (" << g_health.transportError << ")\n";
      else
        std::cerr << "emsim-contract-tests: " << c.baseUrl
                  << " is not emsim (GET /_sim/health did not answer like emsim): pass --api-key (or EMSIM_API_KEY)\n";
      return 2;
    }
    std::cout << "target " << c.baseUrl << ": "
              << (c.isEmsim ? "emsim " + c.emsimVersion : std::string(c.asRealDeployment ? "treated as a real deployment" : "not emsim"))
              << (c.apiKeyFromEmsim ? " (API key from emsim)" : "")
              << "; mutations " << (c.isEmsim || c.allowMutations ? "run" : "skipped")
              << "; spending " << (c.isEmsim || c.allowSpending ? "runs" : "skipped")
              << "; schemas " << c.schemasDir << "\n";
  }
  return RUN_ALL_TESTS();
}
