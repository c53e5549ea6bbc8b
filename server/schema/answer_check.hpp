#pragma once
// What an answer of an operation must be, and how two answers of one operation differ in shape:
// plain JSON checks over the catalogue and the registry, with no HTTP. The shadow proxy
// (api/control/proxy.hpp) judges a real deployment's answers with them; the contract suite
// (contract-tests/, which links this layer only) takes its envelope rule from here too.
#include <string>
#include <vector>

#include "core/json.hpp"
#include "schema/catalogue.hpp"
#include "schema/registry.hpp"

namespace emsim::schema {

// One thing wrong with (or different about) an answer. `rule` is one of the names below; `field`
// a JSON pointer into the body ("/data/domains/*/status": "*" stands for any item of an array),
// or "HTTP status" / "body"; `real` and `shadow` what each side had there (a type name, a value,
// "absent"), empty when the rule concerns one answer only.
struct AnswerFinding {
  std::string rule;
  std::string field;
  std::string message;
  std::string real;
  std::string shadow;
};

// Rule names, one vocabulary for the report, the log and the tests.
inline constexpr const char* kRuleEnvelope = "envelope";              // Part 4 intro / Part 7 shapes
inline constexpr const char* kRuleResponseSchema = "response-schema";  // the operation's response schema
inline constexpr const char* kRuleEnumValue = "enum-value";          // a value the schema's enum does not list
inline constexpr const char* kRuleFieldType = "field-type";          // real vs emsim: another JSON type
inline constexpr const char* kRuleFieldPresence = "field-presence";  // real vs emsim: in one answer only

// Part 4 intro: a {status, message, data} answer's `status` mirrors the HTTP status; the
// operations that state another body ({message, data}, or a body of their own) carry no `status`.
// Part 7: an error answer is a JSON object whose `status` mirrors the HTTP status. Empty: kept.
std::vector<AnswerFinding> EnvelopeProblems(const Operation& op, int http_status, const json& body);

// Every rule one answer of `op` must keep on its own: the envelope (above), then its schema: the
// operation's response schema for a 2xx, Part 7's error shapes for a 400 (errors[]) and for
// 401/500 (errorId). Schema issues are `response-schema`, except a value outside a schema enum
// (open "x-values-seen" enums included): `enum-value`. A body that is not JSON is `envelope`.
// `body_is_json` false: `body` is ignored.
std::vector<AnswerFinding> CheckAnswer(const Registry& schemas, const Operation& op, int http_status, const json& body,
                                       bool body_is_json = true);

// How `shadow` differs from `real` in shape, not values (ids and times differ between two
// deployments): a member in one object only (`field-presence`) or of another JSON type
// (`field-type`; integer and non-integer numbers are told apart; null against anything is a
// value, not a type: the spec's "string or null" fields). Arrays: every item of the real one is
// compared with the shadow's item at the same index, or its last when it has fewer (lists of two
// worlds differ in length); an empty array on either side compares nothing. One finding per
// field, walked iteratively up to depth 64 (the request limit: the bodies were parsed under it).
std::vector<AnswerFinding> CompareShapes(const json& real, const json& shadow);

// "string", "integer", "number", "boolean", "object", "array", "null".
std::string JsonTypeName(const json& v);

}  // namespace emsim::schema
