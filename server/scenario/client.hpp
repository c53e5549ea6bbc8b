#pragma once
// What the scenario runner talks to: "an emsim", one request at a time. The runner knows nothing
// of how a request reaches it: MakeHttpClient speaks HTTP to a running emsim (`emsim scenario run
// --base-url URL`); api::InProcessClient (api/control/in_process_client.hpp) calls the app's
// pipeline directly, for POST /_sim/scenarios/run and `emsim scenario run FILE`, so neither goes
// through the network. (Webhooks a step causes still go to their sinks over real HTTP: that is
// the emsim's own delivery, not the runner's.)
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace emsim::scenario {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct ClientRequest {
  std::string method;
  std::string path;  // may carry a "?query" of its own (links emsim handed out)
  HeaderList query;  // further query parameters, not yet encoded
  HeaderList headers;
  std::optional<std::string> body;
};

struct ClientResponse {
  int status = 0;
  std::string error;  // no answer at all (transport failure): status stays 0
  std::string body;   // as sent on the wire
  HeaderList headers;
};

class Client {
 public:
  virtual ~Client() = default;
  virtual ClientResponse Send(const ClientRequest& request) = 0;
};

// How MakeHttpClient connects. The defaults suit a scenario run against a local emsim: one advance
// can run a day of webhook retries, so an answer may take minutes.
struct HttpClientOptions {
  int connectTimeoutMs = 5000;
  int readTimeoutMs = 300000;
  int writeTimeoutMs = 60000;
  std::string caFile;  // https: PEM bundle to verify the server with (else the system's)
  // An answer body larger than this is not read to its end: the request fails with `error` set
  // (0: no limit). The shadow proxy bounds what a target can make it hold.
  size_t maxAnswerBytes = 0;
};

// A client for the emsim (or any deployment of the API) at `base_url` ("http://127.0.0.1:8080",
// "https://real.example/api": a path there prefixes every request's). Redirects are not followed:
// the caller sees the 3xx. A base URL that does not parse answers every request with `error` set.
std::unique_ptr<Client> MakeHttpClient(const std::string& base_url, const HttpClientOptions& options = {});

}  // namespace emsim::scenario
