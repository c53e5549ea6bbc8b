#pragma once
// The scenario runner's client for the emsim it runs in: each request goes straight into the
// app's pipeline (http::RequestHandler, the app::Router), as the transport would hand it over,
// without a socket. POST /_sim/scenarios/run and `emsim scenario run FILE` use it; the runner
// then needs no free worker thread or connection of its own.
#include "http/server.hpp"
#include "scenario/client.hpp"

namespace emsim::api {

class InProcessClient : public scenario::Client {
 public:
  explicit InProcessClient(http::RequestHandler& pipeline) : pipeline_(pipeline) {}
  scenario::ClientResponse Send(const scenario::ClientRequest& request) override;

 private:
  http::RequestHandler& pipeline_;
};

}  // namespace emsim::api
