#include "cli/proxy_command.hpp"

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "core/time.hpp"
#include "http/server.hpp"
#include "model/webhooks.hpp"
#include "runtime/log.hpp"
#include "core/thread_name.hpp"

namespace emsim::cli {

namespace {

constexpr const char* kProxyUsage = R"(Usage: emsim proxy --target URL [flags]

A shadow proxy (README "Shadow proxy"): point a client at it instead of the real deployment.
Every /v1 and /v2 request goes to --target and the target's answer goes back unchanged; beside
it, the request is replayed on an emsim of its own (the shadow, seeded from --fixtures or
--state) and every difference is logged on stderr (one line each) and counted in the report:
  GET /_sim/proxy/report          JSON, grouped by operation and rule, with examples
  GET /_sim/proxy/report?format=text   (or Accept: text/plain) a readable summary
  DELETE /_sim/proxy/report       start counting again
Rules: status-code, request-schema, response-schema, field-type, field-presence, envelope,
enum-value, state-change, unknown-to-shadow; mutation-refused, target-unreachable.
Other /_sim paths reach the shadow's own control plane (its state, journal, clock).

  --target URL            the real deployment's base URL (required), e.g. https://real.example/api
  --api-key-map REAL=SHADOW[,REAL2=SHADOW2...]
                          the shadow account each real API key stands for (x-auth-service);
                          a key not listed is replayed as it is
  --allow-mutations       forward operations whose catalogue effect is mutates or spends; without
                          it they are answered 403 in Part 7's shape and never reach the target
  --ca-file FILE          PEM bundle to verify an https target with (default: the system's)
  --target-timeout-ms N   connect, read and write timeout towards the target (default 30000);
                          no answer: the client gets 502 in Part 7's shape
  --max-answer-bytes N    a target's answer body larger than this is not read: 502 (default 67108864)

The shadow and the proxy's listener take `emsim serve`'s flags (see emsim serve --help), e.g.
  --host HOST --port N    where the proxy listens (default 127.0.0.1:8080; 0 picks a free port)
  --fixtures FILE | --state FILE   the shadow's world
  --clock real|manual     the shadow's clock (default real: the real deployment's time passes too)
  --max-body-bytes N, --admin-token TOKEN, --log-format, --log-level, ...

emsim proxy prints one line when ready and stops cleanly on SIGINT or SIGTERM.
)";

}  // namespace

ProxyFlags ParseProxyFlags(const std::vector<std::string>& args, const Getenv& getenv) {
  ProxyFlags out;
  std::vector<std::string> serve_args;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto eq = a.find('=');
    const std::string flag = a.substr(0, eq);
    auto value = [&]() -> std::string {
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (i + 1 >= args.size()) throw FlagError(flag + " needs a value (see emsim proxy --help)");
      return args[++i];
    };
    if (flag == "--target") {
      out.proxy.target = value();
    } else if (flag == "--api-key-map") {
      try {
        out.proxy.apiKeyMap = api::ParseApiKeyMap(value());
      } catch (const std::invalid_argument& e) {
        throw FlagError(e.what());
      }
    } else if (flag == "--allow-mutations") {
      if (eq != std::string::npos) throw FlagError("--allow-mutations is a switch: give it without a value");
      out.proxy.allowMutations = true;
    } else if (flag == "--ca-file") {
      out.caFile = value();
    } else if (flag == "--max-answer-bytes") {
      out.maxAnswerBytes = static_cast<size_t>(WholeNumber(flag, value(), 1));
    } else if (flag == "--target-timeout-ms") {
      out.targetTimeoutMs = static_cast<int>(WholeNumber(flag, value(), 1, 3600000));
    } else {
      serve_args.push_back(a);  // `emsim serve`'s table reads the rest (and its values)
    }
  }
  if (out.proxy.target.empty()) throw FlagError("emsim proxy needs --target URL (see emsim proxy --help)");
  if (auto url = model::ParseUrl(out.proxy.target); !url)
    throw FlagError("--target must be http(s)://host[:port][/path], got '" + out.proxy.target + "'");
  try {
    out.shadow = ParseServeFlags(serve_args, getenv);
  } catch (const FlagError& e) {
    std::string m = e.what();
    if (auto at = m.find("emsim serve --help"); at != std::string::npos) m.replace(at, 18, "emsim proxy --help");
    throw FlagError(m);
  }
  return out;
}

ProxyServer::ProxyServer(ProxyFlags flags) : flags_(std::move(flags)) {
  shadow_ = std::make_unique<App>(flags_.shadow);
  scenario::HttpClientOptions client;
  client.connectTimeoutMs = client.readTimeoutMs = client.writeTimeoutMs = flags_.targetTimeoutMs;
  client.caFile = flags_.caFile;
  client.maxAnswerBytes = flags_.maxAnswerBytes;
  Services& svc = shadow_->services();
  proxy_ = std::make_unique<api::ShadowProxy>(flags_.proxy, svc, *svc.pipeline,
                                              scenario::MakeHttpClient(flags_.proxy.target, client));
  // The shadow's options: App made the --tls-self-signed certificate into them.
  server_ = std::make_unique<http::HttpServer>(TransportOptions(svc.options), *proxy_);
}

ProxyServer::~ProxyServer() { Stop(); }

int ProxyServer::Start() {
  const Options& o = shadow_->services().options;
  port_ = server_->Bind(o.host, o.port);
  shadow_->StartWithoutServing();
  serve_thread_ = core::NamedThread("proxy-accept", [this] { server_->Serve(); });
  return port_;
}

void ProxyServer::Stop() {
  if (server_) server_->Stop();
  if (serve_thread_.joinable()) serve_thread_.join();
  if (shadow_) shadow_->Stop();
}

int ProxyCommand(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << kProxyUsage;
      return 0;
    }
  ProxyFlags flags;
  try {
    flags = ParseProxyFlags(args, [](const char* name) { return std::getenv(name); });
  } catch (const FlagError& e) {
    std::cerr << "emsim: " << e.what() << "\n";
    return 2;
  }
  sigset_t signals = BlockStopSignals();
  try {
    ProxyServer server(flags);
    const int port = server.Start();
    const Options& o = server.shadow().services().options;
    const std::string url = (o.tlsCert.empty() ? "http://" : "https://") + o.host + ":" + std::to_string(port);
    const std::string mutations = flags.proxy.allowMutations ? "forwarded" : "refused";
    if (o.logFormat == "json") {
      json ready = {{"time", model::FormatIso(runtime::Clock::WallNow())}, {"level", "info"}, {"msg", "emsim proxy ready"},
                    {"url", url}, {"port", port}, {"target", flags.proxy.target}, {"mutations", mutations},
                    {"fixtures", server.shadow().fixturePath()}};
      std::cout << ready.dump(-1, ' ', false, json::error_handler_t::replace) << std::endl;
    } else {
      std::cout << "emsim proxy ready on " << url << " target=" << flags.proxy.target << " mutations=" << mutations
                << " shadow-fixtures=" << server.shadow().fixturePath() << std::endl;
    }
    int sig = 0;
    sigwait(&signals, &sig);
    runtime::Log("info", std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") + ", stopping");
    server.Stop();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "emsim: cannot start: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace emsim::cli
