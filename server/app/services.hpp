#pragma once
// What a handler may use. App owns every piece; handlers get them through Ctx::svc.
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/rate_limiter.hpp"
#include "model/ids.hpp"
#include "runtime/store.hpp"
#include "schema/registry.hpp"
#include "runtime/clock.hpp"
#include "runtime/journal.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/search_warmer.hpp"

namespace emsim::events {
class Dispatcher;
}
namespace emsim::http {
class RequestHandler;
}

namespace emsim::app {

struct Options {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string fixtures;      // empty: <share dir>/fixtures/default.yaml (cli::ShareDir)
  std::string schemasDir;    // empty: <share dir>/schemas
  runtime::ClockMode clockMode = runtime::ClockMode::kReal;
  std::optional<model::Millis> startTime;  // manual clock start; default: the fixture's clock.start
  std::uint64_t seed = 1;
  std::string logFormat = "text";
  std::string logLevel = "info";  // debug|info|warn|error: lines below it are not written
  size_t maxBodyBytes = 1024 * 1024;  // 413 above this, from Content-Length before reading
  // The same for the operations whose catalogue entry says "bodyLimit": "large" (a whole world:
  // PUT /_sim/state, POST /_sim/scenarios/run).
  size_t maxStateBytes = 512u * 1024 * 1024;
  size_t journalCapacity = 1000;
  // GET /_sim/state holds a dump's text in memory up to this size, and past it writes the text to
  // a temporary file ($TMPDIR) and sends it from there (core/spill_text.hpp).
  size_t dumpSpillBytes = 16u * 1024 * 1024;
  // Retention of the event log, the delivery log, notifications and the wallet ledger: the newest N of each are kept
  // (State::TrimLogs); 0 keeps everything.
  size_t retainEvents = 100000;
  // The search indexes of workspaces with this many mailboxes, domains or emails (of a kind) are
  // built once the world is there, not by their first search (runtime::SearchWarmer); 0: never.
  size_t warmIndexes = 10000;
  int threads = 0;                    // HTTP worker threads started at once; 0: 8 (more on demand)
  // Connections: beyond maxConnections a client gets 503 and is closed; a keep-alive connection
  // idle for idleTimeoutMs is closed; a request line + headers not complete headerTimeoutMs after
  // they began (after the connect, for the first request) gets 408 and is closed.
  int maxConnections = 2048;
  int idleTimeoutMs = 5000;
  int headerTimeoutMs = 10000;
  // Control plane: when set, every /_sim request needs `Authorization: Bearer <adminToken>`;
  // required to bind anything but loopback (App::Start refuses otherwise).
  std::string adminToken;
  std::string baseUrl;                // public base URL for links (checkout, sinks); empty: from host:port
  // Part 6 webhook delivery
  std::int64_t webhookTimeoutMs = 10000;  // per attempt; tests set it small
  bool signWithSimulatedTime = false;     // `t` of X-Service-Signature from the simulated clock
  bool strictWebhookUrls = false;         // https only, even for loopback hosts
  std::string webhookCaFile;              // CA bundle for https receivers with private certificates
  bool webhookInsecure = false;           // skip certificate verification of https receivers
  // Durable state (runtime/persist.hpp): empty keeps the world in memory only.
  std::string dataDir;
  runtime::Durability durability = runtime::Durability::kFull;
  std::string stateFile;  // --state: a GET /_sim/state document as the initial world
  // TLS serving: PEM certificate chain and key (both or neither); tlsSelfSigned makes a
  // certificate for localhost at start (written to tlsCert/tlsKey when given, else to a
  // directory of its own) and serves with it.
  std::string tlsCert, tlsKey;
  bool tlsSelfSigned = false;
  // Opt-in rate limits per API key (app/rate_limiter.hpp): off by default, so nothing changes for
  // existing users; the counts default to the real service's published ones.
  bool rateLimit = false;
  RateLimits rateLimits;
  // The shard this instance is (--shard-id): every API key it mints is `emsim_<shardId>_...`, so
  // a proxy in front of several emsims routes a request by its key alone (deploy/haproxy.cfg).
  // "test" keeps the keys emsim minted before shards existed.
  std::string shardId = "test";
};

// errorId values (Part 7: UUID v4) come from their own generator, seeded like the state's but
// outside it, so a rejected request leaves the state exactly as it was.
class ErrorIds {
 public:
  explicit ErrorIds(std::uint64_t seed) : gen_(seed ^ 0x5eedfeedULL) {}
  std::string Next() {
    std::lock_guard lock(mu_);
    return gen_.Uuid4();
  }
  void Reset(std::uint64_t seed) {
    std::lock_guard lock(mu_);
    gen_ = model::IdGenerator(seed ^ 0x5eedfeedULL);
  }

 private:
  std::mutex mu_;
  model::IdGenerator gen_;
};

struct Services {
  Options options;
  runtime::Store& store;
  runtime::Clock& clock;
  runtime::Scheduler& scheduler;
  runtime::Journal& journal;
  schema::Registry& schemas;
  ErrorIds& errorIds;
  std::string baseUrl;  // e.g. "http://127.0.0.1:8080", known once the port is bound
  // Called by POST /_sim/reset after the store and clock are reset; later layers (sinks,
  // faults, delivery workers) register here.
  std::vector<std::function<void()>> resetHooks;
  events::Dispatcher* webhooks = nullptr;  // webhook delivery (owned by App)
  // The request pipeline itself (the app::Router, owned by App): POST /_sim/scenarios/run and
  // `emsim scenario run` hand the runner's requests straight to it, not over the network.
  http::RequestHandler* pipeline = nullptr;
  // The repository's fixtures/default.yaml (resolved at start-up): scenarios name fixture files
  // relative to its folder.
  std::string defaultFixture;
  // One scenario at a time on a live emsim: two would reset and advance each other's world.
  std::mutex scenarioRunMu;
  // A hint that State may hold /_sim/faults, so the request pipeline skips the fault lookup (and
  // its lock) when none was ever defined. Written only under the store's write lock, by whoever
  // adds or removes faults; a stale `true` costs one lookup, never a missed fault.
  std::atomic<bool> faultsMayExist{false};
  // --rate-limit: the limits of the public reference, per API key (owned by App; null when off).
  RateLimiter* rateLimiter = nullptr;
  // Builds big workspaces' search indexes ahead (owned by App; null when --warm-indexes is 0 or
  // there is no App: GET /_sim/health reports it).
  runtime::SearchWarmer* searchWarmer = nullptr;
};

}  // namespace emsim::app
