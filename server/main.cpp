// flags -> App -> listen; nothing else.
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "app/app.hpp"
#include "model/time.hpp"

namespace {

constexpr const char* kUsage = R"(emsim — a stateful simulator of the Email Infrastructure Management Service

Usage:
  emsim serve [flags]      start the simulator (see `emsim serve --help`)
  emsim --help             this text
  emsim --version          print the version
)";

constexpr const char* kServeUsage = R"(Usage: emsim serve [flags]

  --host HOST             address to listen on (default 127.0.0.1)
  --port N                port (default 8080); 0 picks a free port, printed in the ready line
  --fixtures FILE         seed data (default: the repository's fixtures/default.yaml)
  --schemas DIR           JSON Schemas (default: the repository's schemas/)
  --clock real|manual     real: follows the wall clock; manual: frozen until POST /_sim/clock/advance
                          (default real)
  --start-time ISO        manual clock start, e.g. 2026-01-01T09:00:00.000Z
                          (default: the fixture's clock.start)
  --seed N                every generated id and value is reproducible from it (default 1)
  --log-format text|json  log line format on stderr (default text)
  --max-body-bytes N      request bodies above this get 413 (default 1048576)
  --journal-size N        requests kept by GET /_sim/requests (default 1000)
  --threads N             HTTP worker threads (default 8 per core)
  --base-url URL          public URL used in links emsim hands out (default http://HOST:PORT)

emsim prints one line when ready and stops cleanly on SIGINT or SIGTERM.
)";

[[noreturn]] void Die(const std::string& msg) {
  std::cerr << "emsim: " << msg << "\n";
  std::exit(2);
}

long long ParseNumber(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    long long n = std::stoll(v, &used);
    if (used != v.size() || n < 0) throw std::invalid_argument(v);
    return n;
  } catch (const std::exception&) {
    Die(flag + " needs a non-negative whole number, got '" + v + "'");
  }
}

int Serve(const std::vector<std::string>& args) {
  emsim::app::Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kServeUsage;
      return 0;
    }
    std::string flag = a, value;
    if (auto eq = a.find('='); eq != std::string::npos) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
    } else if (a.rfind("--", 0) == 0) {
      if (i + 1 >= args.size()) Die(a + " needs a value (see emsim serve --help)");
      value = args[++i];
    }
    if (flag == "--host") o.host = value;
    else if (flag == "--port") {
      long long p = ParseNumber(flag, value);
      if (p > 65535) Die("--port must be 0..65535");
      o.port = static_cast<int>(p);
    } else if (flag == "--fixtures") o.fixtures = value;
    else if (flag == "--schemas") o.schemasDir = value;
    else if (flag == "--clock") {
      if (value == "real") o.clockMode = emsim::sim::ClockMode::kReal;
      else if (value == "manual") o.clockMode = emsim::sim::ClockMode::kManual;
      else Die("--clock must be real or manual, got '" + value + "'");
    } else if (flag == "--start-time") {
      auto t = emsim::model::ParseIso(value);
      if (!t) Die("--start-time must be an ISO 8601 UTC time like 2026-01-01T09:00:00.000Z, got '" + value + "'");
      o.startTime = *t;
    } else if (flag == "--seed") o.seed = static_cast<std::uint64_t>(ParseNumber(flag, value));
    else if (flag == "--log-format") {
      if (value != "text" && value != "json") Die("--log-format must be text or json");
      o.logFormat = value;
    } else if (flag == "--max-body-bytes") o.maxBodyBytes = static_cast<size_t>(ParseNumber(flag, value));
    else if (flag == "--journal-size") o.journalCapacity = static_cast<size_t>(ParseNumber(flag, value));
    else if (flag == "--threads") o.threads = static_cast<int>(ParseNumber(flag, value));
    else if (flag == "--base-url") o.baseUrl = value;
    else Die("unknown flag '" + a + "' (see emsim serve --help)");
  }

  // Block SIGINT/SIGTERM in every thread; the main thread waits for them below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  try {
    emsim::app::App app(o);
    const int port = app.Start();
    const auto& svc = app.services();
    std::cout << "emsim ready on http://" << o.host << ":" << port << " fixtures=" << app.fixturePath()
              << " clock=" << emsim::sim::ToString(svc.clock.mode()) << " now="
              << emsim::model::FormatIso(svc.clock.Now()) << " seed=" << o.seed << std::endl;
    int sig = 0;
    sigwait(&signals, &sig);
    std::cerr << "emsim: " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping\n";
    app.Stop();
    return 0;
  } catch (const emsim::app::StartupError& e) {
    Die(std::string("cannot start: ") + e.what());
  } catch (const std::exception& e) {
    Die(std::string("cannot start: ") + e.what());
  }
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
  std::cerr << "emsim: unknown command '" << args[0] << "'\n" << kUsage;
  return 2;
}
