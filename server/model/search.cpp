#include "model/search.hpp"

#include <algorithm>
#include <sstream>

#include "core/text.hpp"

namespace emsim::model {
namespace {

bool AnyAddressContains(const std::vector<Address>& list, const std::string& needle_lower) {
  for (const auto& a : list)
    if (ContainsFolded(a.address, needle_lower) || ContainsFolded(a.name, needle_lower)) return true;
  return false;
}

bool AnyEquals(const std::vector<std::string>& values, const std::string& want_lower) {
  for (const auto& v : values)
    if (ToLower(v) == want_lower) return true;
  return false;
}

bool MatchesTerm(const Email& e, const std::string& term) {
  return ContainsFolded(e.subject, term) || ContainsFolded(e.snippet, term) || AnyAddressContains(e.from, term) ||
         AnyAddressContains(e.to, term);
}

}  // namespace

Result<EmailSearchView> SearchEmails(const State& s, const Caller& caller, const EmailQuery& q) {
  if (q.after && q.before && *q.before <= *q.after)
    return Error::Validation("before", "before must be later than after", "query");
  std::vector<std::string> terms;
  {
    std::istringstream words(ToLower(q.q));
    for (std::string w; words >> w;) terms.push_back(w);
  }
  const std::string from = ToLower(q.from), to = ToLower(q.to), subject = ToLower(q.subject);
  const std::string folder = ToLower(q.folder), label = ToLower(q.label), account = ToLower(q.account);

  std::vector<const Email*> matching;
  for (const auto& e : s.emails) {
    if (e.workspaceId != caller.workspaceId) continue;
    if (!account.empty() && ToLower(e.account) != account) continue;
    if (!folder.empty() && ToLower(e.folderPath) != folder) continue;
    if (!label.empty() && !AnyEquals(e.labels, label)) continue;
    if (q.isRead && e.isRead != *q.isRead) continue;
    if (q.isStarred && e.isStarred != *q.isStarred) continue;
    if (q.hasAttachments && e.hasAttachments != *q.hasAttachments) continue;
    if (q.after && e.date < *q.after) continue;
    if (q.before && e.date >= *q.before) continue;
    if (!subject.empty() && !ContainsFolded(e.subject, subject)) continue;
    if (!from.empty() && !AnyAddressContains(e.from, from)) continue;
    if (!to.empty() && !AnyAddressContains(e.to, to) &&
        std::none_of(e.cc.begin(), e.cc.end(), [&](const std::string& c) { return ContainsFolded(c, to); }))
      continue;
    if (!std::all_of(terms.begin(), terms.end(), [&](const std::string& t) { return MatchesTerm(e, t); })) continue;
    matching.push_back(&e);
  }
  // Newest first; stable so equal dates keep a fixed order (later-stored first after reverse).
  std::reverse(matching.begin(), matching.end());
  std::stable_sort(matching.begin(), matching.end(), [](const Email* a, const Email* b) { return a->date > b->date; });

  EmailSearchView view;
  view.page = Paginate(static_cast<std::int64_t>(matching.size()), q.page, q.limit);
  view.emails.assign(matching.begin() + view.page.begin, matching.begin() + view.page.end);
  return view;
}

}  // namespace emsim::model
