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
  const std::string contains = ctx.req.Query("contains");
  ctx.ReadInSteps([&](const model::State& s) { return model::CatchUpMailboxSearch(s, ctx.caller, contains, kIndexStep); });
  return ctx.Read([&](const model::State& s) {
    auto view = model::ListMailboxes(s, ctx.caller, contains, page);
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

app::Reply AssignMailboxes(app::Ctx& ctx) {
  // {"<domainId>": [{firstName, lastName, mailboxUsername, domainName}]}, shape checked by the schema.
  std::vector<model::AssignRequest> in;
  for (const auto& [domain_id, list] : ctx.req.body.items()) {
    model::AssignRequest r{domain_id, {}};
    for (const auto& m : list)
      r.mailboxes.push_back({m.at("firstName").get<std::string>(), m.at("lastName").get<std::string>(),
                             m.at("mailboxUsername").get<std::string>(), m.at("domainName").get<std::string>()});
    in.push_back(std::move(r));
  }
  auto done = ctx.Write([&](model::State& s) { return model::AssignMailboxes(s, ctx.caller, in, ctx.now); });
  if (!done) return done.error();
  // https://docs.zapmail.ai/v1/assign-new-mailboxes-to-domains-13490321e0: data null.
  return app::Envelope("Mailboxes will be assigned shortly", nullptr);
}

app::Reply UpdateMailboxes(app::Ctx& ctx) {
  std::vector<model::MailboxUpdate> in;
  for (const auto& m : ctx.req.body.at("mailboxData")) {
    model::MailboxUpdate u;
    u.mailboxId = m.at("mailboxId").get<std::string>();
    u.firstName = m.at("firstName").get<std::string>();
    u.lastName = m.at("lastName").get<std::string>();
    u.username = m.at("username").get<std::string>();
    if (m.contains("profilePicture") && !m["profilePicture"].is_null()) u.profilePicture = m["profilePicture"].get<std::string>();
    u.removeProfilePicture = m.value("removeProfilePicture", false);
    in.push_back(std::move(u));
  }
  auto done = ctx.Write([&](model::State& s) { return model::UpdateMailboxes(s, ctx.caller, in, ctx.now); });
  if (!done) return done.error();
  return app::Envelope("Mailboxes updated successfully", nullptr);
}

app::Reply ScheduleMailboxRemoval(app::Ctx& ctx) {
  const json& b = ctx.req.body;
  const auto ids = b.value("mailboxIds", std::vector<std::string>{});
  const bool remove = b.at("remove").get<bool>();
  auto done = ctx.Write([&](model::State& s) { return model::ScheduleMailboxRemoval(s, ctx.caller, ids, remove, ctx.now); });
  if (!done) return done.error();
  // https://docs.zapmail.ai/remove-mailboxes-on-next-renewal-13490521e0: {message, data: null}.
  return app::Json({{"message", remove ? "Mailbox will be removed on next renewal"
                                       : "Mailbox removal on next renewal cancelled"},
                    {"data", nullptr}});
}

}  // namespace emsim::api
