#include "api/control/ui.hpp"

#include <cstdio>

#include "api/control/ui_files.hpp"
#include "core/hash.hpp"

namespace emsim::api {

namespace {

std::string_view UiContentType(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

// The file with an ETag of its bytes and `no-cache`: a browser keeps it and asks again each time
// (304 when unchanged), so a new emsim binary's dashboard is never shadowed by an old cached one.
app::Reply ServeUiFile(const app::Ctx& ctx, std::string_view name) {
  for (const EmbeddedFile& f : UiFiles()) {
    if (f.name != name) continue;
    char etag[24];
    std::snprintf(etag, sizeof etag, "\"%016llx\"", static_cast<unsigned long long>(core::Fnv1a64(f.bytes)));
    const bool fresh = ctx.req.Header("if-none-match") == etag;
    http::Response r{.status = fresh ? 304 : 200,
                     .raw = fresh ? std::string() : std::string(f.bytes),
                     .contentType = std::string(UiContentType(f.name))};
    r.headers.emplace_back("etag", etag);
    r.headers.emplace_back("cache-control", "no-cache");
    r.headers.emplace_back("x-content-type-options", "nosniff");
    return r;
  }
  return model::Error::NotFound("The dashboard has no file " + std::string(name));
}

}  // namespace

app::Reply SimUiPage(app::Ctx& ctx) { return ServeUiFile(ctx, "index.html"); }

app::Reply SimUiFile(app::Ctx& ctx) { return ServeUiFile(ctx, ctx.req.params.at("file")); }

}  // namespace emsim::api
