#include "http/connection.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "runtime/log.hpp"

// cpp-httplib keeps headers in a map ordered by a case-insensitive comparison that calls
// ::tolower for each byte compared, and looks up a dozen headers a request: ~1,000 calls, each
// through libc's thread-local locale table, were 6% of a purchase's instructions (callgrind) and
// 3% of its CPU. emsim never changes the locale from "C", where tolower maps 'A'-'Z' and nothing
// else, so this definition answers what libc's would; defined in the executable, it is the one
// the shared library's calls reach (ELF symbol interposition). http_smoke_test checks it against
// the classic locale's table for every byte.
extern "C" int tolower(int c) noexcept { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

namespace emsim::http {

namespace {

// A request line plus headers larger than this is refused (431) before more is read:
// cpp-httplib bounds each header line (8 KiB) but not how many lines come.
constexpr size_t kMaxHeaderBytes = 64 * 1024;
// Answers are gathered and sent with one send() (httplib writes the head and the body apart);
// anything larger goes out as it comes.
constexpr size_t kOutBufferBytes = 64 * 1024;
// The connection each pool thread is serving (Connection::Current).
thread_local Connection* t_serving = nullptr;

constexpr size_t kInBufferBytes = 16 * 1024;

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

// All of `n` bytes to a blocking socket (bounded by its send timeout); false when it broke or timed
// out first.
bool SendWhole(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t sent = ::send(fd, p, n, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    p += sent;
    n -= static_cast<size_t>(sent);
  }
  return true;
}

}  // namespace

int MillisUntil(Steady::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 24LL * 3600 * 1000));
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

// ---- Transport ---------------------------------------------------------------------------------

Transport::Transport(Limits limits, ErrorBody error_body) : limits_(limits), error_body_(std::move(error_body)) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

Transport::~Transport() {
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void Transport::WakeAll() {
  if (stop_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof one);
  }
  // A connection blocked in a read returns from it with nothing (the end of the client's bytes),
  // and ends; one between reads finds the same at its next. What it is answering still goes out.
  std::lock_guard lock(blocking_mu_);
  stopping_ = true;
  for (const int fd : blocking_fds_) ::shutdown(fd, SHUT_RD);
}

bool Transport::Register(int fd) {
  std::lock_guard lock(blocking_mu_);
  if (stopping_) return false;
  blocking_fds_.insert(fd);
  return true;
}

void Transport::Unregister(int fd) {
  std::lock_guard lock(blocking_mu_);
  blocking_fds_.erase(fd);
}

std::string Transport::ClosingAnswer(int status, const std::string& message) const {
  return ClosingAnswerWithBody(status, error_body_(status, message));
}

std::string Transport::ClosingAnswerWithBody(int status, const std::string& body) const {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) + "\r\n";
  out += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  if (status == 503) out += "Retry-After: 1\r\n";
  out += "Connection: close\r\n\r\n" + body;
  return out;
}

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

  // TLS: the handshake is part of the first request's header time (a client that connects and
  // never finishes it is a slow client). The socket goes non-blocking: OpenSSL's reads and writes
  // then return WANT_READ/WANT_WRITE, and the connection polls with its own deadlines.
  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };
  std::unique_ptr<SSL, SslFree> ssl;
  if (tls_) {
    ssl.reset(SSL_new(tls_));
    const int flags = ::fcntl(sock, F_GETFL, 0);
    if (!ssl || flags < 0 || ::fcntl(sock, F_SETFL, flags | O_NONBLOCK) < 0 || SSL_set_fd(ssl.get(), sock) != 1 ||
        !Handshake(ssl.get(), sock, accepted + std::chrono::milliseconds(limits_.headerTimeoutMs))) {
      ERR_clear_error();
      ::close(sock);
      return false;
    }
  }

  // A plain socket is registered before its first read and unregistered before it is closed, so
  // WakeAll never shuts down a descriptor the system has handed to another socket since.
  const bool may_block = !ssl && Register(sock);
  Connection conn(sock, *this, ssl.get(), may_block);
  struct Serving {  // Connection::Current() on this thread, for this loop
    explicit Serving(Connection* c) { t_serving = c; }
    ~Serving() { t_serving = nullptr; }
  } serving(&conn);
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
  if (ssl) {
    SSL_shutdown(ssl.get());  // close_notify, once, without waiting for the client's
    ERR_clear_error();
  }
  if (may_block) Unregister(sock);
  if (conn.close_after()) {
    LingeringClose(sock);
  } else {
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
  }
  return ok;
}

bool Transport::Handshake(SSL* ssl, int fd, Steady::time_point deadline) {
  for (;;) {
    const int r = SSL_accept(ssl);
    if (r == 1) return true;
    const int e = SSL_get_error(ssl, r);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
      runtime::Log("debug", "TLS handshake failed", {{"reason", ERR_reason_error_string(ERR_peek_error()) ? ERR_reason_error_string(ERR_peek_error()) : "closed"}});
      return false;
    }
    pollfd fds[2] = {{fd, static_cast<short>(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0}, {stop_fd_, POLLIN, 0}};
    const int left = MillisUntil(deadline);
    int n = 0;
    do {
      n = left > 0 ? ::poll(fds, stop_fd_ >= 0 ? 2 : 1, left) : 0;
    } while (n < 0 && errno == EINTR);
    if (n <= 0 || fds[1].revents) return false;
  }
}

// ---- Connection --------------------------------------------------------------------------------

Connection* Connection::Current() { return t_serving; }

void RequestLineParts(std::string_view head, std::string& method, std::string& path) {
  method.clear();
  path.clear();
  size_t i = 0;
  while (i < head.size() && i < 16 && head[i] >= 'A' && head[i] <= 'Z') ++i;
  if (i == 0 || i >= head.size() || head[i] != ' ') return;
  size_t at = i + 1, end = at;
  // Printable ASCII, no space: the target's bytes as the log's key=value line can carry them.
  while (end < head.size() && head[end] > ' ' && head[end] < 0x7f && head[end] != '?') ++end;
  if (end == at) return;
  method.assign(head.substr(0, i));
  path.assign(head.substr(at, std::min(end - at, kPathKept)));
  if (end - at > kPathKept) path += "...";
}

Connection::Connection(int fd, Transport& transport, SSL* ssl, bool may_block)
    : fd_(fd), transport_(transport), ssl_(ssl), may_block_(may_block), in_(kInBufferBytes) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) remote_ip_ = PeerText(a, len, remote_port_);
  len = sizeof a;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) local_ip_ = PeerText(a, len, local_port_);
}

inline bool Connection::TrackByte(char c) {
  ++header_bytes_;
  if (c == '\r') {
    match_ = (match_ == 0 || match_ == 2) ? match_ + 1 : 1;
  } else if (c == '\n' && (match_ == 1 || match_ == 3)) {
    if (++match_ == 4) in_headers_ = false;
  } else {
    match_ = 0;
  }
  return !in_headers_ || header_bytes_ <= kMaxHeaderBytes || RefuseLargeHeaders();
}

ssize_t Connection::read(char* ptr, size_t size) {
  // httplib reads the request line and headers a byte at a time: that byte, from the buffer,
  // without the general path's copy and loop.
  if (size == 1 && pos_ < len_) {
    const char c = in_[pos_++];
    *ptr = c;
    if (in_headers_ && !TrackByte(c)) return -1;
    return 1;
  }
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

Connection::~Connection() {
  // Normally done by the last Flush; an answer's callback must not outlive the socket.
  if (deferred_)
    while (deferred_->pending.load(std::memory_order_acquire)) deferred_->pending.wait(true, std::memory_order_acquire);
}

ssize_t Connection::write(const char* ptr, size_t size) {
  if (discard_writes_) return static_cast<ssize_t>(size);
  if (failed_) return -1;
  // An answer for a gate is gathered whole: none of it may go before the gate says so.
  if (!gate_ && out_.size() + size > kOutBufferBytes) {
    if (!Flush()) return -1;
    if (size >= kOutBufferBytes) return SendAll(ptr, size) ? static_cast<ssize_t>(size) : -1;
  }
  out_.append(ptr, size);
  return static_cast<ssize_t>(size);
}

bool Connection::Flush() {
  AwaitDeferred();
  if (out_.empty() || discard_writes_) {
    gate_.reset();
    return !failed_;
  }
  if (gate_) {
    HandToGate();
    return true;
  }
  const bool ok = SendAll(out_.data(), out_.size());
  out_.clear();
  return ok;
}

bool Connection::CanDefer() {
  if (ssl_) return false;
  if (!deferred_) {
    deferred_ = std::make_shared<Deferred>();
    deferred_->fd = fd_;
  }
  return true;
}

void Connection::Release(Deferred& d) {
  d.pending.store(false, std::memory_order_release);
  d.pending.notify_one();
}

void Connection::HandToGate() {
  deferred_->pending.store(true, std::memory_order_relaxed);
  std::shared_ptr<Gate> gate = std::move(gate_);
  // The gate's thread (the durable writer) sends what the socket takes at once and never blocks:
  // a client that does not read must not hold every other answer up. Nothing here wakes the
  // connection's thread, which may be blocked reading the next request (WaitForRequest).
  gate->Then([d = deferred_, bytes = std::move(out_)](const std::string* refusal) mutable {
    if (refusal) {
      // The conversation ends with a 500 in this answer's place (AwaitDeferred): its thread finds
      // the end of the client's bytes, waiting for a next request or at its next read.
      d->refused = true;
      d->refusal = *refusal;
      ::shutdown(d->fd, SHUT_RD);
      return Release(*d);
    }
    size_t at = 0;
    while (at < bytes.size()) {
      const ssize_t n = ::send(d->fd, bytes.data() + at, bytes.size() - at, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) at += static_cast<size_t>(n);
      else if (n < 0 && errno == EINTR) continue;
      else break;  // full, or broken
    }
    if (at == bytes.size()) return Release(*d);
    // The socket took part of it (an answer larger than its buffer, or a client slow to read): the
    // rest goes from a thread of its own, which may block as a send does (the socket's send
    // timeout). The connection's next answer, and its close, wait for it (AwaitDeferred).
    bytes.erase(0, at);
    auto send_rest = [d, rest = std::move(bytes)] {
      if (!SendWhole(d->fd, rest.data(), rest.size())) {
        // Broken, or the client stopped reading: the conversation ends (its thread finds the end).
        d->broken = true;
        ::shutdown(d->fd, SHUT_RDWR);
      }
      Release(*d);
    };
    try {
      std::thread(std::move(send_rest)).detach();
    } catch (const std::system_error&) {  // no thread to be had: the connection is given up
      d->broken = true;
      ::shutdown(d->fd, SHUT_RDWR);
      Release(*d);
    }
  });
  out_ = std::string();
}

void Connection::AwaitDeferred() {
  if (!deferred_) return;
  Deferred& d = *deferred_;
  while (d.pending.load(std::memory_order_acquire)) d.pending.wait(true, std::memory_order_acquire);
  if (d.refused) {
    d.refused = false;
    // In place of the answer whose change is not on disk; what came after it is not sent either.
    const std::string body = std::move(d.refusal);
    d.refusal.clear();
    out_.clear();
    gate_.reset();
    AnswerAndFail(transport_.ClosingAnswerWithBody(500, body));
    return;
  }
  if (d.broken) failed_ = true;
}

void Connection::AnswerAndFail(const std::string& answer) {
  Flush();
  SendAll(answer.data(), answer.size());
  discard_writes_ = true;
  failed_ = true;
  close_after_ = true;
}

bool Connection::WaitForRequest(int timeout_ms) {
  // Bytes already read: ours, or decrypted and held by the TLS session.
  if (pos_ < len_ || (ssl_ && SSL_pending(ssl_) > 0)) return true;
  // Between two requests a keep-alive connection mostly waits: one blocking read does it with one
  // system call where a poll of three descriptors (the socket, the stop's and a gate's eventfds)
  // and then a read took two (measured on the same build, the one and the other: 55.5 against
  // 60.5 us of CPU per purchase at 32 connections). An answer still out with a gate needs nothing
  // of this thread until the next one (HandToGate).
  if (may_block_) return ReceiveBlocking(timeout_ms) == 1;
  return Poll(timeout_ms) == 1;
}

int Connection::ReceiveBlocking(int timeout_ms) {
  // No time left: what has come already, without waiting (as a poll with no timeout would).
  const bool wait = timeout_ms > 0;
  if (wait && timeout_ms != receive_timeout_ms_) {
    const timeval tv{timeout_ms / 1000, static_cast<suseconds_t>(timeout_ms % 1000) * 1000};
    if (::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) return Poll(timeout_ms);
    receive_timeout_ms_ = timeout_ms;
  }
  StartRefill();
  for (;;) {
    const ssize_t n = ::recv(fd_, in_.data(), in_.size(), wait ? 0 : MSG_DONTWAIT);
    if (n > 0) {
      len_ = static_cast<size_t>(n);
      return 1;
    }
    if (n == 0) return -1;  // the client closed, or a stop shut the reading side down (WakeAll)
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
  }
}

int Connection::Poll(int timeout_ms, short events) {
  pollfd fds[2] = {{fd_, events, 0}, {transport_.stop_fd(), POLLIN, 0}};  // a negative fd is ignored
  for (;;) {
    const int n = ::poll(fds, 2, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return 0;
    if (fds[1].revents) return -1;
    return 1;
  }
}

ssize_t Connection::Receive(short& wait_for) {
  wait_for = POLLIN;
  if (ssl_) {
    const int n = SSL_read(ssl_, in_.data(), static_cast<int>(in_.size()));
    if (n > 0) return n;
    const int e = SSL_get_error(ssl_, n);
    if (e == SSL_ERROR_ZERO_RETURN) return 0;
    if (e == SSL_ERROR_WANT_READ) return kWouldBlock;
    if (e == SSL_ERROR_WANT_WRITE) {
      wait_for = POLLOUT;
      return kWouldBlock;
    }
    ERR_clear_error();
    return e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 ? 0 : -1;  // an unclean close is an end
  }
  for (;;) {
    const ssize_t n = ::recv(fd_, in_.data(), in_.size(), MSG_DONTWAIT);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? kWouldBlock : -1;
  }
}

void Connection::StartRefill() {
  if (in_headers_) AppendHead(head_, len_);  // the whole buffer, about to be overwritten
  pos_ = len_ = head_from_ = 0;
}

ssize_t Connection::Fill() {
  StartRefill();
  for (;;) {
    short wait_for = POLLIN;
    const ssize_t n = Receive(wait_for);
    if (n > 0) {
      len_ = static_cast<size_t>(n);
      return n;
    }
    if (n == 0) return 0;
    if (n != kWouldBlock) {
      failed_ = true;
      return -1;
    }
    const int timeout = in_headers_ ? MillisUntil(header_deadline_) : kBodyReadTimeoutMs;
    const int ready = timeout > 0 ? Poll(timeout, wait_for) : 0;
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

bool Connection::Track(const char* p, size_t n) {
  for (size_t i = 0; i < n && in_headers_; ++i)
    if (!TrackByte(p[i])) return false;
  return true;
}

bool Connection::RefuseLargeHeaders() {
  AnswerAndFail(transport_.ClosingAnswer(
      431, "Request line and headers larger than " + std::to_string(kMaxHeaderBytes) + " bytes"));
  return false;
}

void Connection::AppendHead(std::string& kept, size_t end) const {
  const size_t from = std::min(head_from_, end);
  if (kept.size() < kKeptHead) kept.append(in_.data() + from, std::min(end - from, kKeptHead - kept.size()));
}

std::string Connection::head() const {
  std::string kept = head_;
  AppendHead(kept, pos_);  // what has been read of the buffer so far
  return kept;
}

bool Connection::SendAll(const char* p, size_t n) {
  if (ssl_) {
    // The socket is non-blocking under TLS: a full send buffer waits here, as long as a plain
    // socket's send timeout would.
    while (n > 0) {
      const int sent = SSL_write(ssl_, p, static_cast<int>(std::min<size_t>(n, 1 << 30)));
      if (sent > 0) {
        p += sent;
        n -= static_cast<size_t>(sent);
        continue;
      }
      const int e = SSL_get_error(ssl_, sent);
      if ((e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) &&
          Poll(kBodyReadTimeoutMs, e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN) == 1)
        continue;
      ERR_clear_error();
      failed_ = true;
      return false;
    }
    return true;
  }
  // Blocking, bounded by the socket's send timeout (httplib sets SO_SNDTIMEO on accept).
  if (SendWhole(fd_, p, n)) return true;
  failed_ = true;
  return false;
}

}  // namespace emsim::http
