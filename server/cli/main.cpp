// flags -> App -> listen; nothing else.
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/listen_command.hpp"
#include "cli/proxy_command.hpp"
#include "cli/scenario_command.hpp"
#include "cli/serve_flags.hpp"
#include "cli/sim_commands.hpp"
#include "cli/state_command.hpp"
#include "model/money.hpp"
#include "runtime/log.hpp"
#include "core/time.hpp"
#include "fixture/fixture_gen.hpp"

// jemalloc's options, read at its start (the server binary links jemalloc; without it this is an
// unused string). MALLOC_CONF in the environment is read after them and overrides any.
// - thp:always: the heap on transparent huge pages (madvise). A world grows by every write it
//   keeps, and each new 4 KiB page is a fault: 13-15 us each on the VM the benchmarks run on, a
//   fifth of a purchase's CPU. With 2 MiB pages: the stateful POST 65-85% -> 80-97% of the bare
//   server, a 1 M-mailbox fixture ready in 8.8 s instead of 12-14 s (bench/README.md).
// - percpu_arena:percpu: an arena per CPU, not four: each arena's first huge pages are resident
//   at once, and a fresh emsim with four per CPU held 50 MiB instead of 19; per CPU, 25 MiB.
extern "C" {
__attribute__((used)) const char* malloc_conf = "thp:always,percpu_arena:percpu";
}

namespace {

constexpr const char* kUsage = R"(emsim — a stateful simulator of the Email Infrastructure Management Service

Usage:
  emsim serve [flags]      start the simulator (see `emsim serve --help`)
  emsim fixtures generate [flags]
                           write a synthetic fixture of any size to stdout
                           (see `emsim fixtures generate --help`)
  emsim scenario run FILE...  run scenario files (see `emsim scenario --help`)
  emsim proxy --target URL [flags]
                           a shadow proxy: forwards every request to a real deployment, answers
                           with its answer, replays the request on an emsim of its own and
                           reports how the two differ (see `emsim proxy --help`)
  emsim state dump|load --url URL [FILE]
                           take a running emsim's world as a document, or load one into it
                           (see `emsim state --help`)

The webhook developer's workflow (README "The webhook developer's workflow"):
  emsim listen --forward-to URL [--events T1,T2] [--url URL] [--api-key KEY]
                           register a webhook endpoint on a running emsim and forward its
                           deliveries, signature untouched, to a local app; Ctrl-C disables
                           the endpoint (see `emsim listen --help`)
  emsim clock show|advance DURATION|set ISO
  emsim events list|show EVT_ID|resend EVT_ID [--endpoint ID]
  emsim deliveries list [--event ID] [--endpoint ID] [--status S]
  emsim trigger EVENT_TYPE [--object ID] [--api-key KEY]
                           thin clients of /_sim (--url or EMSIM_URL, --admin-token or
                           EMSIM_ADMIN_TOKEN, --json for the raw document; see `emsim clock --help`)
  Exit codes: 0 success; 1 the emsim answered an error (message on stderr); 2 usage error or
  the emsim is unreachable.

  emsim --help             this text
  emsim --version          print the version
)";

constexpr const char* kServeUsage = R"(Usage: emsim serve [flags]

  --host HOST             address to listen on (default 127.0.0.1)
  --port N                port (default 8080); 0 picks a free port, printed in the ready line
  --fixtures FILE         seed data (default: fixtures/default.yaml of the share dir, below)
  --state FILE            boot from a GET /_sim/state?secrets=true document (JSON or YAML) instead
                          of the fixtures; a reset returns to it (its clock.epochMs starts a manual clock)
  --schemas DIR           JSON Schemas (default: schemas/ of the share dir)
  --clock real|manual     real: follows the wall clock; manual: frozen until POST /_sim/clock/advance
                          (default real)
  --start-time ISO        manual clock start, e.g. 2026-01-01T09:00:00.000Z
                          (default: the fixture's clock.start)
  --seed N                every generated id and value is reproducible from it (default 1)
  --log-format text|json  log line format on stderr (default text); json: every line, the
                          ready line on stdout included, is one JSON object
  --log-level LEVEL       debug|info|warn|error (default info): info logs one line per request
                          and per webhook delivery attempt; warn and error only problems
  --journal-size N        requests kept by GET /_sim/requests (default 1000)
  --retain-events N       events, webhook delivery attempts, notifications and wallet movements
                          kept: the newest N of each, older ones dropped (default 100000; 0 keeps all)
  --warm-indexes N        build the search indexes (mailbox and domain `contains`, the mailbox
                          search) of each workspace with N or more records of a kind once the
                          world is loaded, not at its first search (default 10000; 0: never)
  --base-url URL          public URL used in links emsim hands out (default http://HOST:PORT,
                          https:// when serving TLS)

HTTPS (README "HTTPS"):
  --tls-cert FILE         serve https with this PEM certificate (chain) ...
  --tls-key FILE          ... and its PEM private key
  --tls-self-signed       make a certificate for localhost (and 127.0.0.1, ::1) at start and serve
                          https with it; its path is printed in the ready line (tls-certificate=),
                          for clients to trust (curl --cacert PATH). Written to --tls-cert and
                          --tls-key when given, else to a directory removed when emsim stops

Durable state (README "Persistence"):
  --data-dir DIR          keep the world in DIR/emsim.db (SQLite, WAL): every answer to a change
                          is sent once the change is on disk, and a restart (even after kill -9)
                          opens the world as it was. A new DIR starts from the fixtures. Also read
                          Default: in memory only
  --durability full|process
                          full: an answer survives a power cut (synchronous=FULL, the default);
                          process: it survives emsim being killed, not the machine (NORMAL)

Scale out (README "Many emsims"):
  --shard-id NAME         letters and digits; every API key this emsim mints (POST /_sim/tenants)
                          is emsim_NAME_..., so a proxy routes by the key (deploy/haproxy.cfg);
                          GET /_sim/health names it (default: test)

Security and limits:
  --admin-token TOKEN     every /_sim request then needs 'Authorization: Bearer TOKEN' (else 401);
                          required when --host is not loopback (emsim refuses to start without it).
                          GET /_sim/state masks secrets (API keys, webhook secrets, passwords)
                          unless asked with ?secrets=true.
  --max-body-bytes N      request bodies above this get 413, refused from Content-Length before
                          they are read (chunked: while read) (default 1048576)
  --max-state-bytes N     the same for the two routes that take a whole world: PUT /_sim/state
                          and POST /_sim/scenarios/run, and for the file of --state
                          (default 536870912)
  --max-connections N     open connections served at once; one more gets 503 and is closed
                          (default 2048; each holds a thread while open)
  --idle-timeout-ms N     a keep-alive connection idle this long is closed (default 5000)
  --header-timeout-ms N   a request line and headers must arrive within this (counted from the
                          connect for a connection's first request), else 408 and close
                          (default 10000)
  --threads N             HTTP worker threads started at once (default 8); more are started on
                          demand, up to one per open connection

Rate limits (off by default; the real service's published limits, from its public reference):
  --rate-limit            per API key: 429 {status, message, errorId} with Retry-After (seconds)
                          beyond the limits below; windows slide on the simulated clock; /_sim
                          is never limited
  --rate-limit-per-second N   (default 5)     --rate-limit-per-minute N   (default 200)
  --rate-limit-availability N POST /v1/domain/available per 30 minutes (default 100)

Webhook delivery (Part 6):
  --webhook-timeout-ms N  timeout of one delivery attempt (default 10000, the spec's 10 s)
  --sign-with-simulated-time
                          X-Service-Signature t= from the simulated clock (default: wall clock,
                          so receivers with a 5-minute tolerance accept it under a manual clock)
  --strict-webhook-urls   endpoint URLs must be https, even for loopback hosts, and deliveries
                          go only to public addresses: private, loopback, link-local and
                          unspecified ones are refused after DNS resolution (the refusal is the
                          attempt's error) (default: http allowed for localhost, 127.0.0.0/8, [::1])
  --webhook-ca-file FILE  PEM CA bundle to verify https receivers with (self-signed test receivers)
  --webhook-insecure      do not verify https receivers' certificates at all

emsim prints one line when ready and stops cleanly on SIGINT or SIGTERM.
)";

constexpr const char* kGenerateUsage = R"(Usage: emsim fixtures generate [flags] > big.yaml

Writes a synthetic fixture (fixtures/README.md format) to stdout: by default a short file whose
`generate:` mapping emsim expands in memory at load (100k mailboxes load in well under a second).
The same flags always give the same state. Start emsim on it with `emsim serve --fixtures big.yaml`.

  --mailboxes N             mailboxes in all, spread evenly over the accounts (default 1000)
  --accounts N              accounts acc_gen_00001.., API keys emsim_gen_00001.. (default 1),
                            each with one default workspace ws_gen_00001.. and at least one domain
  --mailboxes-per-domain N  (default 5); domains gen-0000001.example.com..
  --emails-per-mailbox N    mailbox search corpus (default 1)
  --placement-credits N     MONTHLY placement-test credits per account (default 1000000000)
  --wallet DOLLARS          wallet of each account, e.g. 1000000.00 (default)
  --expand                  write every record as YAML instead of a `generate:` mapping (same state;
                            readable and editable; ~8 MB and ~0.25 s to load per 10k mailboxes)
)";

[[noreturn]] void Die(const std::string& msg) {
  std::cerr << "emsim: " << msg << "\n";
  std::exit(2);
}

long long ParseNumber(const std::string& flag, const std::string& v) {
  try {
    return emsim::cli::WholeNumber(flag, v);
  } catch (const emsim::cli::FlagError& e) {
    Die(e.what());
  }
}

int Serve(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << kServeUsage << "\n" << emsim::cli::ServeEnvHelp();
      return 0;
    }
  }
  emsim::app::Options o;
  try {
    o = emsim::cli::ParseServeFlags(args, [](const char* name) { return std::getenv(name); });
  } catch (const emsim::cli::FlagError& e) {
    Die(e.what());
  }

  sigset_t signals = emsim::cli::BlockStopSignals();

  try {
    emsim::cli::App app(o);
    const int port = app.Start();
    const auto& svc = app.services();
    const std::string tls_cert = app.tlsCertificate();
    const std::string url = (tls_cert.empty() ? "http://" : "https://") + o.host + ":" + std::to_string(port);
    if (o.logFormat == "json") {
      // --log-format json: every line is one JSON object, this one too, so a log pipeline reads
      // the address from it as from any other line.
      emsim::json ready = {{"time", emsim::model::FormatIso(emsim::runtime::Clock::WallNow())},
                                 {"level", "info"}, {"msg", "emsim ready"}, {"url", url}, {"port", port},
                                 {"fixtures", app.fixturePath()}, {"clock", emsim::runtime::ToString(svc.clock.mode())},
                                 {"now", emsim::model::FormatIso(svc.clock.Now())}, {"seed", o.seed}};
      if (!tls_cert.empty()) ready["tlsCertificate"] = tls_cert;
      if (o.shardId != "test") ready["shard"] = o.shardId;
      std::cout << ready.dump(-1, ' ', false, emsim::json::error_handler_t::replace) << std::endl;
    } else {
      std::cout << "emsim ready on " << url << " fixtures=" << app.fixturePath()
                << " clock=" << emsim::runtime::ToString(svc.clock.mode()) << " now="
                << emsim::model::FormatIso(svc.clock.Now()) << " seed=" << o.seed
                << (o.shardId == "test" ? "" : " shard=" + o.shardId)
                << (tls_cert.empty() ? "" : " tls-certificate=" + tls_cert) << std::endl;
    }
    int sig = 0;
    sigwait(&signals, &sig);
    emsim::runtime::Log("info", std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") + ", stopping");
    app.Stop();
    return 0;
  } catch (const emsim::cli::StartupError& e) {
    Die(std::string("cannot start: ") + e.what());
  } catch (const std::exception& e) {
    Die(std::string("cannot start: ") + e.what());
  }
}

int Generate(const std::vector<std::string>& args) {
  emsim::fixture::GenerateOptions o;
  bool expand = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kGenerateUsage;
      return 0;
    }
    if (a == "--expand") {
      expand = true;
      continue;
    }
    std::string flag = a, value;
    if (auto eq = a.find('='); eq != std::string::npos) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
    } else {
      if (i + 1 >= args.size()) Die(a + " needs a value (see emsim fixtures generate --help)");
      value = args[++i];
    }
    if (flag == "--mailboxes") o.mailboxes = ParseNumber(flag, value);
    else if (flag == "--accounts") o.accounts = ParseNumber(flag, value);
    else if (flag == "--mailboxes-per-domain") o.mailboxesPerDomain = ParseNumber(flag, value);
    else if (flag == "--emails-per-mailbox") o.emailsPerMailbox = ParseNumber(flag, value);
    else if (flag == "--placement-credits") o.placementCredits = ParseNumber(flag, value);
    else if (flag == "--wallet") {
      auto cents = emsim::model::ParseDecimal(value);
      if (!cents || *cents < 0) Die("--wallet needs a decimal amount like 1000000.00, got '" + value + "'");
      o.walletCents = *cents;
    } else Die("unknown flag '" + a + "' (see emsim fixtures generate --help)");
  }
  if (o.accounts < 1) Die("--accounts must be at least 1");
  if (o.mailboxesPerDomain < 1) Die("--mailboxes-per-domain must be at least 1");
  std::ios::sync_with_stdio(false);
  emsim::fixture::WriteGeneratedFixture(std::cout, o, expand);
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "emsim " << EMSIM_VERSION << "\n";
    return 0;
  }
  if (args[0] == "serve") return Serve({args.begin() + 1, args.end()});
  if (args[0] == "scenario") return emsim::cli::ScenarioCommand({args.begin() + 1, args.end()});
  if (args[0] == "proxy") return emsim::cli::ProxyCommand({args.begin() + 1, args.end()});
  if (args[0] == "state") return emsim::cli::StateCommand({args.begin() + 1, args.end()});
  if (args[0] == "listen") return emsim::cli::ListenCommand({args.begin() + 1, args.end()});
  const auto env = [](const char* name) -> const char* { return std::getenv(name); };
  if (args[0] == "clock") return emsim::cli::ClockCommand({args.begin() + 1, args.end()}, std::cout, std::cerr, env);
  if (args[0] == "events") return emsim::cli::EventsCommand({args.begin() + 1, args.end()}, std::cout, std::cerr, env);
  if (args[0] == "trigger") return emsim::cli::TriggerCommand({args.begin() + 1, args.end()}, std::cout, std::cerr, env);
  if (args[0] == "deliveries")
    return emsim::cli::DeliveriesCommand({args.begin() + 1, args.end()}, std::cout, std::cerr, env);
  if (args[0] == "fixtures") {
    if (args.size() >= 2 && args[1] == "generate") return Generate({args.begin() + 2, args.end()});
    std::cerr << "emsim: fixtures needs a command: generate\n" << kUsage;
    return 2;
  }
  std::cerr << "emsim: unknown command '" << args[0] << "'\n" << kUsage;
  return 2;
}
