#pragma once
// emsim's connection loop under cpp-httplib (private to http/): the Transport runs each accepted
// socket's conversation over a Connection, emsim's own Stream, so emsim owns the connection's
// life: the connection cap, the idle keep-alive and slow-header timeouts, the header size limit
// and the lingering close after a refusal. cpp-httplib still parses each request and writes each
// answer.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <httplib.h>
#include <poll.h>
#include <sys/socket.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

#include "http/message.hpp"

namespace emsim::http {

using Steady = std::chrono::steady_clock;

// Once the headers are in, each read of a body waits at most this long for the next bytes.
inline constexpr int kBodyReadTimeoutMs = 30000;

// Milliseconds left until `deadline`, 0 when it has passed.
int MillisUntil(Steady::time_point deadline);
// The numeric address of `a`, its port in `port`; "" when it has none.
std::string PeerText(const sockaddr_storage& a, socklen_t len, int& port);

// The method and path of a request line's first bytes (`head`, possibly cut short), for the log
// and the journal of a request refused before it was parsed. The method: up to 16 capital
// letters; the path: the target up to its query, of printable ASCII only, at most kPathKept
// bytes, with "..." after a path cut short. Empty when the line does not start that way.
inline constexpr size_t kPathKept = 256;
void RequestLineParts(std::string_view head, std::string& method, std::string& path);

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

  Transport(Limits limits, ErrorBody error_body);
  ~Transport() override;

  // Wakes every connection waiting for bytes, so a stop does not wait out idle connections: those
  // polling see the stop's eventfd, those in a blocking read (Connection::WaitForRequest) have
  // their reading side shut down.
  void WakeAll();
  int Open() const { return open_.load(); }

  // The HTTP bytes of a complete error answer that closes the connection.
  std::string ClosingAnswer(int status, const std::string& message) const;
  std::string ClosingAnswerWithBody(int status, const std::string& json_body) const;

  // Body limits for a request whose headers are in: set from HttpServer, which knows the routes.
  std::function<void(Connection&, httplib::Request&)> on_headers;

  int stop_fd() const { return stop_fd_; }
  const Limits& limits() const { return limits_; }
  // Serve TLS with this context (--tls-cert/--tls-key; owned by HttpServer, set before serving).
  void SetTls(SSL_CTX* ctx) { tls_ = ctx; }

 private:
  bool process_and_close_socket(socket_t sock) override;
  // The TLS handshake of a new connection, by `deadline`; false: close it.
  bool Handshake(SSL* ssl, int fd, Steady::time_point deadline);

  // A plain connection's socket, while its loop runs (Connection::WaitForRequest may block in a
  // read of it): WakeAll shuts their reading side down. False once stopping: the caller must not
  // block (the registration is refused, as the stop's eventfd refuses a poll).
  friend class Connection;
  bool Register(int fd);
  void Unregister(int fd);

  Limits limits_;
  ErrorBody error_body_;
  std::mutex blocking_mu_;
  std::unordered_set<int> blocking_fds_;  // under blocking_mu_
  bool stopping_ = false;                 // under blocking_mu_
  int stop_fd_ = -1;
  std::atomic<int> open_{0};
  SSL_CTX* tls_ = nullptr;
};

// One client connection as cpp-httplib's Stream: reads through a buffer kept across the
// connection's requests (so pipelined bytes are not lost), with the request's header deadline
// while its request line and headers come in, and writes gathered into one send per answer.
class Connection final : public httplib::Stream {
 public:
  // `ssl`: the connection's TLS session (its socket non-blocking), or null for plain HTTP.
  // `may_block`: a plain socket registered with the transport (Transport::Register), which may
  // wait for a request in a blocking read.
  Connection(int fd, Transport& transport, SSL* ssl = nullptr, bool may_block = false);
  ~Connection() override;

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

  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  bool Flush();

  // Waits for the first bytes of the next request. False: timed out, stopping, the client closed,
  // or an error.
  bool WaitForRequest(int timeout_ms);

  // A request begins: its request line and headers must all have come by `deadline`.
  void BeginRequest(Steady::time_point deadline) {
    header_deadline_ = deadline;
    in_headers_ = true;
    header_bytes_ = 0;
    match_ = 0;
    head_.clear();
    head_from_ = pos_;
  }
  // The first bytes of the request being read (kKeptHead at most): what a refusal raised before
  // cpp-httplib parsed the request line (414) still names the method and path from. Made when
  // asked: the bytes are in the input buffer, and only those a refill is about to overwrite are
  // copied (head_). Copying each byte as cpp-httplib read it was ~5% of a request's instructions.
  static constexpr size_t kKeptHead = 512;
  std::string head() const;
  void EndHeaders() { in_headers_ = false; }

  // Writes `answer` (already complete HTTP bytes) and ends the conversation: whatever cpp-httplib
  // writes after it is dropped.
  void AnswerAndFail(const std::string& answer);

  // The connection this thread serves now (null on other threads): the handler's way to it.
  static Connection* Current();
  // Whether an answer can be sent later from another thread: plain HTTP (a TLS session is not
  // written from two threads).
  bool CanDefer();
  // The answer being written waits for `gate` (Response::gate; only after CanDefer said yes): the
  // next Flush hands its bytes to the gate's callback, which sends them (what the socket does not
  // take at once goes from a thread of its own), and returns without waiting.
  void Defer(std::shared_ptr<Gate> gate) { gate_ = std::move(gate); }

  void CloseAfterThisRequest() { close_after_ = true; }
  bool close_after() const { return close_after_; }
  bool failed() const { return failed_; }

 private:
  // 1: ready for `events`; 0: timed out; -1: stopping or an error.
  int Poll(int timeout_ms, short events = POLLIN);
  // WaitForRequest on a registered plain socket: one blocking read, bounded by the socket's
  // receive timeout. 1: bytes read into the buffer; 0: timed out; -1: the client
  // closed, stopping, or an error.
  int ReceiveBlocking(int timeout_ms);
  ssize_t Fill();
  // The buffer emptied for a read into it (what the request has read of it kept, up to kKeptHead).
  void StartRefill();
  // One read of what the socket (or the TLS session) has now: bytes, 0 at the end, -1 on an
  // error, kWouldBlock with `wait_for` set to the poll events that would let it go on.
  static constexpr ssize_t kWouldBlock = -2;
  ssize_t Receive(short& wait_for);
  // Watches the request line and headers go by for their end (an empty line) and their size:
  // a byte (cpp-httplib reads them one at a time, so this one is inline), or several.
  bool TrackByte(char c);  // inline, in connection.cpp
  bool Track(const char* p, size_t n);
  bool RefuseLargeHeaders();  // answers 431; false
  // This request's bytes in the buffer, up to `end`, appended to `kept` (kKeptHead at most in all):
  // into head_ before a refill, into a copy of it when head() is asked.
  void AppendHead(std::string& kept, size_t end) const;
  bool SendAll(const char* p, size_t n);
  // Until the answer handed to a gate has gone out (or failed to: the conversation ends), or, when
  // the gate refused it, answers 500 in its place and ends the conversation. Every send and the
  // close come after this, so answers go out in order and the socket outlives the callback.
  void AwaitDeferred();
  void HandToGate();

  // What a connection shares with the callback of a gate: the callback may run after the
  // Connection is gone (its socket is not: AwaitDeferred), so it holds only this.
  struct Deferred {
    int fd = -1;
    std::atomic<bool> pending{false};  // the callback (or the thread sending the rest) is not done
    bool refused = false;   // the gate said no: the change was not made durable
    std::string refusal;    // then the body of the 500 sent in the answer's place
    bool broken = false;    // the rest could not be sent
  };
  // The callback is done with the connection's socket: its thread may go on (AwaitDeferred).
  static void Release(Deferred& d);
  std::shared_ptr<Deferred> deferred_;
  std::shared_ptr<Gate> gate_;

  int fd_;
  Transport& transport_;
  SSL* ssl_;
  bool may_block_;
  std::string remote_ip_, local_ip_;
  int remote_port_ = -1, local_port_ = -1;
  std::vector<char> in_;
  size_t pos_ = 0, len_ = 0;
  std::string out_;
  bool in_headers_ = false;
  Steady::time_point header_deadline_;
  size_t header_bytes_ = 0;
  std::string head_;      // the request's first bytes from buffers refilled since it began
  size_t head_from_ = 0;  // where the request's bytes begin in the buffer (0 after a refill)
  int receive_timeout_ms_ = -1;  // the socket's SO_RCVTIMEO as set here (-1: as accepted)
  int match_ = 0;  // how much of "\r\n\r\n" the last bytes were
  bool failed_ = false, discard_writes_ = false, close_after_ = false;
};

}  // namespace emsim::http
