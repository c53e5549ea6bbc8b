// The runner's client for an emsim that is already running (`emsim scenario run --base-url`); the
// shadow proxy's client for the deployment it forwards to (`emsim proxy --target`).
#include <httplib.h>

#include "model/webhooks.hpp"
#include "scenario/client.hpp"

namespace emsim::scenario {

namespace {

void SetTimeout(int ms, const std::function<void(time_t, time_t)>& set) {
  const int bounded = std::max(1, ms);
  set(static_cast<time_t>(bounded / 1000), static_cast<time_t>((bounded % 1000) * 1000));
}

class HttpClient : public Client {
 public:
  HttpClient(std::string base_url, const HttpClientOptions& options)
      : base_url_(std::move(base_url)), max_answer_bytes_(options.maxAnswerBytes) {
    auto url = model::ParseUrl(base_url_);
    if (!url) {
      error_ = "the base URL '" + base_url_ + "' is not scheme://host[:port][/path]: " + url.error().message;
      return;
    }
    // httplib takes scheme://host:port only; a path of the base URL prefixes every request's.
    prefix_ = url->target.substr(0, url->target.find('?'));
    while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
    client_ = std::make_unique<httplib::Client>(url->scheme + "://" + url->host + ":" + std::to_string(url->port));
    SetTimeout(options.connectTimeoutMs, [&](time_t s, time_t us) { client_->set_connection_timeout(s, us); });
    SetTimeout(options.readTimeoutMs, [&](time_t s, time_t us) { client_->set_read_timeout(s, us); });
    SetTimeout(options.writeTimeoutMs, [&](time_t s, time_t us) { client_->set_write_timeout(s, us); });
    client_->set_follow_location(false);
    client_->set_decompress(false);
    if (url->scheme == "https" && !options.caFile.empty()) client_->set_ca_cert_path(options.caFile.c_str());
  }

  ClientResponse Send(const ClientRequest& in) override {
    ClientResponse out;
    if (!client_) {
      out.error = error_;
      return out;
    }
    httplib::Request req;
    req.method = in.method;
    httplib::Params params;
    for (const auto& [k, v] : in.query) params.emplace(k, v);
    const std::string path = prefix_ + in.path;
    req.path = params.empty() ? path : httplib::append_query_params(path, params);
    for (const auto& [k, v] : in.headers) req.headers.emplace(k, v);
    if (in.body) req.body = *in.body;
    std::string body;
    bool too_large = false;
    if (max_answer_bytes_ > 0) {
      req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
        if (body.size() + n > max_answer_bytes_) {
          too_large = true;
          return false;
        }
        body.append(data, n);
        return true;
      };
    }
    auto res = client_->send(req);
    if (!res) {
      out.error = too_large ? "the answer of " + base_url_ + " is larger than " + std::to_string(max_answer_bytes_) + " bytes"
                            : "no response from " + base_url_ + " (" + httplib::to_string(res.error()) + ")";
      return out;
    }
    out.status = res->status;
    out.body = max_answer_bytes_ > 0 ? std::move(body) : std::move(res->body);
    out.headers.assign(res->headers.begin(), res->headers.end());
    return out;
  }

 private:
  std::string base_url_;
  std::string prefix_;
  std::string error_;
  size_t max_answer_bytes_ = 0;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace

std::unique_ptr<Client> MakeHttpClient(const std::string& base_url, const HttpClientOptions& options) {
  return std::make_unique<HttpClient>(base_url, options);
}

}  // namespace emsim::scenario
