#pragma once
// `emsim proxy`: the shadow proxy (api/control/proxy.hpp) in front of a real deployment, with an
// in-process emsim as its shadow. Tests start a ProxyServer on port 0 in front of a TestServer.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/control/proxy.hpp"
#include "cli/app.hpp"
#include "cli/serve_flags.hpp"

namespace emsim::cli {

struct ProxyFlags {
  api::ProxyOptions proxy;
  // The shadow emsim and the proxy's own listener: --host, --port, --fixtures, --state, --schemas,
  // --seed, the limits and the log flags, as `emsim serve` reads them.
  app::Options shadow;
  std::string caFile;            // --ca-file: PEM bundle to verify an https target with
  int targetTimeoutMs = 30000;   // --target-timeout-ms: connect, and each read and write
  // --max-answer-bytes: a target's answer body beyond this is a 502 (what a target can make the
  // proxy hold in memory is bounded, like a client's body).
  size_t maxAnswerBytes = 64u * 1024 * 1024;
};

// Reads `emsim proxy`'s flags: its own (--target, --api-key-map, --allow-mutations, --ca-file,
// --target-timeout-ms), the rest through `emsim serve`'s table (ParseServeFlags, with their
// EMSIM_* variables). Throws FlagError.
ProxyFlags ParseProxyFlags(const std::vector<std::string>& args, const Getenv& getenv);

class ProxyServer {
 public:
  // Builds the shadow (fixtures or --state, schemas) and the proxy; throws StartupError.
  explicit ProxyServer(ProxyFlags flags);
  ~ProxyServer();
  ProxyServer(const ProxyServer&) = delete;
  ProxyServer& operator=(const ProxyServer&) = delete;

  int Start();  // binds --host:--port (0 picks one), serves on a thread; answers the port
  void Stop();

  App& shadow() { return *shadow_; }
  api::ShadowProxy& proxy() { return *proxy_; }
  int port() const { return port_; }

 private:
  ProxyFlags flags_;
  std::unique_ptr<App> shadow_;
  std::unique_ptr<api::ShadowProxy> proxy_;
  std::unique_ptr<http::HttpServer> server_;
  std::thread serve_thread_;
  int port_ = 0;
};

// main()'s `emsim proxy ...`: exit code.
int ProxyCommand(const std::vector<std::string>& args);

}  // namespace emsim::cli
