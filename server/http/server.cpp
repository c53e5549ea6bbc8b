#include "http/server.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <httplib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/json_out.hpp"
#include "runtime/log.hpp"

namespace emsim::http {

namespace {

using Steady = std::chrono::steady_clock;

// Debian's cpp-httplib is a compiled library that listens with a backlog of 5: a burst of more
// simultaneous connects than that overflows the accept queue and clients see resets (measured:
// 20 concurrent buyers, TcpExtListenOverflows rising). Linux updates the backlog when listen()
// is called again on a listening socket, so Bind() does that.
constexpr int kListenBacklog = 1024;
// Once the headers are in, each read of a body waits at most this long for the next bytes.
constexpr int kBodyReadTimeoutMs = 30000;
// A request line plus headers larger than this is refused (431) before more is read:
// cpp-httplib bounds each header line (8 KiB) but not how many lines come.
constexpr size_t kMaxHeaderBytes = 64 * 1024;
// Answers are gathered and sent with one send() (httplib writes the head and the body apart);
// anything larger goes out as it comes.
constexpr size_t kOutBufferBytes = 64 * 1024;
constexpr size_t kInBufferBytes = 16 * 1024;
// Threads beyond the connection cap: a connection over the cap still needs one to be told 503.
constexpr size_t kRefusalThreads = 64;
// Limits on a chunked body's framing (chunk-size lines, trailers), before the body limit.
constexpr size_t kMaxChunkLine = 1024;
constexpr size_t kMaxTrailerBytes = 8 * 1024;
// After a refusal the connection is closed; what the client is still sending is read and thrown
// away first, so the kernel does not answer it with a reset that would destroy the answer in
// flight (the "lingering close" of HTTP servers; nginx: lingering_time, lingering_timeout). A
// client that sends a body larger than the limit finishes sending it, then reads the 413: the
// whole of it must be drained, not a part, or the client's last writes meet a reset. Draining
// costs no memory; time bounds it: each read waits at most kLingerIdleMs for more, and the
// whole drain lasts at most kLingerMs or kLingerBytes.
constexpr int kLingerMs = 5000;
constexpr int kLingerIdleMs = 1000;
constexpr size_t kLingerBytes = size_t{256} * 1024 * 1024;

// The transport's verdict on a request's framing (body too large, bad Content-Length, ...), from
// the connection's per-request hook to the handler: cpp-httplib passes nothing else between
// them. A copy a client sends is removed before the hook sets its own.
constexpr const char* kVerdictHeader = "EMSIM-TRANSPORT-VERDICT";

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
  out.body = res.raw ? std::move(*res.raw) : core::DumpJson(res.body);  // = dump(), ~4x cheaper
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

int MillisUntil(Steady::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 24LL * 3600 * 1000));
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// Content-Length as RFC 9110 8.6 has it: digits only; repeated, every copy the same value.
// Anything else is refused rather than guessed (a length two parties read differently is how
// requests are smuggled).
std::optional<std::uint64_t> ContentLength(const httplib::Request& req) {
  const size_t copies = req.get_header_value_count("Content-Length");
  std::optional<std::uint64_t> length;
  for (size_t i = 0; i < copies; ++i) {
    const std::string v = req.get_header_value("Content-Length", i);
    if (v.empty() || v.size() > 19) return std::nullopt;  // 19 digits: below 2^63
    std::uint64_t n = 0;
    for (char c : v) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (length && *length != n) return std::nullopt;
    length = n;
  }
  return length;
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

// A worker pool that grows on demand, up to one thread per connection the cap allows. cpp-httplib
// serves a connection on one thread for its whole life; a fixed pool smaller than the number of
// open connections leaves the next client waiting for one of them to go away (measured on the
// old 160-thread pool: 150 idle keep-alive connections pushed a fresh client's latency to 4.5 s).
// A thread waiting on an idle connection sleeps in poll() and costs only its stack.
class ElasticPool final : public httplib::TaskQueue {
 public:
  ElasticPool(size_t start_threads, size_t max_threads) : max_(std::max<size_t>(1, max_threads)) {
    std::lock_guard lock(mu_);
    while (threads_.size() < std::min(start_threads, max_)) threads_.emplace_back([this] { Work(); });
  }
  ~ElasticPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(fn));
    // Every job is a connection that may stay open for long: it gets a thread of its own when
    // no idle one is left, rather than waiting behind others.
    if (jobs_.size() > idle_ && threads_.size() < max_) {
      threads_.emplace_back([this] { Work(); });
    } else {
      cv_.notify_one();
    }
  }

  void shutdown() override {
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      threads.swap(threads_);
    }
    cv_.notify_all();
    for (auto& t : threads) t.join();
  }

 private:
  void Work() {
    std::unique_lock lock(mu_);
    for (;;) {
      ++idle_;
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) return;  // stopping, and nothing left to serve
      auto fn = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  const size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace

class Connection;

// cpp-httplib's Server with emsim's connection loop (process_and_close_socket, which httplib
// calls on a pool thread for every accepted socket): httplib still parses each request and
// writes each answer (process_request), over emsim's own Stream (Connection below).
class Transport final : public httplib::Server {
 public:
  struct Limits {
    int maxConnections;
    int idleTimeoutMs;
    int headerTimeoutMs;
  };
  // Answers in the spec's error shape (Part 7) for what the transport refuses by itself.
  using ErrorBody = std::function<std::string(int status, const std::string& message)>;

  Transport(Limits limits, ErrorBody error_body) : limits_(limits), error_body_(std::move(error_body)) {
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  }
  ~Transport() override {
    if (stop_fd_ >= 0) ::close(stop_fd_);
  }

  // Wakes every connection waiting for bytes, so a stop does not wait out idle connections.
  void WakeAll() {
    if (stop_fd_ < 0) return;
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof one);
  }
  int Open() const { return open_.load(); }

  // The HTTP bytes of a complete error answer that closes the connection.
  std::string ClosingAnswer(int status, const std::string& message) const {
    const std::string body = error_body_(status, message);
    std::string out = "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) + "\r\n";
    out += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    if (status == 503) out += "Retry-After: 1\r\n";
    out += "Connection: close\r\n\r\n" + body;
    return out;
  }

  // Body limits for a request whose headers are in: set from HttpServer, which knows the routes.
  std::function<void(Connection&, httplib::Request&)> on_headers;

  int stop_fd() const { return stop_fd_; }
  const Limits& limits() const { return limits_; }

 private:
  bool process_and_close_socket(socket_t sock) override;

  Limits limits_;
  ErrorBody error_body_;
  int stop_fd_ = -1;
  std::atomic<int> open_{0};
};

// One client connection as cpp-httplib's Stream: reads through a buffer kept across the
// connection's requests (so pipelined bytes are not lost), with the request's header deadline
// while its request line and headers come in, and writes gathered into one send per answer.
class Connection final : public httplib::Stream {
 public:
  Connection(int fd, Transport& transport) : fd_(fd), transport_(transport), in_(kInBufferBytes) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) remote_ip_ = PeerText(a, len, remote_port_);
    len = sizeof a;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) local_ip_ = PeerText(a, len, local_port_);
  }

  bool is_readable() const override { return pos_ < len_; }
  bool is_writable() const override { return !failed_; }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = remote_ip_;
    port = remote_port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = local_ip_;
    port = local_port_;
  }
  socket_t socket() const override { return fd_; }

  ssize_t read(char* ptr, size_t size) override {
    if (pos_ == len_) {
      if (failed_) return -1;
      // An interim answer (100 Continue) must reach the client before its body is awaited.
      if (!Flush()) return -1;
      const ssize_t n = Fill();
      if (n <= 0) return n;
    }
    const size_t n = std::min(size, len_ - pos_);
    std::memcpy(ptr, in_.data() + pos_, n);
    pos_ += n;
    if (in_headers_ && !Track(ptr, n)) return -1;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (discard_writes_) return static_cast<ssize_t>(size);
    if (failed_) return -1;
    if (out_.size() + size > kOutBufferBytes) {
      if (!Flush()) return -1;
      if (size >= kOutBufferBytes) return SendAll(ptr, size) ? static_cast<ssize_t>(size) : -1;
    }
    out_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }

  bool Flush() {
    if (out_.empty() || discard_writes_) return !failed_;
    const bool ok = SendAll(out_.data(), out_.size());
    out_.clear();
    return ok;
  }

  // Waits for the first byte of the next request. False: timed out, stopping, or an error.
  bool WaitForRequest(int timeout_ms) {
    if (pos_ < len_) return true;
    return Poll(timeout_ms) == 1;
  }

  // A request begins: its request line and headers must all have come by `deadline`.
  void BeginRequest(Steady::time_point deadline) {
    header_deadline_ = deadline;
    in_headers_ = true;
    header_bytes_ = 0;
    match_ = 0;
  }
  void EndHeaders() { in_headers_ = false; }

  // Writes `answer` (already complete HTTP bytes) and ends the conversation: whatever cpp-httplib
  // writes after it is dropped.
  void AnswerAndFail(const std::string& answer) {
    Flush();
    SendAll(answer.data(), answer.size());
    discard_writes_ = true;
    failed_ = true;
    close_after_ = true;
  }

  void CloseAfterThisRequest() { close_after_ = true; }
  bool close_after() const { return close_after_; }
  bool failed() const { return failed_; }

 private:
  // 1: readable; 0: timed out; -1: stopping or an error.
  int Poll(int timeout_ms) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {transport_.stop_fd(), POLLIN, 0}};
    for (;;) {
      const int n = ::poll(fds, transport_.stop_fd() >= 0 ? 2 : 1, timeout_ms);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      if (n == 0) return 0;
      if (fds[1].revents) return -1;
      return 1;
    }
  }

  ssize_t Fill() {
    pos_ = len_ = 0;
    for (;;) {
      const ssize_t n = ::recv(fd_, in_.data(), in_.size(), MSG_DONTWAIT);
      if (n > 0) {
        len_ = static_cast<size_t>(n);
        return n;
      }
      if (n == 0) return 0;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        failed_ = true;
        return -1;
      }
      const int timeout = in_headers_ ? MillisUntil(header_deadline_) : kBodyReadTimeoutMs;
      const int ready = timeout > 0 ? Poll(timeout) : 0;
      if (ready == 1) continue;
      // A client that does not finish its headers in time is told so when it has begun a request;
      // one that never sent a byte is just closed.
      if (ready == 0 && in_headers_ && header_bytes_ > 0)
        AnswerAndFail(transport_.ClosingAnswer(408, "Request headers not received within " +
                                                        std::to_string(transport_.limits().headerTimeoutMs) + " ms"));
      failed_ = true;
      return -1;
    }
  }

  // Watches the request line and headers go by for their end (an empty line) and their size.
  bool Track(const char* p, size_t n) {
    for (size_t i = 0; i < n && in_headers_; ++i) {
      ++header_bytes_;
      const char c = p[i];
      if (c == '\r') match_ = (match_ == 0 || match_ == 2) ? match_ + 1 : 1;
      else if (c == '\n' && (match_ == 1 || match_ == 3)) ++match_;
      else match_ = 0;
      if (match_ == 4) in_headers_ = false;
    }
    if (in_headers_ && header_bytes_ > kMaxHeaderBytes) {
      AnswerAndFail(transport_.ClosingAnswer(
          431, "Request line and headers larger than " + std::to_string(kMaxHeaderBytes) + " bytes"));
      return false;
    }
    return true;
  }

  bool SendAll(const char* p, size_t n) {
    while (n > 0) {
      // Blocking, bounded by the socket's send timeout (httplib sets SO_SNDTIMEO on accept).
      const ssize_t sent = ::send(fd_, p, n, MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) {
        failed_ = true;
        return false;
      }
      p += sent;
      n -= static_cast<size_t>(sent);
    }
    return true;
  }

  int fd_;
  Transport& transport_;
  std::string remote_ip_, local_ip_;
  int remote_port_ = -1, local_port_ = -1;
  std::vector<char> in_;
  size_t pos_ = 0, len_ = 0;
  std::string out_;
  bool in_headers_ = false;
  Steady::time_point header_deadline_;
  size_t header_bytes_ = 0;
  int match_ = 0;  // how much of "\r\n\r\n" the last bytes were
  bool failed_ = false, discard_writes_ = false, close_after_ = false;
};

namespace {

// Reads and throws away what a refused client is still sending, briefly, then closes.
void LingeringClose(int fd) {
  ::shutdown(fd, SHUT_WR);
  const auto deadline = Steady::now() + std::chrono::milliseconds(kLingerMs);
  char sink[16 * 1024];
  size_t drained = 0;
  while (drained < kLingerBytes) {
    pollfd p{fd, POLLIN, 0};
    const int left = std::min(MillisUntil(deadline), kLingerIdleMs);
    if (left <= 0 || ::poll(&p, 1, left) <= 0) break;
    const ssize_t n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
  ::close(fd);
}

}  // namespace

bool Transport::process_and_close_socket(socket_t sock) {
  const auto accepted = Steady::now();
  struct Count {
    std::atomic<int>& open;
    int now;
    explicit Count(std::atomic<int>& o) : open(o), now(++o) {}
    ~Count() { --open; }
  } count(open_);
  // Over the cap: a clear refusal, then close (the client may retry; Retry-After says when).
  if (count.now > limits_.maxConnections) {
    const std::string answer = ClosingAnswer(503, "Too many connections (limit " +
                                                      std::to_string(limits_.maxConnections) + "); retry shortly");
    [[maybe_unused]] auto n = ::send(sock, answer.data(), answer.size(), MSG_NOSIGNAL);
    LingeringClose(sock);
    return false;
  }

  Connection conn(sock, *this);
  bool ok = true;
  for (size_t served = 0; svr_sock_ != INVALID_SOCKET; ++served) {
    // The first request's headers are due a header timeout after the connect (a client that
    // connects and sends nothing is a slow client); later ones a header timeout after their first
    // byte, which may come up to an idle timeout after the previous answer.
    Steady::time_point deadline = accepted + std::chrono::milliseconds(limits_.headerTimeoutMs);
    if (!conn.WaitForRequest(served == 0 ? MillisUntil(deadline) : limits_.idleTimeoutMs)) break;
    if (served > 0) deadline = Steady::now() + std::chrono::milliseconds(limits_.headerTimeoutMs);
    conn.BeginRequest(deadline);
    bool client_closes = false;
    // httplib catches what a handler throws, but not what its own parsing or the per-request
    // hook does: on a pool thread that would end the process, so it ends this connection only.
    try {
      ok = process_request(conn, /*close_connection=*/false, client_closes,
                           [&](httplib::Request& req) { on_headers(conn, req); });
    } catch (const std::exception& e) {
      runtime::Log("error", "connection ended by an exception", {{"what", e.what()}});
      ok = false;
    } catch (...) {
      runtime::Log("error", "connection ended by an exception");
      ok = false;
    }
    if (!conn.Flush() || !ok || client_closes || conn.close_after() || conn.failed()) break;
  }
  conn.Flush();
  if (conn.close_after()) {
    LingeringClose(sock);
  } else {
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
  }
  return ok;
}

namespace {

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
    req.headers.erase(kVerdictHeader);
    auto refuse = [&](int status, const std::string& message, size_t limit = 0) {
      conn.CloseAfterThisRequest();  // the unread body is still on the wire
      req.headers.erase("Content-Length");
      req.headers.erase("Transfer-Encoding");
      req.headers.erase("Expect");  // no "100 Continue": the body is not wanted
      req.set_header("Content-Length", "0");
      req.set_header("Connection", "close");
      req.set_header(kVerdictHeader, std::to_string(status) + " " + std::to_string(limit) + " " + message);
    };
    const std::string te = req.get_header_value("Transfer-Encoding");
    const bool has_length = req.has_header("Content-Length");
    const auto length = ContentLength(req);
    if (has_length && !length) return refuse(400, "Content-Length must be one whole number of bytes");
    if (!ReadsBody(req.method)) {
      // httplib reads no body for these: one that was sent would be read as the next request.
      if (!te.empty() || (length && *length > 0)) conn.CloseAfterThisRequest();
      return;
    }
    auto limit_of_route = [&] { return handler_.BodyLimit(req.method, req.path); };
    auto too_large = [&](size_t route_limit) { refuse(413, "", route_limit); };
    if (!te.empty()) {
      if (!EqualsIgnoreCase(te, "chunked"))
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
    if (const std::string verdict = in.get_header_value(kVerdictHeader); !verdict.empty()) {
      // The connection refused this request's body from its headers (see on_headers).
      // "<status> <limit> <detail>", as on_headers wrote it.
      Refusal refusal;
      char* rest = nullptr;
      refusal.status = static_cast<int>(std::strtol(verdict.c_str(), &rest, 10));
      refusal.limit = static_cast<size_t>(std::strtoull(rest, &rest, 10));
      refusal.detail = *rest == ' ' ? rest + 1 : rest;
      Write(handler_.Refuse(refusal, in.method, in.path, /*record=*/true), out);
      return;
    }
    RawRequest raw;
    raw.method = in.method;
    raw.path = in.path;
    raw.body = in.body;
    raw.headers.reserve(in.headers.size());
    for (const auto& [k, v] : in.headers)
      if (!IsPseudoHeader(k)) raw.headers.emplace_back(Lower(k), v);
    for (const auto& [k, v] : in.params) raw.params.emplace(k, v);
    Response res = handler_.Handle(std::move(raw));
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
  s.set_error_handler([this, common_body = o.commonBodyBytes](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    Refusal refusal{res.status, "", 0};
    if (res.status == 413) refusal.limit = common_body;
    else if (res.status == 400) refusal.detail = "Malformed HTTP request";
    else if (res.status != 404) refusal.detail = "HTTP error " + std::to_string(res.status);
    const Response r = handler_.Refuse(refusal, req.method, req.path, /*record=*/true);
    res.set_content(core::DumpJson(r.body), "application/json");
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
