#pragma once
// Part 6: every event emsim emits must fit schemas/events/<type>.json (envelope and payload). One
// check, used wherever a test sees events: the in-process test server on teardown and the
// scenario runner at the end of each run (and on each event an expect_events step selects).
#include <string>
#include <vector>

#include "core/json.hpp"

namespace emsim::schema {
class Registry;
}

namespace emsim::schema {

// What is wrong with one event as GET /_sim/events lists it, one line per problem naming the
// field ("" when it fits). The listing's `accountId` is emsim's bookkeeping, never sent to a
// receiver, so it is not part of what is checked. An event whose type has no schema is a problem.
std::vector<std::string> EventSchemaProblems(const schema::Registry& schemas, json event);

// Every event of a GET /_sim/events answer (`{events: [...]}` or a bare list): one line per
// problem, each naming the event ("events[3] evt_... domain.updated: /data/previousState ...").
std::vector<std::string> EventListProblems(const schema::Registry& schemas, const json& events);

}  // namespace emsim::schema
