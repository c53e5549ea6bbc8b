#pragma once
// Part 6 "Signature": X-Service-Signature: t=<unix_seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">,
// keyed by the endpoint's secret (the whole whsec_... string). OpenSSL does the HMAC.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emsim::events {

std::string HmacSha256Hex(std::string_view key, std::string_view message);

// "t=1767258000,v1=5257a869..."
std::string SignatureHeader(std::string_view secret, std::int64_t t, std::string_view raw_body);

struct ParsedSignature {
  std::int64_t t = 0;
  std::vector<std::string> v1;  // every v1= value (a receiver accepts any that matches)
};
// nullopt when the header is not of the t=...,v1=... form.
std::optional<ParsedSignature> ParseSignatureHeader(std::string_view header);

// Constant-time comparison against every v1 value, as Part 6 asks of receivers.
bool SignatureMatches(const ParsedSignature& sig, std::string_view secret, std::string_view raw_body);

}  // namespace emsim::events
