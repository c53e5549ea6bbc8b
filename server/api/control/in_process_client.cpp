#include "api/control/in_process_client.hpp"

#include "core/json_out.hpp"
#include "core/text.hpp"

namespace emsim::api {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding as the transport applies it to what comes off the wire: the path keeps '+',
// a query parameter reads it as a space. A '%' not followed by two hex digits stays as it is.
std::string Decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

// The methods whose body the transport reads (and limits): the others carry none.
bool ReadsBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

}  // namespace

scenario::ClientResponse InProcessClient::Send(const scenario::ClientRequest& in) {
  http::RawRequest raw;
  raw.method = in.method;
  const size_t question = in.path.find('?');
  raw.path = Decode(std::string_view(in.path).substr(0, question), false);
  if (question != std::string::npos) {
    const std::string_view query = std::string_view(in.path).substr(question + 1);
    for (size_t from = 0; from <= query.size();) {
      size_t amp = query.find('&', from);
      if (amp == std::string_view::npos) amp = query.size();
      const std::string_view pair = query.substr(from, amp - from);
      if (!pair.empty()) {
        const size_t eq = pair.find('=');
        raw.params.emplace(Decode(pair.substr(0, eq), true),
                           eq == std::string_view::npos ? std::string() : Decode(pair.substr(eq + 1), true));
      }
      from = amp + 1;
    }
  }
  for (const auto& [k, v] : in.query) raw.params.emplace(k, v);
  for (const auto& [k, v] : in.headers) raw.headers.emplace_back(model::ToLower(k), v);
  if (in.body && ReadsBody(in.method)) raw.body = *in.body;

  http::Response res;
  // The transport's own limit, from the route, before the pipeline sees the body.
  if (const size_t limit = pipeline_.BodyLimit(raw.method, raw.path); raw.body.size() > limit)
    res = pipeline_.Refuse(http::Refusal{413, "", limit}, raw.method, raw.path, /*record=*/true);
  else
    res = pipeline_.Handle(std::move(raw));

  scenario::ClientResponse out;
  if (res.closeConnection) {
    out.error = "the emsim closed the connection without answering";
    return out;
  }
  out.status = res.status;
  out.body = res.raw ? std::move(*res.raw) : core::DumpJson(res.body);
  out.headers = std::move(res.headers);
  out.headers.emplace_back("Content-Type", res.contentType);
  return out;
}

}  // namespace emsim::api
