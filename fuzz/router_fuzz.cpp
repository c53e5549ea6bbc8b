// The request pipeline fed raw requests (raw_request.hpp gives the format): routing, auth, body
// and query parsing, schema validation, every handler, the journal, faults and sinks, exactly as
// the HTTP server calls them (app::Router::Handle), without sockets. An App is built once with
// the default fixtures and a manual clock; every input starts from a reset, so a finding replays.
//
// Findings besides crashes: an answer the server could not send (its body does not serialize, as
// with invalid UTF-8 in a message), and a 500 that the pipeline produced for an exception (Part 7
// keeps 500 for server failures; input never causes one). Injected 5xx (/_sim/faults, sinks) are
// answers a test asked for and do not count.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/json_out.hpp"
#include "cli/app.hpp"
#include "common.hpp"
#include "api/routes.hpp"
#include "app/router.hpp"
#include "core/messages.hpp"
#include "raw_request.hpp"

namespace {

struct World {
  std::unique_ptr<emsim::cli::App> app;
  std::vector<emsim::app::Route> routes;
  std::unique_ptr<emsim::app::Router> router;
};

World& TheWorld() {
  static World* world = [] {
    emsim::app::Options o;
    o.fixtures = emsim::fuzz::SourceDir() + "/fixtures/default.yaml";
    o.schemasDir = emsim::fuzz::SourceDir() + "/schemas";
    o.clockMode = emsim::runtime::ClockMode::kManual;
    o.webhookTimeoutMs = 100;     // a delivery to nowhere must not slow every input
    o.strictWebhookUrls = true;
    auto* w = new World;
    w->app = std::make_unique<emsim::cli::App>(o);  // not started: no socket, no scheduler thread
    w->routes = emsim::api::Routes(w->app->services().schemas.Operations());
    w->router = std::make_unique<emsim::app::Router>(w->app->services(), w->routes);
    return w;
  }();
  return *world;
}

bool MentionsDelay(const std::string& s) {
  for (size_t i = 0; i + 5 <= s.size(); ++i)
    if ((s[i] | 0x20) == 'd' && (s[i + 1] | 0x20) == 'e' && (s[i + 2] | 0x20) == 'l' && (s[i + 3] | 0x20) == 'a' &&
        (s[i + 4] | 0x20) == 'y')
      return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emsim;
  World& w = TheWorld();
  {
    http::RawRequest reset;
    reset.method = "POST";
    reset.path = "/_sim/reset";
    if (w.router->Handle(std::move(reset)).status != 200) fuzz::Finding("POST /_sim/reset failed");
  }
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  int n = 0;
  for (std::string_view text : fuzz::SplitRequests(input)) {
    if (++n > 8) break;
    http::RawRequest raw = fuzz::ParseRawRequest(text);
    // Faults and sinks may be told to wait (delayMs) in wall time, by design: not a hang to find.
    if (MentionsDelay(raw.body)) continue;
    const std::string what = raw.method + " " + raw.path;
    http::Response res = w.router->Handle(std::move(raw));
    // What http/server.cpp's Write sends; a throw there is a 500 the client sees.
    const std::string body = res.raw ? *res.raw : core::DumpJson(res.body);
    if (res.status >= 500 && res.body.is_object() && res.body.value("message", "") == model::msg::kInternalError)
      fuzz::Finding(what + " answered 500 for an exception: " + body);
    if (res.status >= 500 && res.raw && res.raw->find(std::string("\"") + model::msg::kInternalError + "\"") != std::string::npos)
      fuzz::Finding(what + " answered 500 for an exception: " + body);
  }
  return 0;
}
