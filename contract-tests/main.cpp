// emsim-contract-tests: flags -> find out what the target is -> GoogleTest.
#include <iostream>

#include <gtest/gtest.h>

#include "client.hpp"
#include "config.hpp"
#include "contract.hpp"

namespace {

// emsim's default fixture account, used when the target is emsim, no --api-key was given and
// the emsim has no /_sim/tenants to hand out an isolated account.
constexpr const char* kEmsimFixtureKey = "emsim_test_alice_3f9c2a7b";

contract::Reply g_health;

// A full run against emsim (no filter, every effect allowed) must have checked a successful answer
// of every public operation of the catalogue against its response schema: a new catalogue line
// without a contract test fails here, naming it.
class CoverageCheck : public testing::Environment {
 public:
  void TearDown() override {
    const contract::Config& c = contract::Cfg();
    if (!c.isEmsim || testing::GTEST_FLAG(filter) != "*") return;
    std::string missing;
    for (const auto& op : contract::Operations())
      if (!contract::CheckedOperations().count(op.id)) missing += " " + op.id;
    if (!missing.empty())
      ADD_FAILURE() << "no contract test checked a successful answer of these operations of the catalogue "
                       "(schemas/operations.json) against their response schemas:" << missing;
  }
};

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
  try {
    contract::LoadContract(contract::Cfg().schemasDir);
  } catch (const std::exception& e) {
    std::cerr << "emsim-contract-tests: schemas: " << e.what() << "\n";
    return 2;
  }
  testing::AddGlobalTestEnvironment(new CoverageCheck);  // GoogleTest owns it
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
  const int rc = RUN_ALL_TESTS();
  if (!listing && contract::NoteCount() > 0)
    std::cout << contract::NoteCount() << " note(s): what the spec leaves open, done another way (NOTE lines above; --strict fails on them)\n";
  return rc;
}
