#pragma once
// The request pipeline every endpoint goes through (stripe-mock's shape), under banner comments
// in router.cpp: request id -> route -> auth -> body -> schema -> handler -> respond + journal.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/route_table.hpp"
#include "http/types.hpp"

namespace emsim::http {

struct RawRequest {
  std::string method, path, body;
  Headers headers;  // lower-cased names
  std::multimap<std::string, std::string> params;   // query string
};

class Router {
 public:
  // Throws std::runtime_error when an operation lacks its request schema (emsim refuses to
  // start) or a public operation lacks its response schema.
  explicit Router(app::Services& svc) : Router(svc, Routes()) {}
  // Tests inject their own routes (e.g. one that throws, for the 500 path).
  Router(app::Services& svc, const std::vector<Route>& routes);
  // Takes the request by value: its headers and body move into the pipeline instead of being copied.
  Response Handle(RawRequest raw);

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
  // every route, building a parameter map per candidate, was ~2% of a purchase (issue 7).
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

std::vector<std::string> SplitPath(const std::string& path);

}  // namespace emsim::http
