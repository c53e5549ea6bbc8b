#include "api/mailboxes.hpp"

#include "api/shapes.hpp"
#include "model/mailboxes.hpp"
#include "model/messages.hpp"

namespace emsim::api {

http::Reply ListMailboxes(http::Ctx& ctx) {
  const std::int64_t page = std::stoll(ctx.req.Query("page", "1"));  // pattern-checked by the schema
  return ctx.svc.store.Read([&](const model::State& s) {
    auto view = model::ListMailboxes(s, ctx.caller, ctx.req.Query("contains"), page);
    json domains = json::array();
    for (const auto& g : view.domains) {
      json mailboxes = json::array();
      for (const auto* m : g.mailboxes) mailboxes.push_back(MailboxRecord(s, *m));
      domains.push_back({{"id", g.domain->id},
                         {"domain", g.domain->domain},
                         {"status", g.domain->status},
                         {"mailboxes", std::move(mailboxes)}});
    }
    return http::Envelope(model::msg::kSuccess, {{"totalSearchedCount", view.page.totalSearchedCount},
                                                 {"currentPage", view.page.currentPage},
                                                 {"nextPage", view.page.nextPage},
                                                 {"totalPages", view.page.totalPages},
                                                 {"purchasedMailboxes", view.purchasedMailboxes},
                                                 {"totalAssignedMailboxes", view.totalAssignedMailboxes},
                                                 {"totalActiveMailboxes", view.totalActiveMailboxes},
                                                 {"availableMailboxes", view.availableMailboxes},
                                                 {"domains", std::move(domains)}});
  });
}

http::Reply MailboxDetails(http::Ctx& ctx) {
  return ctx.svc.store.Read([&](const model::State& s) -> http::Reply {
    auto m = model::FindMailbox(s, ctx.caller, ctx.req.Query("id"));
    if (!m) return m.error();
    return http::Envelope(model::msg::kSuccess, {{"mailbox", MailboxRecord(s, **m)}});
  });
}

}  // namespace emsim::api
