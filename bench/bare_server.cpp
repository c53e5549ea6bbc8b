// The ceiling emsim is measured against (bench/README.md): a bare cpp-httplib server with the best
// settings we know for this library, answering every GET with the same bytes emsim sends for
// GET /v1/workspace/list and every POST with the same bytes after parsing the body with
// nlohmann_json (as emsim does). No routing, no auth, no validation, no state: the HTTP stack alone.
//
//   emsim-bench-bare --port N --body-file FILE [--threads N]
#include <httplib.h>

#include <sys/socket.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  int port = 0;
  int threads = 64;
  std::string body = R"({"status":200,"message":"Success","data":[]})";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--port") port = std::atoi(value.c_str());
    else if (flag == "--threads") threads = std::atoi(value.c_str());
    else if (flag == "--body-file") {
      std::ifstream in(value, std::ios::binary);
      if (!in) {
        std::cerr << "emsim-bench-bare: cannot read " << value << "\n";
        return 2;
      }
      std::stringstream ss;
      ss << in.rdbuf();
      body = ss.str();
    } else {
      std::cerr << "usage: emsim-bench-bare --port N --body-file FILE [--threads N]\n";
      return 2;
    }
  }

  httplib::Server server;
  // The three settings that matter (bench/README.md's measurements): Nagle off, so a response is not held
  // for a delayed ACK; keep-alive connections that are not closed every 5 requests; one worker per
  // connection (httplib serves a keep-alive connection on one pool thread until it goes idle).
  server.set_tcp_nodelay(true);
  // emsim re-listens with a backlog of 1024 (Debian's httplib listens with 5); so does the ceiling.
  int listen_fd = -1;
  server.set_socket_options([&listen_fd](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_fd = static_cast<int>(sock);
  });
  server.set_keep_alive_max_count(100000);
  server.set_keep_alive_timeout(5);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };

  server.Get(R"(/.*)", [&body](const httplib::Request&, httplib::Response& res) {
    res.set_content(body, "application/json");
  });
  server.Post(R"(/.*)", [&body](const httplib::Request& req, httplib::Response& res) {
    auto parsed = nlohmann::json::parse(req.body, nullptr, false);
    if (parsed.is_discarded()) res.status = 400;
    res.set_content(body, "application/json");
  });

  const int bound = port == 0 ? server.bind_to_any_port("127.0.0.1") : (server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (bound <= 0) {
    std::cerr << "emsim-bench-bare: cannot listen on 127.0.0.1:" << port << "\n";
    return 2;
  }
  if (listen_fd >= 0) ::listen(listen_fd, 1024);
  std::cout << "bare ready on http://127.0.0.1:" << bound << std::endl;
  server.listen_after_bind();
  return 0;
}
