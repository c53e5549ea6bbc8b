#include "events/transport.hpp"

#include <chrono>

#include <httplib.h>

namespace emsim::events {

PostResult PostJson(const model::UrlParts& url, const std::vector<std::pair<std::string, std::string>>& headers,
                    const std::string& body, const TransportOptions& options) {
  using Steady = std::chrono::steady_clock;
  const auto started = Steady::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - started).count();
  };
  const std::int64_t timeout = std::max<std::int64_t>(1, options.timeoutMs);
  const time_t sec = static_cast<time_t>(timeout / 1000);
  const time_t usec = static_cast<time_t>((timeout % 1000) * 1000);

  httplib::Client cli(url.scheme + "://" + url.host + ":" + std::to_string(url.port));
  cli.set_connection_timeout(sec, usec);
  cli.set_read_timeout(sec, usec);
  cli.set_write_timeout(sec, usec);
  cli.set_follow_location(false);  // Part 6: redirects are not followed (a 3xx is a failure)
  cli.set_keep_alive(false);
  cli.set_decompress(false);
  if (url.scheme == "https") {
    cli.enable_server_certificate_verification(!options.insecure);
    if (!options.caFile.empty()) cli.set_ca_cert_path(options.caFile.c_str());
  }

  PostResult out;
  httplib::Request req;
  req.method = "POST";
  req.path = url.target;
  for (const auto& [k, v] : headers) req.headers.emplace(k, v);
  req.body = body;
  bool over_deadline = false;
  // httplib's timeouts bound each read and write; this bounds the whole answer, so a receiver
  // that trickles its body still fails at the Part 6 timeout.
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (elapsed_ms() > timeout) {
      over_deadline = true;
      return false;
    }
    if (out.body.size() < kResponseBodyKept) out.body.append(data, std::min(n, kResponseBodyKept - out.body.size()));
    return true;
  };
  auto res = cli.send(req);
  out.durationMs = elapsed_ms();
  if (res) {
    out.status = res->status;
    return out;
  }
  out.body.clear();
  const std::string timeout_text = "timeout: no complete answer within " + std::to_string(timeout) + " ms";
  switch (res.error()) {
    case httplib::Error::Canceled:
      out.error = over_deadline ? timeout_text : "request canceled";
      break;
    case httplib::Error::ConnectionTimeout:
      out.error = "timeout: could not connect within " + std::to_string(timeout) + " ms";
      break;
    case httplib::Error::Read:
      // A read that waited the whole timeout timed out; an early one means the peer closed.
      out.error = out.durationMs + 5 >= timeout ? timeout_text : "connection closed before a complete answer";
      break;
    case httplib::Error::Write:
      out.error = out.durationMs + 5 >= timeout ? timeout_text : "connection error: could not send the request";
      break;
    case httplib::Error::Connection:
      out.error = "connection error: could not connect to " + url.host + ":" + std::to_string(url.port);
      break;
    case httplib::Error::SSLConnection:
      out.error = "TLS error: handshake failed";
      break;
    case httplib::Error::SSLServerVerification:
      out.error = "TLS error: server certificate verification failed";
      break;
    case httplib::Error::SSLLoadingCerts:
      out.error = "TLS error: could not load CA certificates" +
                  (options.caFile.empty() ? std::string() : " from " + options.caFile);
      break;
    default:
      out.error = "error: " + httplib::to_string(res.error());
  }
  return out;
}

}  // namespace emsim::events
