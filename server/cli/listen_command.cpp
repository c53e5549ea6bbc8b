#include "cli/listen_command.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <tuple>

#include "cli/app.hpp"
#include "core/json.hpp"
#include "core/time.hpp"
#include "runtime/clock.hpp"
#include "core/thread_name.hpp"

namespace emsim::cli {

namespace {

constexpr const char* kListenUsage = R"(Usage: emsim listen --forward-to URL [flags]

Registers a webhook endpoint on a running emsim (POST /v2/webhooks/endpoints) whose URL is a
listener of this command on 127.0.0.1, prints the endpoint's id and secret once, and forwards
every delivery to URL with its body and its X-Service-Signature, Content-Type and User-Agent
headers untouched. emsim gets the app's status and body back, so its retries (Part 6) and the
auto-disable after 20 failures act on what the app answered; an app that is down is a 502.
One line per attempt: time, event type, event id, attempt (counted by listen), the app's status
or error, latency. Ctrl-C (SIGINT/SIGTERM) disables the endpoint and exits 0: the public API has
no delete, so the endpoint stays, disabled.

  --forward-to URL     the app's webhook URL, e.g. http://localhost:3000/hooks (required)
  --events T1,T2,...   event types to subscribe to (default: every type emsim lists)
  --url URL            the emsim (or EMSIM_URL; default http://127.0.0.1:8080)
  --api-key KEY        the account's API key (or EMSIM_API_KEY; required)

Exit codes: 0 stopped by a signal; 1 the emsim refused (message on stderr); 2 usage error or the
emsim is unreachable.
)";

// "http://host:port/path?q" -> {"http://host:port", "/path?q"}.
std::pair<std::string, std::string> SplitForwardUrl(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos || (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0))
    throw ListenError(2, "--forward-to must be an http(s) URL, got '" + url + "'");
  const size_t path = url.find('/', scheme + 3);
  if (path == std::string::npos) return {url, "/"};
  return {url.substr(0, path), url.substr(path)};
}

}  // namespace

Listener::Listener(ListenOptions options, std::ostream& out) : options_(std::move(options)), out_(out) {
  std::tie(app_base_, app_path_) = SplitForwardUrl(options_.forwardTo);
  // One forward per delivery, answered before emsim's attempt times out (Part 6: 10 s).
  server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) { Forward(req, res); });
}

Listener::~Listener() {
  try {
    Stop();
  } catch (...) {  // a destructor never throws; Stop() reports on out_
  }
}

std::string Listener::Call(const std::string& method, const std::string& path, const std::string& body) {
  httplib::Client client(options_.url);
  if (!client.is_valid()) throw ListenError(2, "--url " + options_.url + " is not an http(s) URL");
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(30, 0);
  httplib::Headers headers = {{"x-auth-service", options_.apiKey}};
  httplib::Result res = method == "GET"     ? client.Get(path, headers)
                        : method == "PATCH" ? client.Patch(path, headers, body, "application/json")
                                            : client.Post(path, headers, body, "application/json");
  if (!res) throw ListenError(2, options_.url + " unreachable: " + httplib::to_string(res.error()));
  if (res->status >= 400)
    throw ListenError(1, method + " " + path + " answered " + std::to_string(res->status) + ": " + res->body);
  return res->body;
}

void Listener::Start() {
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw ListenError(2, "cannot bind a port on 127.0.0.1");
  thread_ = core::NamedThread("listen-accept", [this] { server_.listen_after_bind(); });
  // httplib's stop() does nothing until the server runs: wait for it (a thread start, not for
  // time to pass), so a Start that fails below can stop and join it.
  while (!server_.is_running()) std::this_thread::yield();
  stopped_ = false;
  try {
    std::vector<std::string> events = options_.events;
    if (events.empty()) {
      const json types = json::parse(Call("GET", "/v2/webhooks/events", ""), nullptr, false);
      if (types.is_object() && types.contains("data") && types["data"].is_array())
        for (const auto& t : types["data"]) events.push_back(t.value("value", ""));
    }
    const std::string local = "http://127.0.0.1:" + std::to_string(port_) + "/";
    const json created =
        json::parse(Call("POST", "/v2/webhooks/endpoints", json{{"url", local}, {"enabled_events", events}}.dump()),
                    nullptr, false);
    if (!created.is_object() || !created.contains("data") || !created["data"].is_object())
      throw ListenError(1, "POST /v2/webhooks/endpoints answered no endpoint");
    endpoint_id_ = created["data"].value("id", "");
    secret_ = created["data"].value("secret", "");
    std::lock_guard lock(mu_);
    out_ << "endpoint " << endpoint_id_ << " on " << options_.url << " -> " << local << " (" << events.size()
         << " event types)\n"
         << "secret   " << secret_ << "  (shown once: the app verifies X-Service-Signature with it)\n"
         << "forwarding deliveries to " << options_.forwardTo
         << "; Ctrl-C disables the endpoint (the public API has no delete)\n"
         << std::flush;
  } catch (...) {
    server_.stop();
    thread_.join();
    stopped_ = true;
    throw;
  }
}

void Listener::Stop() {
  if (stopped_) return;
  stopped_ = true;
  std::string outcome;
  if (!endpoint_id_.empty()) {
    try {
      Call("PATCH", "/v2/webhooks/endpoints/" + endpoint_id_, json{{"status", "disabled"}}.dump());
      outcome = "endpoint " + endpoint_id_ + " disabled (Part 4.10 has no delete: it stays listed, disabled)";
    } catch (const ListenError& e) {
      outcome = "endpoint " + endpoint_id_ + " could not be disabled: " + e.what();
    }
  }
  server_.stop();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  if (!outcome.empty()) out_ << outcome << "\n" << std::flush;
}

void Listener::Forward(const httplib::Request& req, httplib::Response& res) {
  const json envelope = json::parse(req.body, nullptr, false);
  const std::string event_id = envelope.is_object() ? envelope.value("id", "?") : "?";
  const std::string type = envelope.is_object() ? envelope.value("type", "?") : "?";
  int attempt = 0;
  {
    std::lock_guard lock(mu_);
    attempt = ++attempts_[event_id];
  }
  // The body and the headers the signature and the app's parsing depend on, untouched (Part 6).
  httplib::Headers headers;
  for (const char* name : {"X-Service-Signature", "User-Agent"})
    if (req.has_header(name)) headers.emplace(name, req.get_header_value(name));
  const std::string content_type =
      req.has_header("Content-Type") ? req.get_header_value("Content-Type") : "application/json";
  httplib::Client app(app_base_);
  app.set_connection_timeout(5, 0);
  app.set_read_timeout(9, 0);  // under emsim's 10 s attempt timeout: the app's slowness is its answer
  const auto started = std::chrono::steady_clock::now();
  httplib::Result answer = app.Post(app_path_, headers, req.body, content_type);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  std::string outcome;
  if (answer) {
    res.status = answer->status;
    res.set_content(answer->body, answer->has_header("Content-Type") ? answer->get_header_value("Content-Type")
                                                                      : "text/plain");
    outcome = std::to_string(answer->status);
  } else {
    // The app is down or timed out: a failed attempt for emsim, so it retries (Part 6).
    res.status = 502;
    outcome = "error: " + httplib::to_string(answer.error());
    res.set_content("emsim listen: " + options_.forwardTo + " " + outcome, "text/plain");
  }
  std::lock_guard lock(mu_);
  out_ << model::FormatIso(runtime::Clock::WallNow()) << "  " << type << "  " << event_id << "  attempt " << attempt
       << "  " << outcome << "  " << ms << " ms\n"
       << std::flush;
}

int ListenCommand(const std::vector<std::string>& args) {
  ListenOptions o;
  if (const char* u = std::getenv("EMSIM_URL"); u && *u) o.url = u;
  if (const char* k = std::getenv("EMSIM_API_KEY"); k && *k) o.apiKey = k;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kListenUsage;
      return 0;
    }
    if (a != "--forward-to" && a != "--events" && a != "--url" && a != "--api-key") {
      std::cerr << "emsim listen: unknown argument '" << a << "' (see emsim listen --help)\n";
      return 2;
    }
    if (i + 1 >= args.size()) {
      std::cerr << "emsim listen: " << a << " needs a value\n";
      return 2;
    }
    const std::string v = args[++i];
    if (a == "--forward-to") o.forwardTo = v;
    else if (a == "--url") o.url = v;
    else if (a == "--api-key") o.apiKey = v;
    else {
      std::stringstream list(v);
      for (std::string t; std::getline(list, t, ',');)
        if (!t.empty()) o.events.push_back(t);
    }
  }
  if (o.forwardTo.empty()) {
    std::cerr << "emsim listen: --forward-to URL is required, e.g. http://localhost:3000/hooks\n";
    return 2;
  }
  if (o.apiKey.empty()) {
    std::cerr << "emsim listen: an API key is required: --api-key KEY or EMSIM_API_KEY (the account the "
                 "endpoint is registered for)\n";
    return 2;
  }
  // Before any thread starts, so only the sigwait below takes the signals (as emsim serve).
  sigset_t signals = BlockStopSignals();
  try {
    Listener listener(o, std::cout);
    listener.Start();
    int sig = 0;
    sigwait(&signals, &sig);
    listener.Stop();
    return 0;
  } catch (const ListenError& e) {
    std::cerr << "emsim listen: " << e.what() << "\n";
    return e.exitCode;
  }
}

}  // namespace emsim::cli
