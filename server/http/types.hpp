#pragma once
// What the pipeline hands a handler and what a handler hands back. No httplib here: handlers
// translate between these and the model (STYLE.md habit 2).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/services.hpp"
#include "model/auth.hpp"
#include "model/error.hpp"
#include "model/json.hpp"
#include "model/state.hpp"

namespace emsim::http {

struct Request {
  std::string method, path, requestId, operationId;
  std::map<std::string, std::string> params;  // path parameters (":id")
  json query = json::object();                // query string, values as strings
  json body;                                  // parsed JSON body; null when there was none
  bool hasBody = false;
  std::string rawBody;
  std::multimap<std::string, std::string> headers;  // names lower-cased
  std::optional<model::Fault> fault;                // the /_sim/faults fault this request met, if any
  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
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
