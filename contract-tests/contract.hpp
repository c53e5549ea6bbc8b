#pragma once
// The contract as the suite knows it: Part 4's operations, from the catalogue the server reads too
// (schemas/operations.json: path, envelope, what calling them costs), and the checks every answer
// goes through with the schema registry the server uses (emsim_schema, the one layer of the server
// the suite links: it still speaks only HTTP to its target). Every failure is one GoogleTest
// failure that names the operation, the field (a JSON pointer) and the rule, e.g.
//   domains.list: /data/domains/0/assignedMailboxesCount must be numeric text (Part 2)
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client.hpp"
#include "config.hpp"
#include "schema/catalogue.hpp"
#include "schema/registry.hpp"

namespace contract {

using emsim::schema::Effect;
using emsim::schema::Envelope;
using emsim::schema::Operation;

// Compiles the schemas of `dir` and reads its catalogue of operations, once, before the tests
// run; throws std::runtime_error with the reason (a schema that does not compile, a broken
// catalogue, no catalogue).
void LoadContract(const std::string& dir);
const emsim::schema::Registry& Schemas();

// The public operations of the catalogue (not /_sim), in its order.
const std::vector<Operation>& Operations();
// The public operation with this id; aborts the test (ADD_FAILURE) on an unknown id.
const Operation& Op(const std::string& id);

// ---- calling ------------------------------------------------------------------------------------

struct Args {
  std::map<std::string, std::string> query;
  std::optional<json> body;
  std::string pathId;                       // replaces ":id"
  std::optional<std::string> apiKey;        // as in Call
  std::optional<std::string> workspaceKey;  // as in Call
  httplib::Headers extra;
};
Reply Invoke(const Operation& op, const Args& args = {});
inline Reply Invoke(const std::string& op, const Args& args = {}) { return Invoke(Op(op), args); }

// ---- checks ---------------------------------------------------------------------------------------

// One contract violation: a GoogleTest failure "<op>: <where> <rule>".
void Violation(const std::string& op, const std::string& where, const std::string& rule);

// Something the spec leaves open that the target does its own way (Issue::open): one "NOTE:" line
// on stdout and a test property, not a failure (--strict turns it into a Violation).
void Note(const std::string& op, const std::string& where, const std::string& rule);
int NoteCount();

// Every violation of `body` against the registry's schema `schema` ("responses/domains.list",
// "resources/event_envelope"), one failure each, named after `op`.
void ReportSchema(const std::string& op, const std::string& schema, const json& body);

// A successful answer: the HTTP status (default 200), JSON, the rules of the operation's
// envelope, its response schema and the Part 2 value rules (timestamps, numeric text).
// Answers whether the body can be looked into further (the status matched and it is JSON).
bool ExpectOk(const Reply& r, int status = 200);

// The operations whose successful answer some test has checked with ExpectOk so far: the
// coverage check at the end of a full run (main.cpp) wants every public one of the catalogue.
const std::set<std::string>& CheckedOperations();

// An error answer in Part 7's shape: 400 {status, message, errors[{msg, param, location}]};
// 401 and 500 {status, message, errorId UUID v4}; other statuses: the status only, plus the
// 401 shape when the target is emsim (its gap decision). `param`, when given, must appear among
// errors[].param of a 400.
void ExpectError(const Reply& r, int status, const std::string& param = "");

// Part 7: each listed field missing from an otherwise valid body answers 400 naming it; so
// does each (field, wrong value) pair of `bad_values`.
void CheckRequiredFields(const std::string& op, const json& valid_body, const std::vector<std::string>& fields,
                         const std::vector<std::pair<std::string, json>>& bad_values = {});

// Part 2 value rules over any JSON: known timestamp fields are ISO 8601 UTC with milliseconds
// and a real date; known numeric-text fields parse as whole numbers.
void CheckValues(const std::string& op, const json& body, const std::string& base = "");

bool IsIsoMillisUtc(const std::string& s);
bool IsNumericText(const std::string& s);
bool IsUuidV4(const std::string& s);

// Walks every page of a paged list (domains.list, mailboxes.list) and checks that the counters
// agree with the pages: currentPage echoes the page asked for, nextPage chains to totalPages,
// every page up to totalPages has records, the records add up to totalSearchedCount (when
// `count_records` says how many records a page holds), no record repeats.
struct PagingSpec {
  std::string op;
  std::map<std::string, std::string> query;  // besides page
  std::string itemsField;                    // "domains"
  std::function<size_t(const json& data)> countRecords;  // records on a page (default: items size)
  std::function<std::vector<std::string>(const json& data)> recordIds;  // for the no-repeat check
  bool countsRecords = true;  // totalSearchedCount counts what countRecords counts
  size_t maxPages = 30;       // a real deployment with thousands of pages: the first ones only
};
void CheckPaging(const PagingSpec& spec);

// ---- what may run --------------------------------------------------------------------------------

// GTEST_SKIP()s with the reason when the target is not emsim (control plane needed).
#define REQUIRE_EMSIM(why)                                                                          \
  do {                                                                                              \
    if (!::contract::Cfg().isEmsim)                                                                 \
      GTEST_SKIP() << "needs emsim's control plane (/_sim): " << (why) << "; the target is not emsim"; \
  } while (0)

// For behaviour the spec leaves open and emsim decides (README gap decisions).
#define REQUIRE_EMSIM_GAP(what)                                                                           \
  do {                                                                                                    \
    if (!::contract::Cfg().isEmsim)                                                                       \
      GTEST_SKIP() << "emsim gap decision, not part of the spec: " << (what) << "; the target is not emsim"; \
  } while (0)

// Skips an operation's effect unless allowed (always allowed on emsim: nothing there is real).
#define REQUIRE_EFFECT(op_id)                                                                             \
  do {                                                                                                    \
    if (auto why = ::contract::EffectBlocked(::contract::Op(op_id)); !why.empty()) GTEST_SKIP() << why;   \
  } while (0)

// "" when the operation may run; otherwise the reason it may not.
std::string EffectBlocked(const Operation& op);

}  // namespace contract
