#pragma once
// httplib glue: the only file that knows cpp-httplib on the serving side. cpp-httplib parses
// requests and writes answers; emsim owns each connection's life (the connection loop in
// server.cpp): the connection cap, the idle keep-alive and slow-header timeouts, and the body
// limits checked from the headers before any body byte is read.
#include <atomic>
#include <memory>
#include <string>

#include "http/router.hpp"

namespace emsim::http {

class Transport;

class HttpServer {
 public:
  HttpServer(app::Services& svc, Router& router);
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
  app::Services& svc_;
  Router& router_;
  std::unique_ptr<Transport> server_;
  int listen_fd_ = -1;  // the listening socket, to raise its backlog after httplib listens
  // cpp-httplib's stop() does nothing before its listen loop has started, and the loop then runs
  // for ever: Serve and Stop meet through these instead (see Stop).
  std::atomic<bool> stop_requested_{false}, serve_entered_{false}, serve_done_{false};
};

}  // namespace emsim::http
