#include "cli/serve_flags.hpp"

#include <algorithm>
#include <cctype>

#include "core/time.hpp"

namespace emsim::cli {

namespace {

using app::Options;

// One row per flag: a switch (no value) or a flag with a value, and what it does to Options.
struct FlagSpec {
  const char* flag;
  bool isSwitch;
  std::function<void(Options&, const std::string& value, const std::string& name)> apply;
};

}  // namespace

long long WholeNumber(const std::string& name, const std::string& v, long long min, long long max) {
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || n < 0)
    throw FlagError(name + " needs a non-negative whole number, got '" + v + "'");
  if (n < min || (max >= 0 && n > max))
    throw FlagError(name + " must be " + std::to_string(min) + ".." + std::to_string(max) + ", got '" + v + "'");
  return n;
}

namespace {

bool SwitchValue(const std::string& name, const std::string& v) {
  std::string lower = v;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower.empty() || lower == "0" || lower == "false" || lower == "no" || lower == "off") return false;
  throw FlagError(name + " is a switch: 1, true, yes or on turns it on; 0, false, no, off or empty leaves it off; got '" + v + "'");
}

void NonEmpty(const std::string& name, const std::string& v) {
  if (v.empty()) throw FlagError(name + " needs a value");
}

const std::vector<FlagSpec>& Flags() {
  static const std::vector<FlagSpec> flags = {
      {"--host", false, [](Options& o, const std::string& v, const std::string& n) { NonEmpty(n, v); o.host = v; }},
      {"--port", false, [](Options& o, const std::string& v, const std::string& n) { o.port = static_cast<int>(WholeNumber(n, v, 0, 65535)); }},
      {"--fixtures", false, [](Options& o, const std::string& v, const std::string&) { o.fixtures = v; }},
      {"--state", false, [](Options& o, const std::string& v, const std::string&) { o.stateFile = v; }},
      {"--schemas", false, [](Options& o, const std::string& v, const std::string&) { o.schemasDir = v; }},
      {"--clock", false,
       [](Options& o, const std::string& v, const std::string& n) {
         if (v == "real") o.clockMode = runtime::ClockMode::kReal;
         else if (v == "manual") o.clockMode = runtime::ClockMode::kManual;
         else throw FlagError(n + " must be real or manual, got '" + v + "'");
       }},
      {"--start-time", false,
       [](Options& o, const std::string& v, const std::string& n) {
         auto t = model::ParseIso(v);
         if (!t) throw FlagError(n + " must be an ISO 8601 UTC time like 2026-01-01T09:00:00.000Z, got '" + v + "'");
         o.startTime = *t;
       }},
      {"--seed", false, [](Options& o, const std::string& v, const std::string& n) { o.seed = static_cast<std::uint64_t>(WholeNumber(n, v)); }},
      {"--log-format", false,
       [](Options& o, const std::string& v, const std::string& n) {
         if (v != "text" && v != "json") throw FlagError(n + " must be text or json, got '" + v + "'");
         o.logFormat = v;
       }},
      {"--log-level", false,
       [](Options& o, const std::string& v, const std::string& n) {
         if (v != "debug" && v != "info" && v != "warn" && v != "error")
           throw FlagError(n + " must be debug, info, warn or error, got '" + v + "'");
         o.logLevel = v;
       }},
      {"--journal-size", false, [](Options& o, const std::string& v, const std::string& n) { o.journalCapacity = static_cast<size_t>(WholeNumber(n, v)); }},
      {"--retain-events", false, [](Options& o, const std::string& v, const std::string& n) { o.retainEvents = static_cast<size_t>(WholeNumber(n, v)); }},
      {"--warm-indexes", false, [](Options& o, const std::string& v, const std::string& n) { o.warmIndexes = static_cast<size_t>(WholeNumber(n, v)); }},
      {"--base-url", false, [](Options& o, const std::string& v, const std::string&) { o.baseUrl = v; }},
      {"--data-dir", false, [](Options& o, const std::string& v, const std::string& n) { NonEmpty(n, v); o.dataDir = v; }},
      {"--durability", false,
       [](Options& o, const std::string& v, const std::string& n) {
         if (v == "full") o.durability = runtime::Durability::kFull;
         else if (v == "process") o.durability = runtime::Durability::kProcess;
         else throw FlagError(n + " must be full or process, got '" + v + "'");
       }},
      {"--shard-id", false,
       [](Options& o, const std::string& v, const std::string& n) {
         // Letters and digits only: the shard is the second `_`-separated field of a key, and
         // proxies and backend names take it as it is.
         const bool ok = !v.empty() && v.size() <= 32 &&
                         std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
         if (!ok) throw FlagError(n + " must be 1 to 32 letters and digits, got '" + v + "'");
         o.shardId = v;
       }},
      {"--admin-token", false, [](Options& o, const std::string& v, const std::string&) { o.adminToken = v; }},
      {"--max-body-bytes", false, [](Options& o, const std::string& v, const std::string& n) { o.maxBodyBytes = static_cast<size_t>(WholeNumber(n, v)); }},
      {"--max-state-bytes", false, [](Options& o, const std::string& v, const std::string& n) { o.maxStateBytes = static_cast<size_t>(WholeNumber(n, v)); }},
      {"--max-connections", false, [](Options& o, const std::string& v, const std::string& n) { o.maxConnections = static_cast<int>(WholeNumber(n, v, 1, 100000)); }},
      {"--idle-timeout-ms", false, [](Options& o, const std::string& v, const std::string& n) { o.idleTimeoutMs = static_cast<int>(WholeNumber(n, v, 1, 3600000)); }},
      {"--header-timeout-ms", false, [](Options& o, const std::string& v, const std::string& n) { o.headerTimeoutMs = static_cast<int>(WholeNumber(n, v, 1, 3600000)); }},
      {"--threads", false, [](Options& o, const std::string& v, const std::string& n) { o.threads = static_cast<int>(WholeNumber(n, v, 0, 100000)); }},
      {"--webhook-timeout-ms", false, [](Options& o, const std::string& v, const std::string& n) { o.webhookTimeoutMs = WholeNumber(n, v, 1, 3600000); }},
      {"--sign-with-simulated-time", true, [](Options& o, const std::string& v, const std::string& n) { o.signWithSimulatedTime = SwitchValue(n, v); }},
      {"--strict-webhook-urls", true, [](Options& o, const std::string& v, const std::string& n) { o.strictWebhookUrls = SwitchValue(n, v); }},
      {"--webhook-ca-file", false, [](Options& o, const std::string& v, const std::string&) { o.webhookCaFile = v; }},
      {"--tls-cert", false, [](Options& o, const std::string& v, const std::string& n) { NonEmpty(n, v); o.tlsCert = v; }},
      {"--tls-key", false, [](Options& o, const std::string& v, const std::string& n) { NonEmpty(n, v); o.tlsKey = v; }},
      {"--tls-self-signed", true, [](Options& o, const std::string& v, const std::string& n) { o.tlsSelfSigned = SwitchValue(n, v); }},
      {"--rate-limit", true, [](Options& o, const std::string& v, const std::string& n) { o.rateLimit = SwitchValue(n, v); }},
      {"--rate-limit-per-second", false, [](Options& o, const std::string& v, const std::string& n) { o.rateLimits.perSecond = WholeNumber(n, v, 1, 1000000000); }},
      {"--rate-limit-per-minute", false, [](Options& o, const std::string& v, const std::string& n) { o.rateLimits.perMinute = WholeNumber(n, v, 1, 1000000000); }},
      {"--rate-limit-availability", false, [](Options& o, const std::string& v, const std::string& n) { o.rateLimits.availabilityPer30Min = WholeNumber(n, v, 1, 1000000000); }},
      {"--webhook-insecure", true, [](Options& o, const std::string& v, const std::string& n) { o.webhookInsecure = SwitchValue(n, v); }},
  };
  return flags;
}

const FlagSpec* Find(std::string_view flag) {
  for (const auto& f : Flags())
    if (flag == f.flag) return &f;
  return nullptr;
}

}  // namespace

std::string EnvName(std::string_view flag) {
  std::string name = "EMSIM_";
  for (char c : flag.substr(flag.rfind("--", 0) == 0 ? 2 : 0))
    name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

Options ParseServeFlags(const std::vector<std::string>& args, const Getenv& getenv) {
  Options o;
  // Variables first, so that a flag given on the command line overrides its variable.
  for (const auto& f : Flags()) {
    const std::string var = EnvName(f.flag);
    if (const char* v = getenv(var.c_str())) f.apply(o, v, var);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string flag = a, value;
    const auto eq = a.find('=');
    if (eq != std::string::npos) flag = a.substr(0, eq);
    const FlagSpec* spec = Find(flag);
    if (!spec) throw FlagError("unknown flag '" + a + "' (see emsim serve --help)");
    if (spec->isSwitch) {
      value = eq == std::string::npos ? "1" : a.substr(eq + 1);
    } else if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else {
      if (i + 1 >= args.size()) throw FlagError(a + " needs a value (see emsim serve --help)");
      value = args[++i];
    }
    spec->apply(o, value, flag);
  }
  return o;
}

std::string ServeEnvHelp() {
  std::string out =
      "Environment variables: each flag can be given as a variable instead (a flag on the command\n"
      "line wins over its variable); a switch's variable takes 1/true/yes/on or 0/false/no/off/empty.\n"
      "EMSIM_SHARE_DIR names the directory holding schemas/ and fixtures/ (default: found beside\n"
      "the binary, ../share/emsim for an installed emsim).\n";
  for (const auto& f : Flags()) {
    std::string line = "  " + std::string(f.flag);
    line.resize(std::max<size_t>(line.size() + 1, 30), ' ');
    out += line + EnvName(f.flag) + "\n";
  }
  return out;
}

}  // namespace emsim::cli
