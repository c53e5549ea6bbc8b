#include "api/mailboxes.hpp"

#include "api/query.hpp"
#include "api/shapes.hpp"
#include "model/mailboxes.hpp"
#include "core/messages.hpp"

namespace emsim::api {

app::Reply ListMailboxes(app::Ctx& ctx) {
  auto page_or = QueryInt(ctx.req, "page", 1, 1, kMaxPage);
  if (!page_or) return page_or.error();
  const std::int64_t page = *page_or;
  return ctx.Read([&](const model::State& s) {
    auto view = model::ListMailboxes(s, ctx.caller, ctx.req.Query("contains"), page);
    // Written as text (core/json_out.hpp), keys in sorted order: the bytes an nlohmann Envelope
    // of {..., domains: [{id, domain, status, mailboxes: [MailboxRecord]}]} would dump.
    core::JsonOut w;
    w.BeginObject().Key("data").BeginObject()
        .Key("availableMailboxes").Int(view.availableMailboxes)
        .Key("currentPage").Int(view.page.currentPage)
        .Key("domains").BeginArray();
    for (const auto& g : view.domains) {
      w.BeginObject().Key("domain").String(g.domain->domain).Key("id").String(g.domain->id).Key("mailboxes").BeginArray();
      for (const auto* m : g.mailboxes) WriteMailboxRecord(w, s, *m);
      w.EndArray().Key("status").String(core::NameOf(g.domain->status)).EndObject();
    }
    w.EndArray()
        .Key("nextPage").Int(view.page.nextPage)
        .Key("purchasedMailboxes").Int(view.purchasedMailboxes)
        .Key("totalActiveMailboxes").Int(view.totalActiveMailboxes)
        .Key("totalAssignedMailboxes").Int(view.totalAssignedMailboxes)
        .Key("totalPages").Int(view.page.totalPages)
        .Key("totalSearchedCount").Int(view.page.totalSearchedCount)
        .EndObject();
    return FinishTextEnvelope(w);
  });
}

app::Reply MailboxDetails(app::Ctx& ctx) {
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto m = model::FindMailbox(s, ctx.caller, ctx.req.Query("id"));
    if (!m) return m.error();
    return app::Envelope(model::msg::kSuccess, {{"mailbox", MailboxRecord(s, **m)}});
  });
}

}  // namespace emsim::api
