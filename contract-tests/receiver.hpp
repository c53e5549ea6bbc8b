#pragma once
// The suite's own webhook receiver (Part 6): an httplib server on a port of its own (0 = any
// free one) that records every request with its raw body, and answers with a status the test
// chooses. Against a real deployment it must be reachable from the service: --receiver-host /
// --receiver-port say where it listens, --webhook-receiver-url how the service reaches it.
#include <httplib.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace contract {

struct Delivery {
  std::string method, path, body;  // body exactly as received (signatures cover the raw bytes)
  httplib::Headers headers;
  long long receivedWallSeconds = 0;
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class Receiver {
 public:
  Receiver();
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  // The URL to register for `path`: --webhook-receiver-url + path, or http://127.0.0.1:<port> + path.
  std::string Url(const std::string& path) const;

  void RespondWith(int status);
  std::vector<Delivery> Received() const;
  std::vector<Delivery> ReceivedOn(const std::string& path) const;
  // Waits for the n-th request on `path` to arrive (network I/O, not simulated time) up to
  // timeout_ms of wall time; answers whether it did.
  bool WaitFor(const std::string& path, size_t n, int timeout_ms);

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Delivery> received_;
  int status_ = 200;
};

// Part 6 signature: "t=<unix_seconds>,v1=<hex_hmac_sha256>", v1 = HMAC-SHA256(secret, "<t>.<raw body>").
struct SignatureHeader {
  bool parsed = false;
  long long t = 0;
  std::vector<std::string> v1;  // every v1 value (a receiver accepts any that verifies)
};
SignatureHeader ParseSignature(const std::string& header);
std::string HmacSha256Hex(const std::string& key, const std::string& message);
// Constant-time comparison, as Part 6 asks of receivers.
bool SignatureMatches(const std::string& secret, const SignatureHeader& sig, const std::string& raw_body);

}  // namespace contract
