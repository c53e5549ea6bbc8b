#pragma once
// Wires clock, scheduler, store, schema registry, router and HTTP server. Tests construct an
// App on port 0 in-process; main() constructs one from flags.
#include <csignal>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/route.hpp"
#include "app/services.hpp"

namespace emsim::app {
class Router;
}  // namespace emsim::app
namespace emsim::http {
class HttpServer;
struct ServerOptions;
}  // namespace emsim::http
namespace emsim::events {
class Dispatcher;
}

namespace emsim::fixture {
struct Fixture;
}

namespace emsim::cli {

using app::ErrorIds;
using app::Options;
using app::Services;

struct StartupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where the schemas and fixtures are: EMSIM_SHARE_DIR, else share/emsim found beside the binary.
std::string ShareDir();
std::string DefaultFixturePath();
// Refuses (StartupError) a bind beyond loopback without an admin token, and a token that cannot
// be sent in a header. App's constructor runs it first.
void CheckControlPlaneExposure(const Options& o);
std::string DefaultSchemasDir();

class App {
 public:
  // Loads fixtures and schemas, builds the route table; throws StartupError with a message
  // that says what is wrong (fixture file:line:field, schema file, missing schema, a catalogue
  // entry without a handler or a handler without an entry).
  explicit App(Options options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Binds and serves on a background thread; answers the bound port.
  int Start();
  // Runs the scheduler only, serving nothing: an emsim something else serves in front of (the
  // shadow of `emsim proxy`, reached through Services::pipeline). Stop() ends it.
  void StartWithoutServing();
  void Stop();
  // Blocks until the server stops.
  void Wait();

  Services& services() { return *services_; }
  int port() const { return port_; }
  std::string baseUrl() const { return services_->baseUrl; }
  const std::string& fixturePath() const { return fixture_path_; }
  // The certificate clients should trust (--tls-cert, or the one --tls-self-signed made); "" on http.
  const std::string& tlsCertificate() const { return options_.tlsCert; }

 private:
  std::optional<json> OpenDataDir(fixture::Fixture& fixture);
  // Checks the TLS flags and makes the --tls-self-signed certificate; throws StartupError.
  void PrepareTls();
  void RestoreClock(runtime::Clock& clock, const json& saved);

  Options options_;
  std::string fixture_path_;
  // The directory --tls-self-signed made for this run: removed when the App goes, or when its
  // constructor fails after making it (a member, so it is destroyed in both cases).
  struct OwnedDir {
    std::string path;
    ~OwnedDir();
  } tls_dir_;
  std::unique_ptr<schema::Registry> schemas_;
  std::unique_ptr<runtime::Persister> persister_;  // --data-dir; outlives the store
  std::unique_ptr<runtime::Store> store_;
  std::unique_ptr<runtime::Clock> clock_;
  std::unique_ptr<runtime::Scheduler> scheduler_;
  std::unique_ptr<runtime::SearchWarmer> search_warmer_;  // --warm-indexes; before the store goes
  std::unique_ptr<runtime::Journal> journal_;
  std::unique_ptr<ErrorIds> error_ids_;
  std::unique_ptr<app::RateLimiter> rate_limiter_;  // --rate-limit
  std::unique_ptr<Services> services_;
  std::unique_ptr<events::Dispatcher> dispatcher_;
  std::vector<app::Route> routes_;  // the catalogue's operations with their handlers (api::Routes)
  std::unique_ptr<app::Router> router_;
  std::unique_ptr<http::HttpServer> server_;
  std::thread serve_thread_;
  // Frees the state document a data dir was read into, beside the rest of the start. A jthread:
  // a start that fails after the read (a bad clock row, a flag checked later) unwinds through
  // members only, and a joinable std::thread there would terminate the process.
  std::jthread discard_;
  int port_ = 0;
};

// The transport's settings from emsim's flags (connections, timeouts, body limits, TLS): every
// server emsim runs, `emsim serve`'s and `emsim proxy`'s, gets the same.
http::ServerOptions TransportOptions(const Options& o);

// Registers every job runner and reset hook of the later layers (domains, exports, placement
// tests, webhook delivery, sinks, faults). One place, so start-up wiring is visible at once.
void Wire(Services& svc);

// Blocks SIGINT and SIGTERM in the calling thread and in every thread it starts later, and answers
// the set: the server's threads never take them, the main thread sigwaits for them (emsim serve,
// emsim proxy) and shuts down in order.
sigset_t BlockStopSignals();

}  // namespace emsim::cli
