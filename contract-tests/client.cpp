#include "client.hpp"

#include <memory>
#include <mutex>

#include "config.hpp"

namespace contract {

std::string Reply::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string Reply::Brief() const {
  std::string out = method + " " + target + " -> ";
  if (status == 0) return out + "no answer (" + transportError + ")";
  out += std::to_string(status);
  if (!raw.empty()) out += " " + (raw.size() > 300 ? raw.substr(0, 300) + "..." : raw);
  return out;
}

UrlParts SplitUrl(const std::string& url) {
  const auto scheme_end = url.find("://");
  const auto path_start = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  UrlParts p;
  p.origin = url.substr(0, path_start);
  if (path_start != std::string::npos) p.prefix = url.substr(path_start);
  while (!p.prefix.empty() && p.prefix.back() == '/') p.prefix.pop_back();
  return p;
}

namespace {

std::mutex g_mu;
std::unique_ptr<httplib::Client> g_client;
std::string g_prefix;

httplib::Client& Client() {
  if (!g_client) {
    const UrlParts parts = SplitUrl(Cfg().baseUrl);
    g_prefix = parts.prefix;
    g_client = std::make_unique<httplib::Client>(parts.origin);
    g_client->set_connection_timeout(Cfg().timeoutSeconds, 0);
    g_client->set_read_timeout(Cfg().timeoutSeconds, 0);
    g_client->set_write_timeout(Cfg().timeoutSeconds, 0);
    g_client->set_follow_location(false);
    g_client->set_keep_alive(true);
    if (!Cfg().caFile.empty()) g_client->set_ca_cert_path(Cfg().caFile.c_str());
  }
  return *g_client;
}

}  // namespace

Reply Send(const Call& call, const std::string& op) {
  std::lock_guard lock(g_mu);
  httplib::Client& client = Client();
  httplib::Request req;
  req.method = call.method;
  httplib::Params params(call.query.begin(), call.query.end());
  req.path = g_prefix + (params.empty() ? call.path : httplib::append_query_params(call.path, params));
  req.headers = call.extra;
  const std::string key = call.apiKey.value_or(Cfg().apiKey);
  if (!key.empty()) req.headers.emplace("x-auth-service", key);
  const std::string ws = call.workspaceKey.value_or(Cfg().workspaceKey);
  if (!ws.empty()) req.headers.emplace("x-workspace-key", ws);
  if (call.body) {
    req.body = call.body->dump();
    req.headers.emplace("Content-Type", "application/json");
  } else if (call.rawBody) {
    req.body = *call.rawBody;
    if (!call.contentType.empty()) req.headers.emplace("Content-Type", call.contentType);
  }
  Reply r;
  r.op = op;
  r.method = call.method;
  r.target = req.path;
  auto res = client.send(req);
  if (!res) {
    r.transportError = httplib::to_string(res.error());
    return r;
  }
  r.status = res->status;
  r.raw = res->body;
  r.headers = res->headers;
  r.body = json::parse(r.raw, nullptr, false);
  r.isJson = !r.body.is_discarded();
  if (!r.isJson) r.body = nullptr;
  return r;
}

Reply Sim(const std::string& method, const std::string& path, const json& body) {
  Call c;
  c.method = method;
  c.path = path;  // apiKey unset: the suite's, when it has one
  c.workspaceKey = "";
  if (!body.is_null()) c.body = body;
  return Send(c);
}

}  // namespace contract
