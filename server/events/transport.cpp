#include "events/transport.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <chrono>
#include <cstring>
#include <memory>

#include <httplib.h>

namespace emsim::events {

namespace {

std::string Unbracketed(const std::string& host) {
  return host.size() >= 2 && host.front() == '[' && host.back() == ']' ? host.substr(1, host.size() - 2) : host;
}

struct AddrInfoDeleter {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};
using AddrInfo = std::unique_ptr<addrinfo, AddrInfoDeleter>;

AddrInfo Resolve(const std::string& host, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(Unbracketed(host).c_str(), nullptr, &hints, &found);
  if (rc != 0) {
    error = gai_strerror(rc);
    return nullptr;
  }
  return AddrInfo(found);
}

std::string NumericText(const sockaddr* a) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a->sa_family == AF_INET) inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a)->sin_addr, text, sizeof text);
  else if (a->sa_family == AF_INET6) inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr, text, sizeof text);
  return text;
}

std::string Ipv4Kind(std::uint32_t ip) {  // host byte order
  if (ip == 0) return "unspecified";
  if ((ip >> 24) == 0) return "unspecified";  // 0.0.0.0/8: "this network"
  if ((ip >> 24) == 127) return "loopback";
  if ((ip >> 24) == 10 || (ip >> 20) == (172u << 4 | 1) || (ip >> 16) == (192u << 8 | 168)) return "private";
  if ((ip >> 16) == (169u << 8 | 254)) return "link-local";
  return "";
}

}  // namespace

std::string NonPublicKind(const sockaddr* addr) {
  if (addr->sa_family == AF_INET)
    return Ipv4Kind(ntohl(reinterpret_cast<const sockaddr_in*>(addr)->sin_addr.s_addr));
  if (addr->sa_family != AF_INET6) return "not an internet address";
  const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr;
  if (IN6_IS_ADDR_UNSPECIFIED(&a)) return "unspecified";
  if (IN6_IS_ADDR_LOOPBACK(&a)) return "loopback";
  if (IN6_IS_ADDR_V4MAPPED(&a) || IN6_IS_ADDR_V4COMPAT(&a)) {
    std::uint32_t v4 = 0;
    std::memcpy(&v4, a.s6_addr + 12, 4);
    return Ipv4Kind(ntohl(v4));
  }
  if ((a.s6_addr[0] & 0xfe) == 0xfc) return "private";                          // fc00::/7
  if (a.s6_addr[0] == 0xfe && (a.s6_addr[1] & 0xc0) == 0x80) return "link-local";  // fe80::/10
  return "";
}

bool ResolvesOnlyToLoopback(const std::string& host) {
  std::string error;
  const AddrInfo found = Resolve(host, error);
  if (!found) return false;
  for (const addrinfo* a = found.get(); a; a = a->ai_next)
    if (NonPublicKind(a->ai_addr) != "loopback") return false;
  return true;
}

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

  PostResult out;
  // --strict-webhook-urls: every address the name resolves to must be public (a name that also
  // points inside cannot slip through on a later lookup), and the connection goes to the
  // address checked here, not to a second resolution.
  std::string pinned_address;
  if (options.publicAddressesOnly) {
    std::string error;
    const AddrInfo found = Resolve(url.host, error);
    if (!found) {
      out.error = "DNS error: cannot resolve " + url.host + ": " + error;
      out.durationMs = elapsed_ms();
      return out;
    }
    for (const addrinfo* a = found.get(); a; a = a->ai_next) {
      if (const std::string kind = NonPublicKind(a->ai_addr); !kind.empty()) {
        out.error = "refused by --strict-webhook-urls: " + url.host + " resolves to " + NumericText(a->ai_addr) +
                    " (" + kind + ")";
        out.durationMs = elapsed_ms();
        return out;
      }
      if (pinned_address.empty()) pinned_address = NumericText(a->ai_addr);
    }
  }

  httplib::Client cli(url.scheme + "://" + url.host + ":" + std::to_string(url.port));
  if (!pinned_address.empty())
    cli.set_hostname_addr_map({{url.host, pinned_address}, {Unbracketed(url.host), pinned_address}});
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
