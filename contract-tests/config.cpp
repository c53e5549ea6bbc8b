#include "config.hpp"

#include <cstdlib>
#include <cstring>
#include <map>

namespace contract {

const char* const kUsage = R"(emsim-contract-tests — does the service at a URL keep the contract of interface-spec.md?

Usage: emsim-contract-tests [flags] [--gtest_filter=...]

  --base-url URL             the service (env EMSIM_BASE_URL; default http://127.0.0.1:8080)
  --api-key KEY              account API key (env EMSIM_API_KEY); required unless the target is
                             emsim, where the suite takes a fresh isolated tenant
  --workspace-key ID         a workspace of that account to act on (env EMSIM_WORKSPACE_KEY)
  --webhook-receiver-url URL public URL that reaches the suite's webhook receiver
                             (env EMSIM_WEBHOOK_RECEIVER_URL); needed for Part 6 against a
                             real deployment, e.g. a tunnel to --receiver-port
  --receiver-host HOST       where the receiver listens (env EMSIM_RECEIVER_HOST; default 127.0.0.1)
  --receiver-port N          its port (env EMSIM_RECEIVER_PORT; default 0 = any free port)
  --allow-mutations          run checks that change data (env EMSIM_ALLOW_MUTATIONS=1)
  --allow-spending           run checks that cost money (env EMSIM_ALLOW_SPENDING=1)
  --upgrade-plan-key KEY     a plan key subscriptions.upgrade may move a subscription to
                             (env EMSIM_UPGRADE_PLAN_KEY); on emsim, read from its state
  --schemas DIR              the schemas folder: response schemas and the catalogue of operations
                             (env EMSIM_SCHEMAS_DIR; default: the checkout's schemas/)
  --timeout SECONDS          per request (env EMSIM_TIMEOUT; default 30)
  --ca-file FILE             PEM certificate(s) to trust for an https --base-url besides the
                             system's (env EMSIM_CA_FILE), e.g. emsim --tls-self-signed's
  --strict                   a value the spec has not seen (its "values seen" lists) or a field it
                             does not list fails the check; by default each is reported as a
                             NOTE line and passes, since a real deployment may have more
                             (env EMSIM_STRICT=1). Requests are always checked strictly
  --as-real-deployment       treat the target as a real deployment even if it is emsim (to check
                             that the suite changes nothing there unless allowed)

Against emsim (detected by GET /_sim/health) every check runs, including those that need the
control plane (clock, faults, sinks, state); nothing there is real money or real data. Against any
other target, checks that change data or spend money run only when allowed, and control-plane
checks are reported as skipped, each with the reason. Any GoogleTest flag works too
(--gtest_filter, --gtest_list_tests, --gtest_output=xml:FILE).
)";

namespace {

Config g_config;

bool Truthy(const char* v) {
  return v && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0 || std::strcmp(v, "yes") == 0);
}

std::string ParseInt(const std::string& flag, const std::string& v, int* out, int max) {
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 0 || n > max) return flag + " needs a whole number 0.." + std::to_string(max) + ", got '" + v + "'";
  *out = static_cast<int>(n);
  return "";
}

}  // namespace

const Config& Cfg() { return g_config; }
Config& MutableCfg() { return g_config; }

std::string ParseConfig(int& argc, char** argv, bool* help) {
  Config& c = g_config;
  c.schemasDir = std::string(EMSIM_SOURCE_DIR) + "/schemas";
  const std::map<std::string, std::string*> text = {
      {"--base-url", &c.baseUrl},           {"--api-key", &c.apiKey},
      {"--workspace-key", &c.workspaceKey}, {"--webhook-receiver-url", &c.webhookReceiverUrl},
      {"--receiver-host", &c.receiverHost}, {"--schemas", &c.schemasDir},
      {"--upgrade-plan-key", &c.upgradePlanKey}, {"--ca-file", &c.caFile},
  };
  const std::map<std::string, const char*> env = {
      {"--base-url", "EMSIM_BASE_URL"},           {"--api-key", "EMSIM_API_KEY"},
      {"--workspace-key", "EMSIM_WORKSPACE_KEY"}, {"--webhook-receiver-url", "EMSIM_WEBHOOK_RECEIVER_URL"},
      {"--receiver-host", "EMSIM_RECEIVER_HOST"}, {"--schemas", "EMSIM_SCHEMAS_DIR"},
      {"--upgrade-plan-key", "EMSIM_UPGRADE_PLAN_KEY"}, {"--ca-file", "EMSIM_CA_FILE"},
  };
  for (const auto& [flag, var] : env)
    if (const char* v = std::getenv(var); v && *v) *text.at(flag) = v;
  if (const char* v = std::getenv("EMSIM_RECEIVER_PORT"); v && *v) {
    if (auto e = ParseInt("EMSIM_RECEIVER_PORT", v, &c.receiverPort, 65535); !e.empty()) return e;
  }
  if (const char* v = std::getenv("EMSIM_TIMEOUT"); v && *v) {
    if (auto e = ParseInt("EMSIM_TIMEOUT", v, &c.timeoutSeconds, 3600); !e.empty()) return e;
  }
  c.allowMutations = Truthy(std::getenv("EMSIM_ALLOW_MUTATIONS"));
  c.allowSpending = Truthy(std::getenv("EMSIM_ALLOW_SPENDING"));
  c.strict = Truthy(std::getenv("EMSIM_STRICT"));

  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string flag = a, value;
    bool has_value = false;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--gtest", 0) != 0) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (flag == "--help" || flag == "-h") {
      *help = true;
      argv[out++] = argv[i];  // GoogleTest prints its own flags after ours
      continue;
    }
    if (flag == "--allow-mutations") { c.allowMutations = true; continue; }
    if (flag == "--allow-spending") { c.allowSpending = true; continue; }
    if (flag == "--as-real-deployment") { c.asRealDeployment = true; continue; }
    if (flag == "--strict") { c.strict = true; continue; }
    const bool known = text.count(flag) || flag == "--receiver-port" || flag == "--timeout";
    if (!known) {
      if (a.rfind("--gtest", 0) != 0 && a.rfind("--", 0) == 0) return "unknown flag " + a + " (see --help)";
      argv[out++] = argv[i];
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) return flag + " needs a value";
      value = argv[++i];
    }
    if (text.count(flag)) *text.at(flag) = value;
    else if (flag == "--receiver-port") { if (auto e = ParseInt(flag, value, &c.receiverPort, 65535); !e.empty()) return e; }
    else if (auto e = ParseInt(flag, value, &c.timeoutSeconds, 3600); !e.empty()) return e;
  }
  argc = out;
  argv[argc] = nullptr;
  while (!c.baseUrl.empty() && c.baseUrl.back() == '/') c.baseUrl.pop_back();
  if (c.baseUrl.rfind("http://", 0) != 0 && c.baseUrl.rfind("https://", 0) != 0)
    return "--base-url must start with http:// or https://, got '" + c.baseUrl + "'";
  return "";
}

}  // namespace contract
