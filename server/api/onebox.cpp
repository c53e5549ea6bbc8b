#include "api/onebox.hpp"

#include "api/query.hpp"
#include "api/shapes.hpp"
#include "model/search.hpp"

namespace emsim::api {
namespace {

std::optional<bool> Flag(const app::Request& req, const char* key) {
  if (!req.query.contains(key)) return std::nullopt;
  return req.Query(key) == "true";  // the schema allows only "true" and "false"
}

}  // namespace

app::Reply SearchEmails(app::Ctx& ctx) {
  const app::Request& req = ctx.req;  // parameters checked by schemas/requests/onebox.search_emails.json
  model::EmailQuery q;
  q.q = req.Query("q");
  q.from = req.Query("from");
  q.to = req.Query("to");
  q.subject = req.Query("subject");
  q.folder = req.Query("folder");
  q.label = req.Query("label");
  q.account = req.Query("account");
  q.isRead = Flag(req, "isRead");
  q.isStarred = Flag(req, "isStarred");
  q.hasAttachments = Flag(req, "hasAttachments");
  for (const char* key : {"after", "before"}) {
    if (!req.query.contains(key)) continue;
    auto t = model::ParseIso(req.Query(key));
    if (!t)
      return model::Error::Validation(key, std::string(key) + " must be a real date: YYYY-MM-DD or an ISO 8601 UTC timestamp",
                                      "query");
    (std::string(key) == "after" ? q.after : q.before) = *t;
  }
  auto limit = QueryInt(req, "limit", model::kSearchDefaultLimit, 1, 100);
  if (!limit) return limit.error();
  auto page = QueryInt(req, "page", 1, 1, kMaxPage);
  if (!page) return page.error();
  q.limit = *limit;
  q.page = *page;

  ctx.ReadInSteps([&](const model::State& s) { return model::CatchUpEmailSearch(s, ctx.caller, q, kIndexStep); });
  return ctx.Read([&](const model::State& s) -> app::Reply {
    auto view = model::SearchEmails(s, ctx.caller, q);
    if (!view) return view.error();
    json data = json::array();
    for (const auto* e : view->emails) data.push_back(EmailSummaryRecord(*e));
    // Part 4.9: the body is exactly {success, data}; paging travels in headers (gap decision).
    http::Response res = app::Json({{"success", true}, {"data", std::move(data)}});
    res.headers.emplace_back("x-total-count", std::to_string(view->page.totalSearchedCount));
    res.headers.emplace_back("x-page", std::to_string(view->page.currentPage));
    res.headers.emplace_back("x-per-page", std::to_string(q.limit));
    res.headers.emplace_back("x-total-pages", std::to_string(view->page.totalPages));
    res.headers.emplace_back("x-next-page", std::to_string(view->page.nextPage));
    return res;
  });
}

}  // namespace emsim::api
