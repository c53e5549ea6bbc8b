#include "http/server.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <httplib.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "core/json_out.hpp"
#include "core/text.hpp"
#include "http/connection.hpp"
#include "http/pool.hpp"
#include "runtime/log.hpp"

namespace emsim::http {

namespace {

// Debian's cpp-httplib is a compiled library that listens with a backlog of 5: a burst of more
// simultaneous connects than that overflows the accept queue and clients see resets (measured:
// 20 concurrent buyers, TcpExtListenOverflows rising). Linux updates the backlog when listen()
// is called again on a listening socket, so Bind() does that.
constexpr int kListenBacklog = 1024;
// Threads beyond the connection cap: a connection over the cap still needs one to be told 503.
constexpr size_t kRefusalThreads = 64;
// Limits on a chunked body's framing (chunk-size lines, trailers), before the body limit.
constexpr size_t kMaxChunkLine = 1024;
constexpr size_t kMaxTrailerBytes = 8 * 1024;
// The transport's verdict on a request's framing (body too large, bad Content-Length, ...), from
// the connection's per-request hook to the handler: cpp-httplib passes nothing else between
// them. A copy a client sends is removed before the hook sets its own.
constexpr const char* kVerdictHeader = "EMSIM-TRANSPORT-VERDICT";


// cpp-httplib adds the socket's addresses to a request's headers; the client did not send them
// and nothing reads them there, so they are not copied (measured: half of a request's headers).
bool IsPseudoHeader(std::string_view name) {
  using namespace std::string_view_literals;
  return name == "REMOTE_ADDR"sv || name == "REMOTE_PORT"sv || name == "LOCAL_ADDR"sv || name == "LOCAL_PORT"sv;
}

// What set_content does, minus a copy of the body (httplib 0.11 has no set_content(string&&)).
void Write(Response&& res, httplib::Response& out) {
  out.status = res.status;
  for (const auto& [k, v] : res.headers) out.set_header(k, v);
  if (res.file) {
    // Read back a piece at a time as the socket takes it: the text is never whole in memory.
    const size_t size = res.file->size();  // before the provider takes the file
    out.set_content_provider(size, res.contentType,
                             [file = std::move(res.file), piece = std::string()](
                                 size_t offset, size_t length, httplib::DataSink& sink) mutable {
                               // One buffer for the whole answer: a fresh megabyte a piece was
                               // a mapping, its page faults and an unmapping each time.
                               piece.resize(std::min<size_t>(length, 1024 * 1024));
                               const size_t n = file->ReadAt(offset, piece.data(), piece.size());
                               return n > 0 && sink.write(piece.data(), n);
                             });
    return;
  }
  out.body = res.raw ? std::move(*res.raw) : core::DumpJson(res.body);  // = dump(), ~4x cheaper
  out.set_header("Content-Type", res.contentType);
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


// What a request's framing depends on, read in one pass over its headers with emsim's fold
// (core/text): each of cpp-httplib's lookups searches its header tree comparing names through
// libc's tolower, a call per character. The five lookups this took, and the handler's sixth, were
// about a quarter of the tolower calls of a POST (2.15% -> 1.67% of emsim's CPU samples; the rest
// is cpp-httplib's own parsing).
struct Framing {
  std::string transferEncoding;  // the first copy's value ("" when none)
  bool hasLength = false;        // Content-Length was sent
  // Content-Length as RFC 9110 8.6 has it: digits only; repeated, every copy the same value.
  // Anything else is refused rather than guessed (a length two parties read differently is how
  // requests are smuggled): hasLength without a length.
  std::optional<std::uint64_t> length;
  bool verdict = false;  // a header named as the transport's verdict (a client's: removed)
};

Framing ReadFraming(const httplib::Headers& headers) {
  Framing f;
  bool length_ok = true, te_seen = false;
  for (const auto& [name, v] : headers) {
    if (model::EqualsFolded(name, "Content-Length")) {
      f.hasLength = true;
      if (!length_ok) continue;
      std::uint64_t n = 0;
      length_ok = !v.empty() && v.size() <= 19;  // 19 digits: below 2^63
      for (size_t i = 0; length_ok && i < v.size(); ++i) {
        length_ok = v[i] >= '0' && v[i] <= '9';
        n = n * 10 + static_cast<std::uint64_t>(v[i] - '0');
      }
      if (length_ok && f.length && *f.length != n) length_ok = false;
      if (length_ok) f.length = n;
    } else if (!te_seen && model::EqualsFolded(name, "Transfer-Encoding")) {
      te_seen = true;
      f.transferEncoding = v;
    } else if (model::EqualsFolded(name, kVerdictHeader)) {
      f.verdict = true;
    }
  }
  if (!length_ok) f.length.reset();
  return f;
}

// The body of a chunked request (RFC 9112 7.1), read through `conn` with `limit` on its decoded
// size, checked before each chunk is read. Answers the HTTP status to refuse it with, or 0.
int ReadChunked(httplib::Stream& conn, size_t limit, std::string& body) {
  auto read_line = [&](std::string& line, size_t max) {
    line.clear();
    char c = 0;
    while (line.size() <= max) {
      if (conn.read(&c, 1) != 1) return false;
      line.push_back(c);
      if (c == '\n') return line.size() >= 2 && line[line.size() - 2] == '\r';
    }
    return false;
  };
  std::string line;
  for (;;) {
    if (!read_line(line, kMaxChunkLine)) return 400;
    std::uint64_t size = 0;
    size_t i = 0;
    for (; i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])); ++i) {
      if (size > (std::uint64_t{1} << 56)) return 413;
      size = size * 16 + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(line[i]))
                                                         ? line[i] - '0'
                                                         : std::tolower(static_cast<unsigned char>(line[i])) - 'a' + 10);
    }
    if (i == 0 || (line[i] != ';' && line[i] != '\r')) return 400;
    if (size == 0) break;
    if (size > limit - body.size()) return 413;
    const size_t start = body.size();
    body.resize(start + static_cast<size_t>(size));
    size_t got = 0;
    while (got < size) {
      const ssize_t n = conn.read(body.data() + start + got, static_cast<size_t>(size) - got);
      if (n <= 0) return 400;
      got += static_cast<size_t>(n);
    }
    if (!read_line(line, 2) || line != "\r\n") return 400;
  }
  // Trailer fields, if any, up to the empty line; read and dropped.
  size_t trailer = 0;
  for (;;) {
    if (!read_line(line, kMaxChunkLine)) return 400;
    if (line == "\r\n") return 0;
    trailer += line.size();
    if (trailer > kMaxTrailerBytes) return 400;
  }
}

// The request methods whose body cpp-httplib 0.11 reads (detail::expect_content).
bool ReadsBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE" || method == "PRI";
}

}  // namespace

HttpServer::HttpServer(const ServerOptions& o, RequestHandler& handler) : handler_(handler) {
  // What the transport refuses on its own still answers in the application's error shape.
  auto error_body = [this](int status, const std::string& message) {
    return core::DumpJson(handler_.Refuse(Refusal{status, message, 0}, "", "", /*record=*/false).body);
  };
  server_ = std::make_unique<Transport>(
      Transport::Limits{std::max(1, o.maxConnections), std::max(1, o.idleTimeoutMs), std::max(1, o.headerTimeoutMs)},
      error_body);

  // Every connection holds a descriptor: the soft limit (often 1024) would stop accepting far
  // below the connection cap, so it is raised to the hard limit.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY &&
      static_cast<rlim_t>(o.maxConnections) + 128 > files.rlim_cur) {
    runtime::Log("warn", "the open-files limit is below --max-connections",
             {{"maxConnections", o.maxConnections}, {"openFilesLimit", static_cast<std::uint64_t>(files.rlim_cur)}});
  }

  if (!o.tlsCertFile.empty()) {
    tls_ = MakeServerContext(o.tlsCertFile, o.tlsKeyFile);
    server_->SetTls(tls_.get());
  }

  auto& s = *server_;
  s.set_tcp_nodelay(true);
  s.set_socket_options([this](socket_t sock) {
    httplib::default_socket_options(sock);  // what httplib does without this hook (SO_REUSEADDR)
    listen_fd_ = static_cast<int>(sock);
  });
  s.set_keep_alive_max_count(100000);
  // What the Keep-Alive answer header announces; the connection loop enforces it.
  s.set_keep_alive_timeout(std::max<time_t>(1, o.idleTimeoutMs / 1000));
  // The socket timeouts httplib sets on accept: the receive one is unused (the connection polls
  // with its own deadlines), the send one bounds a write to a client that stopped reading.
  s.set_read_timeout(kBodyReadTimeoutMs / 1000, 0);
  s.set_write_timeout(10, 0);
  // A backstop only: the connection's hook has refused larger bodies from their headers.
  s.set_payload_max_length(o.maxBodyBytes);
  const size_t start_threads = o.threads > 0 ? static_cast<size_t>(o.threads) : 8;
  const size_t max_threads =
      std::max(start_threads, static_cast<size_t>(std::max(1, o.maxConnections)) + kRefusalThreads);
  s.new_task_queue = [start_threads, max_threads] { return new ElasticPool(start_threads, max_threads); };

  // ---- per request, once its headers are in: the body's framing and size --------------------
  // Decided here, before cpp-httplib reads any of the body: it would read a body over its limit
  // to skip it, a chunked one without limit, and one with neither Content-Length nor chunked
  // until the client closes (a `curl -X POST` without data hung for the read timeout).
  s.on_headers = [this, common_body = o.commonBodyBytes](Connection& conn, httplib::Request& req) {
    conn.EndHeaders();
    const Framing framing = ReadFraming(req.headers);
    if (framing.verdict) req.headers.erase(kVerdictHeader);
    auto refuse = [&](int status, const std::string& message, size_t limit = 0) {
      conn.CloseAfterThisRequest();  // the unread body is still on the wire
      req.headers.erase("Content-Length");
      req.headers.erase("Transfer-Encoding");
      req.headers.erase("Expect");  // no "100 Continue": the body is not wanted
      req.set_header("Content-Length", "0");
      req.set_header("Connection", "close");
      req.set_header(kVerdictHeader, std::to_string(status) + " " + std::to_string(limit) + " " + message);
    };
    const std::string& te = framing.transferEncoding;
    const bool has_length = framing.hasLength;
    const auto& length = framing.length;
    if (has_length && !length) return refuse(400, "Content-Length must be one whole number of bytes");
    if (!ReadsBody(req.method)) {
      // httplib reads no body for these: one that was sent would be read as the next request.
      if (!te.empty() || (length && *length > 0)) conn.CloseAfterThisRequest();
      return;
    }
    auto limit_of_route = [&] { return handler_.BodyLimit(req.method, req.path); };
    auto too_large = [&](size_t route_limit) { refuse(413, "", route_limit); };
    if (!te.empty()) {
      if (!model::EqualsFolded(te, "chunked"))
        return refuse(501, "Transfer-Encoding '" + te.substr(0, 64) + "' is not supported (only chunked)");
      if (has_length) return refuse(400, "Content-Length and Transfer-Encoding must not both be sent");
      const size_t route_limit = limit_of_route();
      std::string body;
      const int problem = ReadChunked(conn, route_limit, body);
      if (problem == 413) return too_large(route_limit);
      if (problem != 0) return refuse(400, "Malformed chunked request body");
      // The decoded body goes to the handler as it is; httplib is told there is nothing to read.
      req.body = std::move(body);
      req.headers.erase("Transfer-Encoding");
      req.set_header("Content-Length", "0");
      return;
    }
    if (!has_length) {
      // No Content-Length and not chunked: RFC 9112 6.3, a request without a body.
      req.set_header("Content-Length", "0");
      return;
    }
    if (*length > common_body) {
      const size_t route_limit = limit_of_route();
      if (*length > route_limit) return too_large(route_limit);
    }
  };

  auto handle = [this](const httplib::Request& in, httplib::Response& out) {
    RawRequest raw;
    raw.headers.reserve(in.headers.size());
    const std::string* verdict = nullptr;
    for (const auto& [k, v] : in.headers) {
      if (IsPseudoHeader(k)) continue;
      if (model::EqualsFolded(k, kVerdictHeader)) verdict = &v;
      else raw.headers.emplace_back(model::ToLower(k), v);  // ASCII, as header names are (RFC 9110 tokens)
    }
    if (verdict) {
      // The connection refused this request's body from its headers (see on_headers).
      // "<status> <limit> <detail>", as on_headers wrote it.
      Refusal refusal;
      char* rest = nullptr;
      refusal.status = static_cast<int>(std::strtol(verdict->c_str(), &rest, 10));
      refusal.limit = static_cast<size_t>(std::strtoull(rest, &rest, 10));
      refusal.detail = *rest == ' ' ? rest + 1 : rest;
      Write(handler_.Refuse(refusal, in.method, in.path, /*record=*/true), out);
      return;
    }
    raw.method = in.method;
    raw.path = in.path;
    // Taken, not copied: a PUT /_sim/state body may be hundreds of MB, and a copy held it twice at
    // the load's peak. httplib hands the handler a const reference to a Request of its own that
    // is not const (a local of its request loop), and reads no body after the handler (it writes
    // the response from the request's method and headers), so moving the body out is defined.
    raw.body = std::move(const_cast<httplib::Request&>(in).body);
    for (const auto& [k, v] : in.params) raw.params.emplace(k, v);
    Connection* conn = Connection::Current();
    raw.canDefer = conn && conn->CanDefer();
    Response res = handler_.Handle(std::move(raw));
    if (res.gate) conn->Defer(std::move(res.gate));  // only when canDefer: conn is set
    if (res.closeConnection) AbortConnection(in);
    Write(std::move(res), out);
  };
  // A GET is answered from httplib's pre-routing hook, before its routing, which would otherwise
  // std::regex_match every path against the catch-all pattern below: ~4.6k instructions of a
  // ~60k-instruction list request (measured with callgrind), for a match that always succeeds. Nothing
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
  s.set_error_handler([this, common_body = o.commonBodyBytes](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    Refusal refusal{res.status, "", 0};
    if (res.status == 413) refusal.limit = common_body;
    else if (res.status == 400) refusal.detail = "Malformed HTTP request";
    else if (res.status == 414)
      refusal.detail = "Request URI too long: the request line's target is over " +
                       std::to_string(CPPHTTPLIB_REQUEST_URI_MAX_LENGTH) + " bytes (the limit)";
    else if (res.status != 404) refusal.detail = "HTTP error " + std::to_string(res.status);
    // A request line too long is refused before cpp-httplib parses it: its method and path are
    // read from what the connection kept of it, so the log line and the journal name them.
    std::string method = req.method, path = req.path;
    if (method.empty())
      if (const Connection* c = Connection::Current()) RequestLineParts(c->head(), method, path);
    const Response r = handler_.Refuse(refusal, method, path, /*record=*/true);
    for (const auto& [k, v] : r.headers) res.set_header(k, v);
    res.set_content(r.raw ? *r.raw : core::DumpJson(r.body), "application/json");
  });
  s.set_exception_handler([this](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    Write(handler_.Refuse(Refusal{500, "", 0}, "", "", /*record=*/false), res);
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
  // Connections waiting for their next request end now instead of at their idle timeout.
  server_->WakeAll();
}

bool HttpServer::IsRunning() const { return server_->is_running(); }

int HttpServer::OpenConnections() const { return server_->Open(); }

}  // namespace emsim::http
