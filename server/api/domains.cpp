#include "api/domains.hpp"

#include "api/shapes.hpp"
#include "model/domains.hpp"
#include "model/messages.hpp"

namespace emsim::api {

http::Reply ListDomains(http::Ctx& ctx) {
  const std::int64_t page = std::stoll(ctx.req.Query("page", "1"));  // pattern-checked by the schema
  return ctx.svc.store.Read([&](const model::State& s) {
    auto view = model::ListDomains(s, ctx.caller, ctx.req.Query("contains"), page);
    json domains = json::array();
    for (const auto* d : view.domains) domains.push_back(DomainListRecord(s, *d));
    return http::Envelope(model::msg::kSuccess, {{"totalSearchedCount", view.page.totalSearchedCount},
                                                 {"currentPage", view.page.currentPage},
                                                 {"nextPage", view.page.nextPage},
                                                 {"totalPages", view.page.totalPages},
                                                 {"domains", std::move(domains)}});
  });
}

}  // namespace emsim::api
