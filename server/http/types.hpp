#pragma once
// What the pipeline hands a handler and what a handler hands back. No httplib here: handlers
// translate between these and the model (STYLE.md habit 2).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/services.hpp"
#include "model/auth.hpp"
#include "model/error.hpp"
#include "model/json.hpp"
#include "model/state.hpp"

namespace emsim::http {

// Request headers in the order they came, names lower-cased; a name may repeat (find gives the
// first). A vector, not a multimap: a request has a handful, and a tree node per header was an
// allocation each on every request, plus a rebalance (~1.2k instructions; issue 7).
struct Headers : std::vector<std::pair<std::string, std::string>> {
  using vector::vector;
  const_iterator find(std::string_view name) const {
    return std::find_if(begin(), end(), [name](const auto& h) { return h.first == name; });
  }
};

struct Request {
  std::string method, path, requestId, operationId;
  std::map<std::string, std::string> params;  // path parameters (":id")
  json query = json::object();                // query string, values as strings
  json body;                                  // parsed JSON body; null when there was none
  bool hasBody = false;
  std::string rawBody;
  Headers headers;                    // names lower-cased
  std::optional<model::Fault> fault;  // the /_sim/faults fault this request met, if any
  // The header's value, "" when absent; a reference, not a copy (an API key is longer than a
  // short string's inline room, so each copy was an allocation; issue 7).
  const std::string& Header(std::string_view lower_name) const {
    static const std::string kNone;
    auto it = headers.find(lower_name);
    return it == headers.end() ? kNone : it->second;
  }
  std::string Query(const std::string& key, std::string def = "") const {
    return query.contains(key) && query[key].is_string() ? query[key].get<std::string>() : def;
  }
};

struct Response {
  int status = 200;
  json body;
  std::optional<std::string> raw;  // sent as-is instead of body.dump()
  std::string contentType = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  // Close the connection without answering (a /_sim sink simulating a receiver that drops it).
  bool closeConnection = false;
};

using Reply = model::Result<Response>;

struct Ctx {
  app::Services& svc;
  const Request& req;
  model::Caller caller;
  model::Millis now;
};

using Handler = Reply (*)(Ctx&);

// The spec's envelope (Part 4 intro): {status, message, data}, status mirroring HTTP.
inline Response Envelope(std::string message, json data, int status = 200) {
  return Response{status, json{{"status", status}, {"message", std::move(message)}, {"data", std::move(data)}}, {}, "application/json", {}};
}
inline Response Json(json body, int status = 200) {
  return Response{status, std::move(body), {}, "application/json", {}};
}

}  // namespace emsim::http
