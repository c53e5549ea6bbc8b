#pragma once
// The contract as the suite knows it: Part 4's operations (path, envelope kind, what calling them
// costs) and the checks every answer goes through. Every failure is one GoogleTest failure that
// names the operation, the field (a JSON pointer) and the rule, e.g.
//   domains.list: /data/domains/0/assignedMailboxesCount must be numeric text (Part 2)
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client.hpp"
#include "config.hpp"

namespace contract {

// Part 4 intro: most answers are {status, message, data} with status mirroring HTTP; some
// endpoints state another body.
enum class Shape {
  kEnvelope,     // {status, message, data}
  kMessageData,  // {message, data}, no status (subscriptions.cancel)
  kBare,         // a body of its own, no envelope (buy-domain, upgrade, DNS-shield upgrade, search)
};

// What calling it does to the account: decides whether it runs against a real deployment.
enum class Effect { kRead, kMutates, kSpends };

struct Operation {
  std::string id;      // resource.verb, as in schemas/responses/<id>.json
  std::string method;  // HTTP method
  std::string path;    // relative to the base URL; ":id" for a path parameter
  Shape shape;
  Effect effect;
  std::string part;  // "Part 4.4"
};

// The operation with this id; aborts the test (ADD_FAILURE) on an unknown id.
const Operation& Op(const std::string& id);
const std::vector<Operation>& Operations();

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

// A successful answer: the HTTP status (default 200), JSON, the envelope rules of the
// operation's Shape, its response schema and the Part 2 value rules (timestamps, numeric text).
// Answers whether the body can be looked into further (the status matched and it is JSON).
bool ExpectOk(const Reply& r, int status = 200);

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
