#pragma once
// Injected faults (/_sim/faults, DESIGN.md control plane): "answer the next N requests that match
// method + path with this status / body / delay instead". They let a client developer rehearse a
// 500 or a slow answer, and let the contract suite prove it can fail (its self-test).
//
// Faults are part of State, so POST /_sim/reset clears them and a state dump/load carries them.
// Steering happens only through /_sim (STYLE.md habit 8): nothing in business data triggers one.
//
// Two targets:
// - "request": a request to the public API. Either the answer is replaced (`status` and/or
//   `body`; the handler does not run, so nothing changes), or the real answer is edited
//   (`patch`, RFC 6902 operations on its JSON body; the handler runs as usual), optionally with a
//   `status` override. `delayMs` holds the answer back (wall time: a client's timeout is real).
// - "delivery": a webhook POST emsim sends (Part 6), matched by the endpoint URL's path.
//   `corruptSignature` signs with a wrong key (the v1 value no longer verifies with the
//   endpoint's secret); `patch` edits the event envelope before it is signed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Validates a POST /_sim/faults body (types are already schema-checked) and stores the fault.
Result<Fault> AddFault(State& s, const json& spec, Millis now);

// The first active fault matching the request (creation order), with its hit counted; nullopt
// when none matches. `api_key` is the request's x-auth-service ("" when absent).
std::optional<Fault> TakeFault(State& s, const std::string& target, const std::string& method,
                               const std::string& path, const std::string& api_key);

// Read-only: whether TakeFault could match (lets the pipeline skip the write lock).
bool AnyFaultMatches(const State& s, const std::string& target, const std::string& method, const std::string& path,
                     const std::string& api_key);

bool DeleteFault(State& s, const std::string& id);
void ClearFaults(State& s);

// The record /_sim/faults shows: the fault as given plus `hits`, `remaining` (null: unlimited)
// and `active`.
json FaultView(const Fault& f);

// Applies `patch` to a JSON body; a patch that does not apply (e.g. removes a missing member)
// answers the error text instead, so the caller can say why the fault did nothing.
Result<json> ApplyFaultPatch(const json& body, const json& patch);

}  // namespace emsim::model
