#pragma once
// POST /_sim/trigger (`emsim trigger`): makes the real state change behind a Part 6 event type on
// an object of the caller's account, through the model functions the public API and the
// scheduler's jobs use, so the events come from State::Emit as in real use. POST /_sim/events
// (TriggerEvent, model/webhooks.hpp) is the other path: a synthetic event, nothing changed.
//
// Each type's change, and the object picked when none is named, is in the README ("emsim
// trigger"). A refused trigger (unknown type, an object of another kind or account, an object
// in a state that cannot produce the event) is a 400 naming the field, and changes nothing.
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct ChangeTriggerInput {
  std::string type;    // a Part 6 event type
  std::string apiKey;  // the account whose object changes
  std::optional<std::string> objectId;
};

struct TriggeredChange {
  struct Emitted {
    std::string id, type;
  };
  std::string type;
  std::string objectId;  // the record the event describes (for export.started: the new export)
  std::string change;    // what was done, for a person
  std::vector<Emitted> events;  // every event the change emitted, in order
};

Result<TriggeredChange> TriggerChange(State& s, const ChangeTriggerInput& in, Millis now);

}  // namespace emsim::model
