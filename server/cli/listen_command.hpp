#pragma once
// `emsim listen`: a local webhook endpoint for a developer's app. Registers an endpoint on a
// running emsim (Part 4.10) whose URL is a listener of its own on 127.0.0.1, forwards every
// delivery to the app unchanged (body and signature headers), and answers emsim with the app's
// answer, so emsim's Part 6 retries and the Part 3 auto-disable act on what the app did.
#include <httplib.h>

#include <map>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace emsim::cli {

struct ListenOptions {
  std::string url = "http://127.0.0.1:8080";  // the emsim
  std::string apiKey;                         // the account's x-auth-service key
  std::string forwardTo;                      // the app: http://localhost:3000/hooks
  std::vector<std::string> events;            // empty: every type GET /v2/webhooks/events lists
};

// `exitCode` 1: the emsim answered an error; 2: unreachable or bad options.
struct ListenError : std::runtime_error {
  ListenError(int code, const std::string& message) : std::runtime_error(message), exitCode(code) {}
  int exitCode;
};

class Listener {
 public:
  // Lines go to `out`: the endpoint and its secret once, then one per delivery attempt.
  Listener(ListenOptions options, std::ostream& out);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds 127.0.0.1 on a free port, serves on a thread, registers the endpoint; throws ListenError
  // (the listener stopped again) when emsim refuses or cannot be reached.
  void Start();
  // Disables the endpoint (PATCH status "disabled": Part 4.10 has no delete) and stops serving.
  // Safe to call twice; the destructor calls it.
  void Stop();

  int port() const { return port_; }
  const std::string& endpointId() const { return endpoint_id_; }
  const std::string& secret() const { return secret_; }

 private:
  void Forward(const httplib::Request& req, httplib::Response& res);
  // A request to the emsim's public API with the API key; throws ListenError.
  std::string Call(const std::string& method, const std::string& path, const std::string& body);

  ListenOptions options_;
  std::ostream& out_;
  std::string app_base_, app_path_;  // forwardTo split for httplib::Client
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string endpoint_id_, secret_;
  bool stopped_ = true;
  std::mutex mu_;                      // out_ and attempts_
  std::map<std::string, int> attempts_;  // attempts seen per event id
};

// `emsim listen ...` with its flags (EMSIM_URL, EMSIM_API_KEY as fallbacks); runs until SIGINT or
// SIGTERM. Answers the exit code.
int ListenCommand(const std::vector<std::string>& args);

}  // namespace emsim::cli
