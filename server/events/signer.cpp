#include "events/signer.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace emsim::events {

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), mac, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[mac[i] >> 4];
    out += kHex[mac[i] & 0xf];
  }
  return out;
}

std::string SignatureHeader(std::string_view secret, std::int64_t t, std::string_view raw_body) {
  const std::string ts = std::to_string(t);
  std::string signed_text;
  signed_text.reserve(ts.size() + 1 + raw_body.size());
  signed_text.append(ts).append(".").append(raw_body);
  return "t=" + ts + ",v1=" + HmacSha256Hex(secret, signed_text);
}

std::optional<ParsedSignature> ParseSignatureHeader(std::string_view header) {
  ParsedSignature sig;
  bool have_t = false;
  size_t i = 0;
  while (i <= header.size()) {
    size_t j = header.find(',', i);
    if (j == std::string_view::npos) j = header.size();
    std::string_view item = header.substr(i, j - i);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "t") {
      if (value.empty() || value.size() > 18) return std::nullopt;
      std::int64_t t = 0;
      for (char c : value) {
        if (c < '0' || c > '9') return std::nullopt;
        t = t * 10 + (c - '0');
      }
      sig.t = t;
      have_t = true;
    } else if (key == "v1") {
      sig.v1.emplace_back(value);
    }  // other schemes (v0, ...) are ignored, as Stripe-style receivers do
    i = j + 1;
  }
  if (!have_t || sig.v1.empty()) return std::nullopt;
  return sig;
}

bool SignatureMatches(const ParsedSignature& sig, std::string_view secret, std::string_view raw_body) {
  std::string signed_text = std::to_string(sig.t);
  signed_text.append(".").append(raw_body);
  const std::string expected = HmacSha256Hex(secret, signed_text);
  bool any = false;
  for (const auto& v : sig.v1) {
    if (v.size() != expected.size()) continue;
    if (CRYPTO_memcmp(v.data(), expected.data(), expected.size()) == 0) any = true;
  }
  return any;
}

}  // namespace emsim::events
