#include "http/server.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include <sys/socket.h>

#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>

#include <filesystem>

#include "api/json_out.hpp"
#include "http/error_mapper.hpp"
#include "model/messages.hpp"

namespace emsim::http {

namespace {

constexpr size_t kControlMaxBodyBytes = 512u * 1024 * 1024;
// Debian's cpp-httplib is a compiled library that listens with a backlog of 5: a burst of more
// simultaneous connects than that overflows the accept queue and clients see resets (measured:
// 20 concurrent buyers, TcpExtListenOverflows rising). Linux updates the backlog when listen()
// is called again on a listening socket, so Bind() does that.
constexpr int kListenBacklog = 1024;

// ASCII only, as header names are (RFC 9110 tokens); std::tolower is a call per byte.
std::string Lower(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// cpp-httplib adds the socket's addresses to a request's headers; the client did not send them
// and nothing reads them there, so they are not copied (issue 7: half of a request's headers).
bool IsPseudoHeader(const std::string& name) {
  return name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" || name == "LOCAL_PORT";
}

// What set_content does, minus a copy of the body (httplib 0.11 has no set_content(string&&)).
void Write(Response&& res, httplib::Response& out) {
  out.status = res.status;
  for (const auto& [k, v] : res.headers) out.set_header(k, v);
  out.body = res.raw ? std::move(*res.raw) : api::DumpJson(res.body);  // = dump(), ~4x cheaper
  out.set_header("Content-Type", res.contentType);
}

std::string PeerText(const sockaddr_storage& a, socklen_t len, int& port) {
  char host[NI_MAXHOST];
  char serv[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&a), len, host, sizeof host, serv, sizeof serv,
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return {};
  port = std::atoi(serv);
  return host;
}

// cpp-httplib gives a handler no socket, and always writes an answer. To close a connection
// without answering, find the socket of this request (the one connected to the request's peer
// on the request's local port) and shut it down: the client reads EOF instead of a response,
// and httplib's own write then fails harmlessly (it ignores SIGPIPE) before it closes the fd.
void AbortConnection(const httplib::Request& in) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = 0;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (...) {
      continue;
    }
    sockaddr_storage local{}, peer{};
    socklen_t local_len = sizeof local, peer_len = sizeof peer;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0) continue;
    if (local.ss_family != AF_INET && local.ss_family != AF_INET6) continue;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) continue;
    int local_port = -1, peer_port = -1;
    PeerText(local, local_len, local_port);
    const std::string peer_addr = PeerText(peer, peer_len, peer_port);
    if (local_port == in.local_port && peer_port == in.remote_port && peer_addr == in.remote_addr) {
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
  }
}

}  // namespace

HttpServer::HttpServer(app::Services& svc, Router& router)
    : svc_(svc), router_(router), server_(std::make_unique<httplib::Server>()) {
  auto& s = *server_;
  s.set_tcp_nodelay(true);
  s.set_socket_options([this](socket_t sock) {
    httplib::default_socket_options(sock);  // what httplib does without this hook (SO_REUSEADDR)
    listen_fd_ = static_cast<int>(sock);
  });
  // httplib serves a keep-alive connection on one pool thread until the connection has been idle
  // for the keep-alive timeout; a connection beyond the pool size waits for a free thread, however
  // long. So: many threads (cheap: each costs tens of KiB resident) and a short idle timeout, so
  // parallel test clients are all served at once (issue 7: 32 connections, p99 < 5 ms).
  s.set_keep_alive_max_count(100000);
  s.set_keep_alive_timeout(5);
  s.set_read_timeout(30, 0);
  // The public API's limit (--max-body-bytes) is enforced by the router; the transport limit is
  // larger so that a whole-state PUT /_sim/state of a big fixture still fits.
  s.set_payload_max_length(std::max<size_t>(svc_.options.maxBodyBytes, kControlMaxBodyBytes));
  // 64 by default (one worker per keep-alive connection of a 32-64 connection load), +32: under a
  // manual clock, POST /_sim/clock/advance holds a worker while it sends up to 32 webhook attempts
  // at once, and those sent to this server's own sinks each need a free worker to be answered.
  const int threads = svc_.options.threads > 0
                          ? svc_.options.threads
                          : std::max(64, static_cast<int>(std::thread::hardware_concurrency()) * 8) + 32;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };

  auto handle = [this](const httplib::Request& in, httplib::Response& out) {
    RawRequest raw;
    raw.method = in.method;
    raw.path = in.path;
    raw.body = in.body;
    raw.headers.reserve(in.headers.size());
    for (const auto& [k, v] : in.headers)
      if (!IsPseudoHeader(k)) raw.headers.emplace_back(Lower(k), v);
    for (const auto& [k, v] : in.params) raw.params.emplace(k, v);
    Response res = router_.Handle(std::move(raw));
    if (res.closeConnection) AbortConnection(in);
    Write(std::move(res), out);
  };
  // A GET is answered from httplib's pre-routing hook, before its routing, which would otherwise
  // std::regex_match every path against the catch-all pattern below: ~4.6k instructions of a
  // ~60k-instruction list request (callgrind, issue 7), for a match that always succeeds. Nothing
  // else is skipped: the hook runs after the request line and headers are read, httplib 0.11
  // reads no body for a GET on either path (detail::expect_content), it mounts no file
  // directories here, and an exception thrown in the hook reaches the same exception handler.
  // Other methods need routing: httplib reads a body only after the hook.
  s.set_pre_routing_handler([handle](const httplib::Request& in, httplib::Response& out) {
    if (in.method != "GET") return httplib::Server::HandlerResponse::Unhandled;
    handle(in, out);
    return httplib::Server::HandlerResponse::Handled;
  });
  const char* any = R"(/.*)";
  s.Get(any, handle);  // HEAD (httplib routes it with the GETs)
  s.Post(any, handle);
  s.Put(any, handle);
  s.Patch(any, handle);
  s.Delete(any, handle);
  s.Options(any, handle);

  // Errors httplib raises before our pipeline runs (body over the limit: 413; unparsable
  // request line: 400) still answer in the spec's error shape.
  s.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    model::Error e;
    if (res.status == 413) e = {model::ErrorCode::kPayloadTooLarge,
                                std::string(model::msg::kPayloadTooLarge) + " (limit " +
                                    std::to_string(svc_.options.maxBodyBytes) + " bytes)", {}};
    else if (res.status == 404) e = model::Error::NotFound(model::msg::kRouteNotFound);
    else if (res.status == 400) e = model::Error::Validation("request", "Malformed HTTP request", "headers");
    else e = {model::ErrorCode::kInternal, "HTTP error " + std::to_string(res.status), {}};
    Response r = ToResponse(e, svc_.errorIds.Next());
    r.status = res.status;
    if (r.body.contains("status")) r.body["status"] = res.status;
    res.set_content(api::DumpJson(r.body), "application/json");
    svc_.journal.Add({{"method", req.method}, {"path", req.path}, {"status", res.status}, {"response", r.body}});
  });
  s.set_exception_handler([this](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    Write(ToResponse(model::Error::Internal(model::msg::kInternalError), svc_.errorIds.Next()), res);
  });
}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::Bind(const std::string& host, int port) {
  int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port));
  if (listen_fd_ >= 0) ::listen(listen_fd_, kListenBacklog);  // best effort; see kListenBacklog
  return bound;
}

void HttpServer::Serve() {
  serve_entered_ = true;
  if (!stop_requested_) server_->listen_after_bind();
  serve_done_ = true;
}

void HttpServer::Stop() {
  // httplib's stop() closes the listening socket only once its listen loop is running; called
  // before that (a test that starts a server and stops it at once), it did nothing and the loop
  // then served for ever: App::Stop hung joining it (seen as a 120 s ctest timeout). Both sides
  // write their flag before reading the other's (sequentially consistent atomics), so either
  // Serve sees the request and never listens, or Stop sees Serve entered and waits until the loop
  // runs to stop it, or until Serve is done. The wait is only for the loop to start: Stop does not
  // wait for the workers to finish (App::Stop joins the serving thread for that).
  if (!server_) return;
  stop_requested_ = true;
  if (!serve_entered_) return;
  while (!serve_done_ && !server_->is_running()) std::this_thread::yield();
  if (server_->is_running()) server_->stop();
}

bool HttpServer::IsRunning() const { return server_->is_running(); }

}  // namespace emsim::http
