#pragma once
// Client text in, bounded (STYLE.md habit 11: limits before work). The one place that parses JSON
// a client sent (request bodies, PUT /_sim/state, scenario and fixture documents reach it too),
// and the UTF-8 and number helpers every message and query reader uses.
//
// The common document (plain keys, no floats) is read by core::JsonCursor (ParsePlainJson), and
// anything else by nlohmann's SAX lexer with a handler that builds the document itself. Both
// refuse, before the value exists, anything deeper, longer or larger than the limits: a
// 30,000-level body never becomes a tree that a recursive walk (journal redaction, copies, dumps)
// would overflow the stack on, and a number nlohmann would turn into inf (`1e400`) or a double (an
// integer past int64) never reaches state. Every later walk of a parsed document is bounded by
// maxDepth.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/json.hpp"

namespace emsim::model {

struct JsonLimits {
  size_t maxDepth;        // nesting of objects and arrays; the document's root container is level 1
  size_t maxStringBytes;  // one string or key, in bytes
  size_t maxArrayItems;   // items of one array, members of one object
  size_t maxValues;       // every value and key of the document together
};

// A request body (public API and /_sim). Depth 64 is far beyond any body of the spec (the deepest,
// billing details, is 3 levels) and keeps every recursive walk of the value a few KiB of stack.
inline constexpr JsonLimits kRequestJsonLimits{64, 64 * 1024, 100'000, 1'000'000};
// A whole state document (PUT /_sim/state, a fixture's state): it carries request values one or
// two levels deeper than the request did (an event's `data` sits in events[i].data.<...>), so a
// dump always loads again; its tables and text may be larger than one request's.
inline constexpr JsonLimits kStateJsonLimits{96, 1024 * 1024, 10'000'000, 50'000'000};

// An answer read by the scenario runner: it may embed a whole state document a few levels down
// (GET /_sim/requests lists the body of a PUT /_sim/state).
inline constexpr JsonLimits kAnswerJsonLimits{128, 1024 * 1024, 10'000'000, 50'000'000};

// Integers a client may send anywhere: int64, so every count, amount and time fits the model's
// types. Floats outside it are refused too (a schema's "integer" accepts 1e300).
inline constexpr std::int64_t kMaxJsonInteger = INT64_MAX;

// The document, or a 400 (Part 7) whose param is `what` and whose message names the limit hit or,
// for text that is not JSON, "Malformed JSON body at line L, column C: ..." (valid UTF-8 always).
Result<json> ParseJsonLimited(std::string_view text, const JsonLimits& limits = kRequestJsonLimits,
                              std::string_view what = "body");

// ParseJsonLimited without its fast way below: nlohmann's SAX lexer alone, which decides every text
// the fast way leaves. Tests and fuzz harnesses use it as the oracle of the readers that must read
// as it does (ParsePlainJson, model::ReadRecordText), so a shared mistake cannot agree with itself.
Result<json> ParseJsonWithNlohmann(std::string_view text, const JsonLimits& limits = kRequestJsonLimits,
                                   std::string_view what = "body");

// The common document read without nlohmann's lexer (ParseJsonLimited tries it first): objects with
// plain ASCII keys, arrays, strings, integers, true, false and null, well inside `limits`. It
// answers false, leaving `out` unspecified, at anything it does not read exactly as nlohmann's
// strict parser would (a float, a key with an escape or outside ASCII, a byte-order mark, text
// that is not JSON) and at a limit reached; the slow way then decides what the text means or says
// what is wrong. Where it answers true, its document is the one the slow way builds, number types
// included (a non-negative integer unsigned, a negative one signed). A text it leaves is read
// twice, up to where it stopped: for a body that ends in a float, about a third more than the slow
// way alone (the fast read of a purchase body costs ~3.4k instructions, the slow one ~9.7k).
bool ParsePlainJson(std::string_view text, const JsonLimits& limits, json& out);

// ---- times and durations in client documents --------------------------------------------------------
// A time a client may load (PUT /_sim/state, fixtures): 1970-01-01T00:00:00.000Z up to
// 9999-12-31T23:59:59.999Z, in Unix ms. Refused outside at the boundary, so the model's time
// arithmetic (a time plus a retry delay, a period, a timing) never overflows int64.
inline constexpr std::int64_t kMinTimeMs = 0;
inline constexpr std::int64_t kMaxTimeMs = 253'402'300'799'999;
// A configured delay (fixture and state `timings`), in seconds: up to 100 years.
inline constexpr std::int64_t kMaxTimingSeconds = 100LL * 366 * 24 * 3600;

// ---- UTF-8 -----------------------------------------------------------------------------------------
bool IsValidUtf8(std::string_view s);
// The longest prefix of at most `max_bytes` that does not end inside a UTF-8 sequence.
std::string_view Utf8Prefix(std::string_view s, size_t max_bytes);
// `s` made safe to quote in a message or a JSON answer: every byte that is not part of a valid
// UTF-8 sequence becomes U+FFFD, and text beyond `max_bytes` is cut at a character boundary and
// marked "...(N bytes)". Valid, short text comes back unchanged.
std::string SafeText(std::string_view s, size_t max_bytes = 200);

// ---- numbers in text -------------------------------------------------------------------------------
// A decimal integer (optional '-', digits only, no spaces or '+') within [min, max]; nullopt
// otherwise, including on overflow. For query values and other client text: never std::stoll.
std::optional<std::int64_t> ParseInteger(std::string_view s, std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX);

}  // namespace emsim::model
