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
#include "http/message.hpp"
#include "model/auth.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "model/state.hpp"

namespace emsim::app {

using http::Headers;
using http::RawRequest;
using http::Response;

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

}  // namespace emsim::app
