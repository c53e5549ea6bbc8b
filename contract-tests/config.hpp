#pragma once
// What the suite is pointed at, from flags or environment variables of the same meaning, plus
// what it found out at start-up (is the target emsim?). Filled once by main() before the tests
// run; tests read it through Cfg().
#include <string>
#include <vector>

namespace contract {

struct Config {
  std::string baseUrl = "http://127.0.0.1:8080";  // --base-url, EMSIM_BASE_URL
  std::string apiKey;                            // --api-key, EMSIM_API_KEY
  std::string workspaceKey;                      // --workspace-key, EMSIM_WORKSPACE_KEY (optional)
  std::string webhookReceiverUrl;  // --webhook-receiver-url, EMSIM_WEBHOOK_RECEIVER_URL: the public URL
                                   // that reaches the suite's receiver (a real deployment cannot
                                   // reach 127.0.0.1); empty: http://127.0.0.1:<its port>
  std::string receiverHost = "127.0.0.1";  // --receiver-host, EMSIM_RECEIVER_HOST
  int receiverPort = 0;                    // --receiver-port, EMSIM_RECEIVER_PORT (0: any free port)
  bool allowMutations = false;             // --allow-mutations, EMSIM_ALLOW_MUTATIONS=1
  bool allowSpending = false;              // --allow-spending, EMSIM_ALLOW_SPENDING=1
  std::string schemasDir;                  // --schemas, EMSIM_SCHEMAS_DIR (default: the checkout's schemas/):
                                           // response schemas and operations.json
  std::string upgradePlanKey;              // --upgrade-plan-key, EMSIM_UPGRADE_PLAN_KEY: a plan key for
                                           // subscriptions.upgrade (no operation lists plans)
  int timeoutSeconds = 30;                 // --timeout, EMSIM_TIMEOUT
  std::string caFile;                      // --ca-file, EMSIM_CA_FILE: PEM CA(s) to trust for an https
                                           // --base-url (emsim --tls-self-signed's certificate)
  bool strict = false;  // --strict, EMSIM_STRICT=1: what the spec leaves open (a value beyond the
                        // values it has seen, a field it does not list) fails instead of a note
  bool asRealDeployment = false;  // --as-real-deployment: treat an emsim like any other target (the
                                  // suite's own self-test: does it keep its hands off?)

  // Found out at start-up.
  bool isEmsim = false;        // GET /_sim/health answered like emsim
  std::string emsimVersion;
  bool apiKeyFromEmsim = false;  // no --api-key: the suite took an isolated tenant from emsim
};

const Config& Cfg();
Config& MutableCfg();

// Parses flags (removing the ones it knows from argv) after reading the environment. Answers
// an error text, or "" when all is well. `--help` sets *help.
std::string ParseConfig(int& argc, char** argv, bool* help);

extern const char* const kUsage;

}  // namespace contract
