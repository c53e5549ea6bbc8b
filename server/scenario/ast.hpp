#pragma once
// A scenario file once parsed (scenarios/README.md describes the language). Every step, even a
// control-plane one (`advance`, `sink`, `expect_events`, ...), is lowered to ONE HTTP call plus
// what to check and what to save, so the runner has a single path and the report can always
// show the request that was sent. Values are JSON that may still hold ${variables}.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.hpp"
#include "core/time.hpp"

namespace emsim::scenario {

struct ScenarioCall {
  std::string method, path;        // path may hold ${vars}; query goes in `query`
  json query = json::object();     // name -> string
  json headers = json::object();   // name -> string
  std::optional<json> body;        // sent as JSON
  std::optional<std::string> rawBody;  // sent as-is (malformed-input tests)
  std::string contentType;         // default application/json when there is a body
  std::string as;                  // account alias or ${var} holding an API key; "" = none
  std::string workspace;           // x-workspace-key
};

// Each kind's key, the keys beside it, how it is read and how the report names it: one row of the
// table in step_kinds.cpp (adding a kind: a value here and that row).
enum class StepKind {
  kRequest,          // GET: /v1/...   (any public or /_sim path)
  kAdvance,          // advance: 5m
  kAt,               // at: 2026-01-02T00:00:00.000Z
  kSink,             // sink: name          -> POST /_sim/sinks
  kSinkUpdate,       // update_sink: name   -> PATCH /_sim/sinks/:id
  kFault,            // fault: {...}        -> POST /_sim/faults
  kClearFaults,      // clear_faults: true  -> DELETE /_sim/faults
  kTransition,       // transition: {domain, status} -> POST /_sim/domains/:id/transition
  kWallet,           // wallet: {as, balance}        -> PUT /_sim/wallet
  kTrigger,          // trigger: {type, as, ...}     -> POST /_sim/events
  kTenant,           // tenant: name                 -> POST /_sim/tenants
  kExpectEvents,     // expect_events: {...}         -> GET /_sim/events
  kExpectDeliveries, // expect_deliveries: {...}     -> GET /_sim/deliveries
  kExpectNotifications,  // expect_notifications: {...} -> GET /_sim/notifications
  kExpectState,      // expect_state: {...}          -> GET /_sim/state
  kSet,              // set: {var: value}            (no HTTP)
  kRepeat,           // repeat: {times, var, steps}  (no HTTP of its own)
};

const char* ToString(StepKind kind);

// The list a selection step works on, and what it must hold.
struct ListCheck {
  json filter = json::object();  // field -> expected (partial match), applied before the checks
  std::optional<json> count;     // number or matcher
  std::optional<json> items;     // positional partial match, same length
  std::optional<json> contains;  // items in any order, among others
};

struct ScenarioStep {
  StepKind kind = StepKind::kRequest;
  int line = 0;                  // 1-based line of the step in the file
  std::string name;              // `name:`, or empty
  std::string display;           // what the step does, for the report: "advance 5m", "GET /v1/..."
  ScenarioCall call;
  // What the response must hold. status: null = any 2xx; a number; or a matcher.
  json expectStatus;
  std::optional<json> expectBody;
  json expectHeaders = json::object();
  std::vector<std::pair<std::string, std::string>> save;  // variable -> JSON pointer or dotted path
  std::string bind;              // sink/tenant: variable (and for a tenant, account alias) it creates
  ListCheck list;                // expect_events / expect_deliveries / expect_notifications
  // expect_deliveries extras (Part 6): every attempt's time relative to its event, and the sink's
  // record that each request's signature verified.
  std::optional<json> attemptOffsets;   // ["0s", "1m", "6m", ...]
  std::optional<bool> signatureVerified;
  std::string sinkVar;           // expect_deliveries/expect sink: the sink variable
  json setVars = json::object(); // set
  int times = 0;                 // repeat
  std::string loopVar;           // repeat: 1-based iteration number
  std::vector<ScenarioStep> steps;  // repeat
};

struct ScenarioHeader {
  std::string name, description;
  // A resolved path; "default" = the repository's fixtures/default.yaml; "" = not said (a fresh
  // emsim loads the default one, a running emsim keeps the one it was started with).
  std::string fixtures;
  std::optional<model::Millis> clockStart;
  std::string clockMode = "manual";          // manual | real
  std::optional<std::uint64_t> seed;
  bool reset = true;                         // --base-url / live runs: POST /_sim/reset first
  std::string as;                            // default account for public requests
  json vars = json::object();                // initial variables
  json accounts = json::object();            // extra aliases: name -> API key
};

struct Scenario {
  std::string file;  // as given (for reports)
  ScenarioHeader header;
  std::vector<ScenarioStep> steps;
};

}  // namespace emsim::scenario
