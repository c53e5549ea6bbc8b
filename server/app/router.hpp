#pragma once
// The request pipeline every endpoint goes through (stripe-mock's shape), under banner comments
// in router.cpp: request id -> route -> auth -> body -> schema -> handler -> respond + journal.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/route.hpp"
#include "app/types.hpp"
#include "http/server.hpp"

namespace emsim::app {

class Router : public http::RequestHandler {
 public:
  // Throws std::runtime_error when an operation lacks its request schema (emsim refuses to
  // start) or a public operation lacks its response schema.
  // The routes come from above (api::Routes(catalogue) in the server; tests inject their own, e.g. one
  // that throws, for the 500 path).
  Router(app::Services& svc, const std::vector<Route>& routes);
  // Takes the request by value: its headers and body move into the pipeline instead of being copied.
  Response Handle(RawRequest raw) override;
  // --max-body-bytes, or --max-state-bytes for the routes whose body is a whole world.
  size_t BodyLimit(const std::string& method, const std::string& path) const override;
  // Part 7: what the transport refuses on its own answers in the spec's error shape (a 400 with
  // its field errors, any other status with an errorId), journaled like any request.
  Response Refuse(const http::Refusal& refusal, const std::string& method, const std::string& path,
                  bool record) override;

  // A route matched by method and path, with its path parameters.
  struct Match {
    const Route* route = nullptr;
    std::map<std::string, std::string> params;
    bool pathKnown = false;  // some route has this path (for 405 vs 404)
  };
  Match Find(const std::string& method, const std::string& path) const;

 private:
  struct Compiled {
    const Route* route;
    std::vector<std::string> segments;
  };
  // What Find answers for each path without parameters, per method, computed at construction by
  // Scan itself; other paths (and spellings such as a doubled slash) are scanned. The scan of
  // every route, building a parameter map per candidate, was ~2% of a purchase (measured).
  struct StaticPath {
    bool pathKnown = false;  // the answer for a method no route of the path has
    std::vector<std::pair<std::string, Match>> byMethod;
  };
  Match Scan(const std::string& method, const std::string& path) const;
  // `error_text`: `res` is the pipeline's own error answer written as text (ToTextResponse), which
  // the journal keeps like the error documents it serializes.
  Response Finish(Request& req, Response res, const model::Millis started, bool validation_failed,
                  bool error_text = false);
  std::optional<model::Error> CheckRequest(const Route& route, Request& req, bool authenticated) const;
  app::Services& svc_;
  std::vector<Compiled> routes_;
  std::unordered_map<std::string, StaticPath> static_paths_;
};

// The catalogue's path matching (schema/catalogue.hpp), one for the router and the scenarios.
using schema::SplitPath;

}  // namespace emsim::app
