#include "cli/app.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>

#include <unistd.h>

#include "events/dispatcher.hpp"
#include "events/transport.hpp"
#include "api/routes.hpp"
#include "app/router.hpp"
#include "http/server.hpp"
#include "http/tls.hpp"
#include "fixture/fixtures.hpp"
#include "runtime/log.hpp"
#include "cli/state_command.hpp"
#include "core/hash.hpp"
#include "core/thread_name.hpp"

namespace emsim::cli {

std::string ShareDir() {
  if (const char* dir = std::getenv("EMSIM_SHARE_DIR"); dir && *dir) return dir;
  // Relative to the binary, never a path of the build machine, so a copied, installed or
  // packaged emsim finds its data: <prefix>/bin/emsim with <prefix>/share/emsim (cmake --install,
  // the .deb), or a build tree, where CMake links share/emsim beside the executables.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "share/emsim";
  for (const auto& candidate : {exe.parent_path().parent_path() / "share" / "emsim", exe.parent_path() / "share" / "emsim"})
    if (std::filesystem::is_directory(candidate / "schemas", ec)) return candidate.lexically_normal().string();
  return (exe.parent_path().parent_path() / "share" / "emsim").lexically_normal().string();
}
std::string DefaultFixturePath() { return ShareDir() + "/fixtures/default.yaml"; }
std::string DefaultSchemasDir() { return ShareDir() + "/schemas"; }

App::App(Options options) : options_(std::move(options)) {
  // Shards started with the same --seed must not mint the same ids (tenant account ids name a
  // tenant in /_sim paths, and a dump of one shard may be loaded beside another's): a shard draws
  // its ids from the seed and its name. The default shard keeps the seed as it is.
  if (options_.shardId != "test") options_.seed ^= core::Fnv1a64(options_.shardId);
  runtime::SetLogFormat(options_.logFormat == "json" ? runtime::LogFormat::kJson : runtime::LogFormat::kText);
  runtime::SetLogLevel(options_.logLevel);
  PrepareTls();
  CheckControlPlaneExposure(options_);
  fixture_path_ = options_.fixtures.empty() ? DefaultFixturePath() : options_.fixtures;
  const std::string schemas_dir = options_.schemasDir.empty() ? DefaultSchemasDir() : options_.schemasDir;
  // The schemas compile on a second thread while the fixture loads on this one: the two are
  // independent and each is a good part of the start-up time (bench/README.md: the first 200 in < 50 ms).
  // The fixture takes the main thread because its records live on: under glibc malloc (a build
  // without jemalloc) a second thread's arena grows in small mprotect'ed steps (a 100k-mailbox
  // fixture loaded ~15% slower there); under jemalloc either thread does as well.
  auto compiling = std::async(std::launch::async, [schemas_dir] { return std::make_unique<schema::Registry>(schemas_dir); });
  fixture::Fixture fixture;
  std::string fixture_error;
  try {
    // With a data dir the world is most often the dir's: a generated fixture's records are then
    // made only if the dir turns out new (OpenDataDir) or at a reset, from its recipe.
    fixture = fixture::LoadFixtureFile(fixture_path_, options_.seed,
                                       options_.dataDir.empty() ? fixture::Generated::kNow : fixture::Generated::kWhenAsked);
  } catch (const fixture::FixtureError& e) {
    fixture_error = e.what();
  }
  try {
    schemas_ = compiling.get();
  } catch (const std::exception& e) {
    throw StartupError(std::string("schemas: ") + e.what());
  }
  if (!fixture_error.empty()) throw StartupError("fixture: " + fixture_error);  // after a schema error, as ever
  // --state: a dump is the world emsim boots with, and the one a reset returns to.
  if (!options_.stateFile.empty()) {
    try {
      model::LoadedStateText loaded = LoadStateFile(options_.stateFile, options_.maxStateBytes);
      fixture.state = std::move(loaded.state);
      fixture.rebuild = {};
      fixture.deferred = false;
      const json clock = loaded.rest.value("clock", json::object());
      const json epoch = clock.is_object() ? clock.value("epochMs", json()) : json();
      if (epoch.is_number_integer() && epoch.get<model::Millis>() >= 0 && epoch.get<model::Millis>() <= runtime::Clock::kLatest)
        fixture.clockStart = epoch.get<model::Millis>();
    } catch (const std::exception& e) {
      throw StartupError(std::string(e.what()).rfind("--state", 0) == 0 ? e.what()
                                                                         : "--state " + options_.stateFile + ": " + e.what());
    }
  }
  model::Millis start = runtime::Clock::WallNow();
  if (options_.clockMode == runtime::ClockMode::kManual) start = options_.startTime.value_or(fixture.clockStart.value_or(start));
  else if (options_.startTime) start = *options_.startTime;
  std::optional<json> saved_clock;
  if (options_.dataDir.empty()) {
    store_ = std::make_unique<runtime::Store>(std::move(fixture.state), std::move(fixture.rebuild));
  } else {
    saved_clock = OpenDataDir(fixture);
  }
  store_->SetLogRetention(options_.retainEvents);
  clock_ = std::make_unique<runtime::Clock>(options_.clockMode, start);
  if (saved_clock) RestoreClock(*clock_, *saved_clock);
  if (persister_) {
    try {
      persister_->Start(*clock_);  // once the file's check passed (Persister::AwaitCheck)
      persister_->Sync();  // a new data dir holds its first world before anything is served
    } catch (const std::exception& e) {
      throw StartupError(e.what());
    }
  }
  scheduler_ = std::make_unique<runtime::Scheduler>(*store_, *clock_);
  search_warmer_ = std::make_unique<runtime::SearchWarmer>(*store_, options_.warmIndexes);
  store_->SetReplacedObserver([warmer = search_warmer_.get()] { warmer->Kick(); });
  journal_ = std::make_unique<runtime::Journal>(options_.journalCapacity);
  error_ids_ = std::make_unique<ErrorIds>(options_.seed);
  services_ = std::unique_ptr<Services>(
      new Services{options_, *store_, *clock_, *scheduler_, *journal_, *schemas_, *error_ids_, "", {}, nullptr, nullptr, "", {}});
  services_->searchWarmer = search_warmer_.get();
  if (options_.rateLimit) {
    rate_limiter_ = std::make_unique<app::RateLimiter>(options_.rateLimits);
    services_->rateLimiter = rate_limiter_.get();
  }
  try {
    routes_ = api::Routes(schemas_->Operations());
    router_ = std::make_unique<app::Router>(*services_, routes_);
  } catch (const std::exception& e) {
    throw StartupError(e.what());
  }
  events::DispatcherOptions delivery;
  delivery.transport.timeoutMs = options_.webhookTimeoutMs;
  delivery.transport.caFile = options_.webhookCaFile;
  delivery.transport.insecure = options_.webhookInsecure;
  delivery.transport.publicAddressesOnly = options_.strictWebhookUrls;
  delivery.signWithSimulatedTime = options_.signWithSimulatedTime;
  dispatcher_ = std::make_unique<events::Dispatcher>(services_->store, services_->faultsMayExist, std::move(delivery));
  services_->webhooks = dispatcher_.get();
  services_->defaultFixture = DefaultFixturePath();
  Wire(*services_);
  server_ = std::make_unique<http::HttpServer>(TransportOptions(services_->options), *router_);
  services_->pipeline = router_.get();
  runtime::ReturnFreedPages();  // what loading used and freed: ~1 MiB of the default start's RSS
}

http::ServerOptions TransportOptions(const Options& o) {
  http::ServerOptions transport;
  transport.maxConnections = std::max(1, o.maxConnections);
  transport.idleTimeoutMs = std::max(1, o.idleTimeoutMs);
  transport.headerTimeoutMs = std::max(1, o.headerTimeoutMs);
  transport.commonBodyBytes = o.maxBodyBytes;
  transport.maxBodyBytes = std::max(o.maxBodyBytes, o.maxStateBytes);
  transport.threads = o.threads;
  transport.tlsCertFile = o.tlsCert;
  transport.tlsKeyFile = o.tlsKey;
  return transport;
}

void App::PrepareTls() {
  if (options_.tlsSelfSigned) {
    if (options_.tlsCert.empty() != options_.tlsKey.empty())
      throw StartupError("--tls-self-signed writes to --tls-cert and --tls-key: give both, or neither (then a directory of its own is used)");
    if (options_.tlsCert.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/emsim-tls-XXXXXX";
      if (!::mkdtemp(pattern.data())) throw StartupError("--tls-self-signed: cannot create a directory like " + pattern);
      const std::string dir = pattern;  // private (0700), unique per run and per App
      tls_dir_.path = dir;
      options_.tlsCert = dir + "/localhost.pem";
      options_.tlsKey = dir + "/localhost-key.pem";
    }
    try {
      http::WriteSelfSignedCertificate(options_.tlsCert, options_.tlsKey);
    } catch (const std::exception& e) {
      throw StartupError(std::string("--tls-self-signed: ") + e.what());
    }
  } else if (options_.tlsCert.empty() != options_.tlsKey.empty()) {
    throw StartupError("--tls-cert and --tls-key go together: give both to serve https");
  }
}

App::OwnedDir::~OwnedDir() {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

App::~App() {
  Stop();
  persister_.reset();  // its writer reads the clock: it stops before the clock goes
}

// --data-dir: the world the directory holds, or, for a new one, the fixtures written into it.
// Reset still returns to the fixtures. Answers the clock the directory saved, if any.
std::optional<json> App::OpenDataDir(fixture::Fixture& fixture) {
  std::optional<json> clock;
  using Steady = std::chrono::steady_clock;
  const auto t0 = Steady::now();
  auto ms_since = [](Steady::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - t).count();
  };
  try {
    persister_ = std::make_unique<runtime::Persister>(options_.dataDir, options_.durability);
    const auto checked = ms_since(t0);
    if (!persister_->walReport().empty()) runtime::Log("warn", "recovered a torn WAL", {{"report", persister_->walReport()}});
    if (!persister_->HasData()) {
      fixture.Expand();
      store_ = std::make_unique<runtime::Store>(std::move(fixture.state), std::move(fixture.rebuild));
      store_->Persist(*persister_, true);
      return clock;
    }
    const auto t1 = Steady::now();
    runtime::Recovered saved = persister_->Read();
    const auto read = ms_since(t1);
    const auto t2 = Steady::now();
    model::State current = persister_->Load(saved);
    const auto loaded = ms_since(t2);
    clock = saved.clock;
    // Freeing a whole document (a DOM node per value of every row, when the rows were read as one)
    // was ~8% of a restart's CPU: done on a thread of its own while the start goes on.
    if (!saved.lists) discard_ = std::jthread([doc = std::move(saved.state)]() mutable { doc = json(); });
    runtime::Log("info", "world recovered from the data dir",
                 {{"file", persister_->path()}, {"batch", saved.batch}, {"mailboxes", current.mailboxes.size()},
                  {"jobs", current.jobs.size()}, {"checkMs", checked}, {"readMs", read}, {"loadMs", loaded}});
    if (fixture.rebuild) store_ = std::make_unique<runtime::Store>(std::move(current), std::move(fixture.rebuild));
    else store_ = std::make_unique<runtime::Store>(std::move(current), std::move(fixture.state));
    store_->Persist(*persister_, false);
  } catch (const runtime::PersistError& e) {
    throw StartupError(e.what());
  }
  return clock;
}

// The clock as the data dir saved it: a manual clock at its `now`, a real one with its offset
// from the wall clock (the time that passed while emsim was down has passed for it too).
void App::RestoreClock(runtime::Clock& clock, const json& saved) {
  if (!saved.is_object() || !saved.value("epochMs", json()).is_number_integer())
    throw StartupError(persister_->path() + ": table meta, id clock: not {mode, epochMs, offsetMs}");
  const bool real = saved.value("mode", "") == "real";
  const model::Millis now = real ? runtime::Clock::WallNow() + saved.value("offsetMs", model::Millis{0})
                                 : saved.at("epochMs").get<model::Millis>();
  if (now < 0 || now > runtime::Clock::kLatest)
    throw StartupError(persister_->path() + ": table meta, id clock: the time is outside the years 1970 to 9999");
  clock.Restore(real ? runtime::ClockMode::kReal : runtime::ClockMode::kManual, now);
}

// DESIGN.md gap decision: /_sim can reset the world, dump every API key and inject faults, so it
// is open only on loopback. Any other bind (0.0.0.0, a LAN address, a name that resolves beyond
// loopback) needs an admin token, which /_sim then requires (router.cpp).
void CheckControlPlaneExposure(const Options& o) {
  for (char c : o.adminToken)
    if (c <= 0x20 || c >= 0x7f)
      throw StartupError("--admin-token must be printable ASCII without spaces (it travels in an HTTP header)");
  if (o.adminToken.empty() && !events::ResolvesOnlyToLoopback(o.host))
    throw StartupError("--host '" + o.host + "' is not a loopback address, and /_sim (reset, the whole state with " +
                       "its API keys, faults) would be open to the network: give --admin-token TOKEN (or set " +
                       "EMSIM_ADMIN_TOKEN) so that /_sim needs 'Authorization: Bearer TOKEN', or bind 127.0.0.1");
}

int App::Start() {
  port_ = server_->Bind(options_.host, options_.port);
  services_->baseUrl = options_.baseUrl.empty()
                           ? std::string(options_.tlsCert.empty() ? "http://" : "https://") + (options_.host == "0.0.0.0" ? std::string("127.0.0.1") : options_.host) + ":" +
                                 std::to_string(port_)
                           : options_.baseUrl;
  scheduler_->Start();
  search_warmer_->Kick();
  serve_thread_ = core::NamedThread("http-accept", [this] { server_->Serve(); });
  return port_;
}

void App::StartWithoutServing() {
  // Links emsim hands out (checkouts, sinks) name the server in front, which sets baseUrl.
  if (services_->baseUrl.empty()) services_->baseUrl = options_.baseUrl;
  scheduler_->Start();
  search_warmer_->Kick();
}

void App::Stop() {
  // Before the server: an attempt in flight may be talking to one of this server's sinks.
  if (scheduler_) scheduler_->Stop();
  if (server_) server_->Stop();
  if (serve_thread_.joinable()) serve_thread_.join();
}

void App::Wait() {
  if (serve_thread_.joinable()) serve_thread_.join();
}

sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

}  // namespace emsim::cli
