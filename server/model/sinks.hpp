#pragma once
// Built-in webhook receivers (/_sim/sinks, DESIGN.md): a sink answers by a small behaviour script
// and records every request, with whether its signature verified against the secret of the
// endpoint whose URL points at it. Deliveries reach a sink over real HTTP, like any receiver.
#include <functional>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

inline constexpr size_t kSinkRequestsKept = 1000;  // newest kept per sink; `received` counts all

// The path a sink receives on, below emsim's base URL.
std::string SinkReceivePath(const std::string& sink_id);

// `behaviour`: any of the SinkBehaviour fields (types already checked by the request schema).
Result<const Sink*> CreateSink(State& s, const std::string& name, const json& behaviour, Millis now);
Result<const Sink*> UpdateSink(State& s, const std::string& id, const std::optional<std::string>& name,
                               const json& behaviour);

struct SinkAnswer {
  enum class Kind { kRespond, kRedirect, kClose } kind = Kind::kRespond;
  std::int64_t status = 200;
  std::string body;
  std::string location;
  std::int64_t delayMs = 0;
};

struct IncomingRequest {
  std::string method, path, body;
  std::map<std::string, std::string> headers;  // lower-cased names
};
// What the transport found in X-Service-Signature: a problem ("no X-Service-Signature header",
// "malformed ...") or a verifier that answers whether the header matches a given secret.
struct SignatureProbe {
  std::optional<std::string> problem;
  std::function<bool(const std::string& secret)> matches;
  std::optional<std::int64_t> timestamp;  // the header's `t`, when it parsed
  std::int64_t nowSeconds = 0;            // now on the clock emsim signs with (wall, or simulated)
};

// Counts and records the request and answers what to do, by the behaviour script: the first
// `failFirst` requests get `failStatus`; then `closeConnection`, else `redirectTo`, else `status`.
//
// When the script answers 2xx, a sink with a `receiver` also acts on the event, as the two
// receivers every webhook consumer is one of (their record: `processing`, GET /_sim/sinks/:id):
// - "naive" applies every event it gets: each delivery appends to `applied` and sets the state of
//   the object the payload describes (`objects`, by the id of data.<resource>Details), stale
//   signatures and repeats included;
// - "idempotent" is the receiver Part 6 asks for: it refuses (400) a signature that does not
//   verify or whose `t` is further than `toleranceSeconds` from now (Part 6 recommends 5
//   minutes), answers 200 to an event id it has taken before without applying it again
//   ("consumers de-duplicate by event id"), and does not let an event older (by `created`) than
//   the last one applied to an object overwrite it.
// Scenarios compare the two: a fault of at-least-once delivery (model/faults.hpp) leaves the
// idempotent receiver's objects right and the naive one's wrong.
Result<SinkAnswer> ReceiveAtSink(State& s, const std::string& sink_id, IncomingRequest in, const SignatureProbe& sig,
                                 Millis now);

}  // namespace emsim::model
