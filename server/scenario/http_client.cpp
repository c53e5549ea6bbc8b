// The runner's client for an emsim that is already running (`emsim scenario run --base-url`).
#include <httplib.h>

#include "scenario/client.hpp"

namespace emsim::scenario {

namespace {

class HttpClient : public Client {
 public:
  explicit HttpClient(std::string base_url) : base_url_(std::move(base_url)), client_(base_url_) {
    client_.set_connection_timeout(5, 0);
    // A single advance can run a day of webhook retries; give it room.
    client_.set_read_timeout(300, 0);
    client_.set_write_timeout(60, 0);
  }

  ClientResponse Send(const ClientRequest& in) override {
    httplib::Request req;
    req.method = in.method;
    httplib::Params params;
    for (const auto& [k, v] : in.query) params.emplace(k, v);
    req.path = params.empty() ? in.path : httplib::append_query_params(in.path, params);
    for (const auto& [k, v] : in.headers) req.headers.emplace(k, v);
    if (in.body) req.body = *in.body;
    ClientResponse out;
    auto res = client_.send(req);
    if (!res) {
      out.error = "no response from " + base_url_ + " (" + httplib::to_string(res.error()) + ")";
      return out;
    }
    out.status = res->status;
    out.body = std::move(res->body);
    out.headers.assign(res->headers.begin(), res->headers.end());
    return out;
  }

 private:
  std::string base_url_;
  httplib::Client client_;
};

}  // namespace

std::unique_ptr<Client> MakeHttpClient(const std::string& base_url) { return std::make_unique<HttpClient>(base_url); }

}  // namespace emsim::scenario
