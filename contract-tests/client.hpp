#pragma once
// The suite's only way to the target: plain HTTP(S) with cpp-httplib. Links no server code.
#include <httplib.h>

#include <map>
#include <optional>
#include <string>

#include "core/json.hpp"

namespace contract {

using json = nlohmann::json;

struct Reply {
  std::string op;      // operation id, or "" for control-plane calls
  std::string method;  // what was sent, for messages
  std::string target;  // path + query
  int status = 0;      // 0: no HTTP answer (see transportError)
  std::string transportError;
  std::string raw;
  json body;            // parsed JSON; null when the body was not JSON
  bool isJson = false;
  httplib::Headers headers;  // case-insensitive names

  std::string Header(const std::string& name) const;
  // "GET /v1/domain/list -> 500 {"status":500,...}" (body cut to 300 chars), for messages.
  std::string Brief() const;
};

struct Call {
  std::string method = "GET";
  std::string path;  // may contain the query already
  std::map<std::string, std::string> query;
  std::optional<json> body;            // sent as application/json
  std::optional<std::string> rawBody;  // sent as-is with contentType
  std::string contentType = "application/json";
  std::optional<std::string> apiKey;        // nullopt: the configured key; "": no x-auth-service
  std::optional<std::string> workspaceKey;  // nullopt: the configured workspace key (if any); "": none
  httplib::Headers extra;
};

// A request to the target at Cfg().baseUrl; `op` names the operation in failure messages.
Reply Send(const Call& call, const std::string& op = "");

// A control-plane (/_sim) request. Once the suite has an API key it goes along in x-auth-service:
// emsim then acts on that tenant's clock, and a proxy in front of several emsims
// (deploy/haproxy.cfg) routes the call to the tenant's shard. /_sim needs no key.
Reply Sim(const std::string& method, const std::string& path, const json& body = nullptr);

// An https?:// URL split into what httplib::Client wants and the path prefix after it.
struct UrlParts {
  std::string origin;  // scheme://host[:port]
  std::string prefix;  // "" or "/something" (no trailing slash)
};
UrlParts SplitUrl(const std::string& url);

}  // namespace contract
