#pragma once
// A real webhook receiver for tests: an httplib::Server on port 0 in the test process (not an
// emsim sink), recording every request as it arrived. Its behaviour is a function of the request
// number, so a test can say "500 twice, then 200", "redirect", or "hang until released".
// Signatures are checked with the test's own HMAC code (OpenSSL's HMAC directly), not emsim's.
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_server.hpp"

namespace emsim::testing {

inline std::string TestHmacSha256Hex(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), mac, &len);
  std::string hex;
  char buf[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", mac[i]);
    hex += buf;
  }
  return hex;
}

class Receiver {
 public:
  struct Hit {
    std::string path, body;
    httplib::Headers headers;
    std::string Header(const std::string& name) const {
      auto it = headers.find(name);
      return it == headers.end() ? std::string() : it->second;
    }
  };
  // Answers the status for the n-th request (1-based) to a path; may set headers on `res`.
  using Behaviour = std::function<int(int n, const httplib::Request& req, httplib::Response& res)>;

  explicit Receiver(httplib::Server* server = nullptr) : server_(server ? server : &own_) {
    server_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      int n = 0;
      Behaviour behaviour;
      {
        std::lock_guard lock(mu_);
        hits_.push_back({req.path, req.body, req.headers});
        n = ++per_path_[req.path];
        behaviour = behaviour_;
        cv_.notify_all();
      }
      res.status = behaviour ? behaviour(n, req, res) : 200;
      if (res.body.empty()) res.set_content("{\"ok\":true}", "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    // httplib listens with a backlog of 5; twenty deliveries at one instant would overflow it.
    struct Access : httplib::Server {
      static socket_t Socket(httplib::Server& s) { return (s.*(&Access::svr_sock_)).load(); }
    };
    ::listen(Access::Socket(*server_), 128);
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // httplib's stop() does nothing until the listen loop runs (its first act): a receiver
    // destroyed sooner would leave the loop serving for ever and the destructor's join hung.
    while (!server_->is_running()) std::this_thread::yield();
  }
  ~Receiver() {
    Release();
    server_->stop();
    thread_.join();
  }

  std::string Url(const std::string& path = "/hook", const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + std::to_string(port_) + path;
  }
  void SetBehaviour(Behaviour b) {
    std::lock_guard lock(mu_);
    behaviour_ = std::move(b);
  }
  void AlwaysAnswer(int status) {
    SetBehaviour([status](int, const httplib::Request&, httplib::Response&) { return status; });
  }
  // Handlers that call WaitForRelease() block until Release() (or 10 s, so a failing test ends).
  void WaitForRelease() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return released_; });
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  // Waits for the n-th request to arrive (real-clock tests; bounded so a failing test ends).
  bool WaitForHits(size_t n, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return hits_.size() >= n; });
  }
  // Blocks the caller until `n` requests are inside handlers at once (or the limit passes).
  bool Rendezvous(size_t n, std::chrono::milliseconds limit) {
    std::unique_lock lock(mu_);
    ++inside_;
    cv_.notify_all();
    const bool met = cv_.wait_for(lock, limit, [&] { return inside_ >= n; });
    return met;
  }

  std::vector<Hit> Hits() const {
    std::lock_guard lock(mu_);
    return hits_;
  }
  std::vector<Hit> HitsTo(const std::string& path) const {
    std::vector<Hit> out;
    for (auto& h : Hits())
      if (h.path == path) out.push_back(h);
    return out;
  }
  size_t Count() const {
    std::lock_guard lock(mu_);
    return hits_.size();
  }

 private:
  httplib::Server own_;
  httplib::Server* server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Hit> hits_;
  std::map<std::string, int> per_path_;
  Behaviour behaviour_;
  bool released_ = false;
  size_t inside_ = 0;
};

// ---- small API helpers --------------------------------------------------------------------------

struct CreatedEndpoint {
  std::string id, secret;
};

inline CreatedEndpoint CreateEndpoint(TestServer& server, const std::string& url,
                                      json events = json::array({"workspace.invitations"}),
                                      const std::string& key = kAliceKey) {
  auto r = server.Post("/v2/webhooks/endpoints", {{"url", url}, {"enabled_events", events}}, key);
  EXPECT_EQ(r.status, 200) << r.raw;
  if (r.status != 200) return {};
  return {r.body["data"]["id"], r.body["data"]["secret"]};
}

// Emits an event through POST /_sim/events; answers the event envelope (+ accountId).
inline json Trigger(TestServer& server, const std::string& type = "workspace.invitations",
                    const std::string& key = kAliceKey, const std::string& object_id = "ws_northwind") {
  json body = {{"type", type}, {"apiKey", key}};
  if (!object_id.empty()) body["objectId"] = object_id;
  auto r = server.Post("/_sim/events", body, "");
  EXPECT_EQ(r.status, 201) << r.raw;
  return r.body["event"];
}

inline json Deliveries(TestServer& server, const std::string& query = "") {
  auto r = server.Get("/_sim/deliveries" + query, "");
  EXPECT_EQ(r.status, 200) << r.raw;
  return r.body;
}

inline json EndpointSummary(TestServer& server, const std::string& id) {
  const json all = Deliveries(server, "?endpointId=" + id);
  for (const auto& e : all["endpoints"])
    if (e["id"] == id) return e;
  ADD_FAILURE() << "no endpoint " << id;
  return nullptr;
}

}  // namespace emsim::testing
