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
};

// Counts and records the request and answers what to do, by the behaviour script: the first
// `failFirst` requests get `failStatus`; then `closeConnection`, else `redirectTo`, else `status`.
Result<SinkAnswer> ReceiveAtSink(State& s, const std::string& sink_id, IncomingRequest in, const SignatureProbe& sig,
                                 Millis now);

}  // namespace emsim::model
