#pragma once
// Checks of the runner (internal to scenario/) that read documents the emsim answered, beyond the
// step's own response: the Part 6 retry schedule and a sink's signature record. Plain JSON in,
// problem lines out; run.cpp fetches the documents.
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/time.hpp"

namespace emsim::schema {
class Registry;
}

namespace emsim::scenario {

// The list a /_sim listing answers: the body itself, or its first list-valued field.
json ListOf(const json& body);

using model::FormatDuration;

// Part 6 retry schedule: each attempt made (has sentAt) in `deliveries`, in order, came at its
// offset (`offsets`, ms) from its event's `created` in `events` (GET /_sim/events), to the second.
void CheckAttemptTimes(const json& offsets, const json& deliveries, const json& events,
                       std::vector<std::string>& problems);

// Part 6 signature: every request `sink` (GET /_sim/sinks/:id) recorded has signatureValid ==
// `want`, and each body is an event that fits its schema (when `schemas` is given).
void CheckSinkSignatures(const json& sink, const std::string& sink_var, bool want, const schema::Registry* schemas,
                         std::vector<std::string>& problems);

}  // namespace emsim::scenario
