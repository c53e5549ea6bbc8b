#pragma once
// Event payload pieces (Part 6), built by the model where events are emitted. DESIGN.md gap
// decision: every event type's data is `<resource>Details` (allow-listed fields) plus, where
// something changed, `previousState` (only the changed fields, with their old values).
#include "model/json.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Part 2 "Domain (event record, domainDetails)": the allow-listed subset of a domain.
json DomainDetails(const State& s, const Domain& d);

}  // namespace emsim::model
