#pragma once
// httplib glue: the only file that knows cpp-httplib on the serving side. Settings follow the
// measurements in issue 7 (TCP_NODELAY, long keep-alive, a worker pool sized for connections).
#include <memory>
#include <string>

#include "http/router.hpp"

namespace httplib {
class Server;
}

namespace emsim::http {

class HttpServer {
 public:
  HttpServer(app::Services& svc, Router& router);
  ~HttpServer();

  // Binds (port 0 picks a free port) and answers the bound port; throws when it cannot bind.
  int Bind(const std::string& host, int port);
  // Serves until Stop(); blocking.
  void Serve();
  void Stop();
  bool IsRunning() const;

 private:
  app::Services& svc_;
  Router& router_;
  std::unique_ptr<httplib::Server> server_;
  int listen_fd_ = -1;  // the listening socket, to raise its backlog after httplib listens
};

}  // namespace emsim::http
