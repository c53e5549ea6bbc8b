#pragma once
// One webhook POST over real HTTP(S) with cpp-httplib: Part 6 timeout, no redirects followed,
// certificate verification on unless told otherwise.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/socket.h>

#include "model/webhooks.hpp"

namespace emsim::events {

struct TransportOptions {
  std::int64_t timeoutMs = 10000;  // Part 6: 10 seconds per attempt
  std::string caFile;              // PEM bundle that signs the receivers' certificates
  bool insecure = false;           // skip certificate verification (self-signed test receivers)
  // --strict-webhook-urls: connect only to public addresses, checked after DNS resolution (every
  // address the name has), and to the address that was checked.
  bool publicAddressesOnly = false;
};

struct PostResult {
  std::optional<std::int64_t> status;  // set when an HTTP answer came
  std::string error;                   // set otherwise: timeout, connection, TLS
  std::string body;                    // the first kResponseBodyKept bytes of the answer
  std::int64_t durationMs = 0;         // real elapsed time
};

inline constexpr size_t kResponseBodyKept = 512;

// What kind of non-public address `addr` is ("loopback", "private", "link-local", "unspecified"),
// or "" for a public one. IPv4-mapped IPv6 addresses are judged by their IPv4 address.
std::string NonPublicKind(const sockaddr* addr);
// True when `host` (a name or a literal, IPv6 with or without brackets) resolves, and only to
// loopback addresses.
bool ResolvesOnlyToLoopback(const std::string& host);

PostResult PostJson(const model::UrlParts& url, const std::vector<std::pair<std::string, std::string>>& headers,
                    const std::string& body, const TransportOptions& options);

}  // namespace emsim::events
