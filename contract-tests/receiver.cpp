#include "receiver.hpp"

#include <chrono>
#include <cstring>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "client.hpp"
#include "config.hpp"

namespace contract {

Receiver::Receiver() : server_(std::make_unique<httplib::Server>()) {
  auto record = [this](const httplib::Request& req, httplib::Response& res) {
    Delivery d;
    d.method = req.method;
    d.path = req.path;
    d.body = req.body;
    d.headers = req.headers;
    d.receivedWallSeconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    int status;
    {
      std::lock_guard lock(mu_);
      received_.push_back(std::move(d));
      status = status_;
    }
    cv_.notify_all();
    res.status = status;
    res.set_content("{}", "application/json");
  };
  server_->Post(R"(/.*)", record);
  server_->Put(R"(/.*)", record);
  server_->Get(R"(/.*)", record);
  const Config& c = Cfg();
  port_ = c.receiverPort == 0 ? server_->bind_to_any_port(c.receiverHost)
                              : (server_->bind_to_port(c.receiverHost, c.receiverPort) ? c.receiverPort : -1);
  if (port_ > 0) {
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // httplib's stop() does nothing until the listen loop runs (its first act): a receiver
    // destroyed sooner would leave the loop serving for ever and the destructor's join hung
    // (seen when the machine is loaded). The loop starts at once after a good bind.
    while (!server_->is_running()) std::this_thread::yield();
  }
}

Receiver::~Receiver() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string Receiver::Url(const std::string& path) const {
  if (!Cfg().webhookReceiverUrl.empty()) {
    std::string base = Cfg().webhookReceiverUrl;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base + path;
  }
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void Receiver::RespondWith(int status) {
  std::lock_guard lock(mu_);
  status_ = status;
}

std::vector<Delivery> Receiver::Received() const {
  std::lock_guard lock(mu_);
  return received_;
}

std::vector<Delivery> Receiver::ReceivedOn(const std::string& path) const {
  std::lock_guard lock(mu_);
  std::vector<Delivery> out;
  for (const auto& d : received_)
    if (d.path == path) out.push_back(d);
  return out;
}

bool Receiver::WaitFor(const std::string& path, size_t n, int timeout_ms) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    size_t k = 0;
    for (const auto& d : received_) k += d.path == path;
    return k >= n;
  });
}

SignatureHeader ParseSignature(const std::string& header) {
  SignatureHeader s;
  bool has_t = false;
  size_t i = 0;
  while (i <= header.size()) {
    size_t j = header.find(',', i);
    if (j == std::string::npos) j = header.size();
    const std::string part = header.substr(i, j - i);
    const auto eq = part.find('=');
    if (eq != std::string::npos) {
      const std::string k = part.substr(0, eq), v = part.substr(eq + 1);
      if (k == "t") {
        char* end = nullptr;
        s.t = std::strtoll(v.c_str(), &end, 10);
        has_t = !v.empty() && *end == '\0';
      } else if (k == "v1") {
        s.v1.push_back(v);
      }
    }
    i = j + 1;
  }
  s.parsed = has_t && !s.v1.empty();
  return s;
}

std::string HmacSha256Hex(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), mac, &len);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[mac[i] >> 4];
    out += kHex[mac[i] & 15];
  }
  return out;
}

bool SignatureMatches(const std::string& secret, const SignatureHeader& sig, const std::string& raw_body) {
  if (!sig.parsed) return false;
  const std::string expected = HmacSha256Hex(secret, std::to_string(sig.t) + "." + raw_body);
  for (const auto& v : sig.v1)
    if (v.size() == expected.size() && CRYPTO_memcmp(v.data(), expected.data(), v.size()) == 0) return true;
  return false;
}

}  // namespace contract
