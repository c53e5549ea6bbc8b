#pragma once
// Expected-vs-actual matching for scenario files (scenarios/README.md "Matching"). Plain JSON in,
// a list of mismatches out: no HTTP, no YAML, so it is tested on its own.
//
// The rules, in one place:
//  - an object matches partially: only the keys written must be present and match;
//  - a list matches by position and must have the same length ({$contains: [...]} for "these
//    items, in any order, among others");
//  - scalars match by JSON equality (2 == 2.0; "2" != 2);
//  - an object whose keys all start with '$' is a matcher: {$match: uuid}, {$regex: "^evt_"},
//    {$gte: 1, $lte: 5}, {$type: string}, {$contains: ...}, {$len: 3}, {$exists: false},
//    {$one_of: [...]}, {$exact: ...}, {$not: ...}. Several keywords must all hold.
// The '$' keeps matchers apart from response fields of the same name (events have a `type`).
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace emsim::scenario {

struct Mismatch {
  std::string path;     // JSON pointer into the actual document ("" = the root)
  std::string message;  // "expected 246, got 248"
};

// Every place where `actual` does not match `expected`.
std::vector<Mismatch> MatchJson(const json& expected, const json& actual);

// True for an object whose keys all start with '$'.
bool IsMatcher(const json& value);

// Checks a matcher tree before anything runs: unknown keywords, bad arguments (a regex that does
// not compile, an unknown $match format, a $type that is not a JSON type), keys mixing '$' and
// field names. Answers the first problem as "at /data/id: ..." or nullopt.
// `at` is the pointer of `expected` within a larger document, for the message.
std::optional<std::string> CheckMatcherTree(const json& expected, const std::string& at = "");

// The named formats of {$match: NAME}.
const std::vector<std::string>& MatchFormats();

// One line per mismatch, indented: "/data/status: expected \"ACTIVE\", got \"PENDING\"".
std::string FormatMismatches(const std::vector<Mismatch>& mismatches, const std::string& indent);

// A value for a report line: strings quoted, long values shortened.
std::string Brief(const json& value, size_t max_chars = 120);

}  // namespace emsim::scenario
