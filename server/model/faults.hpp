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
//   endpoint's secret); `patch` edits the event envelope before it is signed. The rest rehearse
//   what at-least-once delivery (Part 6) means for a receiver, each recorded on the attempt it
//   shaped (`injected` in /_sim/deliveries):
//   - `duplicate`: the event goes out a second time (same id, same body) right after the attempt;
//     the copy is an extra request: it schedules no retry and counts no failure.
//   - `dropAfterResponse`: the receiver answers, and emsim acts as if the connection dropped
//     before the answer arrived: the attempt fails and is retried (Part 6 schedule), so the
//     receiver gets an event it already processed.
//   - `staleTimestamp` (a duration): the signature's `t` is that far in the past (the signature
//     itself is valid): a receiver checking Part 6's tolerance refuses it, then takes the retry.
//   - `delay` (a duration): the attempt is held back that long on the simulated clock.
//   - `reorder`: the attempt is held back until the endpoint's next attempt has been sent (at
//     most `holdFor`, default 5m), so a later event arrives first.
//   Durations run on the simulated clock, like the retries they interact with.
// Every fault applies to `times` matches (0: all); with `probability` p < 1 each match is affected
// with chance p, drawn from the run's --seed, the fault's id and the match's number, so a rerun
// with the same seed and the same requests injects the same faults.
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

// The delivery fault for an attempt to an endpoint URL with this path: with `holding`, the first
// that holds attempts back (delay, reorder), taken when the attempt falls due; without, the first
// that changes what is sent. Counted like TakeFault. `api_key` is the key of the endpoint's
// account: a fault with an apiKey (made with a tenant's key) affects only its deliveries.
std::optional<Fault> TakeDeliveryFault(State& s, const std::string& path, bool holding, const std::string& api_key);

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
