#pragma once
// The HTTP transport: the only part of emsim that knows cpp-httplib on the serving side (here,
// connection.* and pool.*). cpp-httplib parses requests and writes answers; emsim owns each
// connection's life (the connection loop, connection.hpp): the connection cap, the idle
// keep-alive and slow-header timeouts, and the body limits checked from the headers before any
// body byte is read (server.cpp). It serves a RequestHandler and knows nothing of what is behind
// it.
#include <atomic>
#include <memory>
#include <string>

#include "http/message.hpp"
#include "http/tls.hpp"

namespace emsim::http {

class Transport;

// A request the transport refuses on its own, before or instead of the application: a body over
// its limit (413, `limit` bytes), bad framing (400), headers too slow (408) or too large (431),
// too many connections (503), an unsupported Transfer-Encoding (501), an exception (500).
struct Refusal {
  int status = 500;
  std::string detail;  // what is wrong, for the message; empty: the status's usual message
  size_t limit = 0;    // 413: the limit the body went over
};

// What the transport serves: the application behind it (app::Router in emsim). The transport
// knows nothing of routes, schemas or the journal; it asks.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // The largest body a request to `method path` may carry, decided from its headers alone.
  virtual size_t BodyLimit(const std::string& method, const std::string& path) const = 0;
  // Answers a request whose headers and body are in.
  virtual Response Handle(RawRequest raw) = 0;
  // The application's answer to a refusal (its error shape). `method` and `path` are empty when
  // the request line was not read; `record`: the refusal answers a request and is recorded like
  // one (the connection-level ones, 408, 431, 503, are not).
  virtual Response Refuse(const Refusal& refusal, const std::string& method, const std::string& path,
                          bool record) = 0;
};

struct ServerOptions {
  int maxConnections = 2048;
  int idleTimeoutMs = 5000;
  int headerTimeoutMs = 10000;
  // Bodies up to commonBodyBytes pass without asking the handler (most routes' limit); the
  // handler's BodyLimit decides above it, up to maxBodyBytes, the largest any route allows.
  size_t commonBodyBytes = 1024 * 1024;
  size_t maxBodyBytes = 1024 * 1024;
  int threads = 0;                    // started at once; 0: 8 (more on demand)
  // TLS (both set): PEM certificate chain and key; empty: plain HTTP.
  std::string tlsCertFile, tlsKeyFile;
};

class HttpServer {
 public:
  HttpServer(const ServerOptions& options, RequestHandler& handler);
  ~HttpServer();

  // Binds (port 0 picks a free port) and answers the bound port; throws when it cannot bind.
  int Bind(const std::string& host, int port);
  // Serves until Stop(); blocking. Returns at once when Stop() came first.
  void Serve();
  // Ends Serve(), whether it is serving, about to, or not called yet; safe from any thread.
  void Stop();
  bool IsRunning() const;
  // Connections being served now (tests and the bench read it).
  int OpenConnections() const;

 private:
  RequestHandler& handler_;
  TlsContext tls_;  // declared first, so it outlives the transport whose connections use it
  std::unique_ptr<Transport> server_;
  int listen_fd_ = -1;  // the listening socket, to raise its backlog after httplib listens
  // cpp-httplib's stop() does nothing before its listen loop has started, and the loop then runs
  // for ever: Serve and Stop meet through these instead (see Stop).
  std::atomic<bool> stop_requested_{false}, serve_entered_{false}, serve_done_{false};
};

}  // namespace emsim::http
