#pragma once
// The router harness's input format, shared with the seed writer: requests as text, close to
// HTTP/1.1 so a corpus file reads like a request and the fuzzer's mutations stay meaningful.
//
//   POST /v1/domain/buy-domain?x=1      <- method, one space, target (path and query)
//   x-auth-service: emsim_test_...      <- headers, "name: value", until an empty line
//   content-type: application/json
//
//   {"domain": "..."}                   <- the rest is the body
//
// Several requests in one input are separated by a line "%%"; they run one after another on the
// same state, so a request can poison what a later one reads (a journaled body, a fault, a sink).
#include <string>
#include <string_view>
#include <vector>

#include "http/message.hpp"

namespace emsim::fuzz {

inline constexpr std::string_view kRequestSeparator = "\n%%\n";

// "%41" -> "A"; a malformed escape stays as it is, as cpp-httplib leaves it. In a query, "+" is a
// space (cpp-httplib's decode_url with convert_plus_to_space), in a path it is itself.
inline std::string PercentDecode(std::string_view s, bool plus_is_space) {
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i] == '+' && plus_is_space ? ' ' : s[i];
    }
  }
  return out;
}

inline std::vector<std::string_view> SplitRequests(std::string_view input) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t at = input.find(kRequestSeparator);
    out.push_back(input.substr(0, at));
    if (at == std::string_view::npos) break;
    input.remove_prefix(at + kRequestSeparator.size());
  }
  return out;
}

// One request of the text format above, as the HTTP layer would hand it to the router: header
// names lower-cased, the query split and decoded.
inline http::RawRequest ParseRawRequest(std::string_view text) {
  http::RawRequest raw;
  auto next_line = [&text]() {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  };
  const std::string_view first = next_line();
  const size_t sp = first.find(' ');
  raw.method = std::string(first.substr(0, sp));
  const std::string_view target = sp == std::string_view::npos ? std::string_view() : first.substr(sp + 1);
  const size_t q = target.find('?');
  raw.path = PercentDecode(target.substr(0, q), false);
  if (q != std::string_view::npos) {
    std::string_view query = target.substr(q + 1);
    while (!query.empty()) {
      const size_t amp = query.find('&');
      const std::string_view pair = query.substr(0, amp);
      const size_t eq = pair.find('=');
      raw.params.emplace(PercentDecode(pair.substr(0, eq), true),
                         eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1), true));
      query.remove_prefix(amp == std::string_view::npos ? query.size() : amp + 1);
    }
  }
  while (!text.empty()) {
    const std::string_view line = next_line();
    if (line.empty()) break;
    const size_t colon = line.find(':');
    std::string name(line.substr(0, colon));
    for (auto& c : name)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    raw.headers.emplace_back(std::move(name), std::string(value));
  }
  raw.body = std::string(text);
  return raw;
}

}  // namespace emsim::fuzz
