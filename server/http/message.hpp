#pragma once
// What the transport reads and writes: a request as it came off the wire and the answer to send.
// No application types here: the transport serves any RequestHandler (server.hpp).
#include <algorithm>
#include <functional>
#include <memory>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.hpp"
#include "core/spill_text.hpp"

namespace emsim::http {

// Request headers in the order they came, names lower-cased; a name may repeat (find gives the
// first). A vector, not a multimap: a request has a handful, and a tree node per header was an
// allocation each on every request, plus a rebalance (measured: ~1.2k instructions).
struct Headers : std::vector<std::pair<std::string, std::string>> {
  using vector::vector;
  const_iterator find(std::string_view name) const {
    return std::find_if(begin(), end(), [name](const auto& h) { return h.first == name; });
  }
};

struct RawRequest {
  std::string method, path, body;
  Headers headers;  // lower-cased names
  std::multimap<std::string, std::string> params;   // query string
  // The connection can send the answer later, from another thread (Response::gate): plain HTTP.
  bool canDefer = false;
};

// What an answer waits for before it may be sent (with --data-dir: its change on disk). The
// connection hands it the answer's bytes and goes back to waiting for the next request instead
// of sleeping until then: `Then(done)` runs done(nullptr) once the answer may go; when it must not
// (the change was not made durable), done(body) with the JSON body of the 500 the connection
// sends in its place before it closes. `done` runs once, maybe on another thread, and must not
// block.
class Gate {
 public:
  virtual ~Gate() = default;
  virtual void Then(std::function<void(const std::string* refusal)> done) = 0;
};

struct Response {
  int status = 200;
  json body{};
  std::optional<std::string> raw{};  // sent as-is instead of body.dump()
  std::string contentType = "application/json";
  std::vector<std::pair<std::string, std::string>> headers{};
  // Close the connection without answering (a /_sim sink simulating a receiver that drops it).
  bool closeConnection = false;
  // Sent as-is from a temporary file instead of either (a text too large to hold: a state dump).
  std::shared_ptr<const core::SpilledText> file{};
  // Sent once this says so (only to a request that had canDefer).
  std::shared_ptr<Gate> gate{};
};

}  // namespace emsim::http
