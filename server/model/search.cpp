#include "model/search.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
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
  return AnyAddressContains(e.from, term) || AnyAddressContains(e.to, term) || ContainsFolded(e.subject, term) ||
         ContainsFolded(e.snippet, term);
}

// The distinct words of q (an email matches when it has every one: a repeat adds nothing but, for
// a word most emails have, a check of every row per repeat: `q=con+con+...` of 2,000 words at 1k
// emails took 0.16 s).
std::vector<std::string> WordsOf(const EmailQuery& q) {
  std::vector<std::string> words;
  std::istringstream in(ToLower(q.q));
  for (std::string w; in >> w;) words.push_back(w);
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  return words;
}

// The terms a search looks for: q's distinct words, less those inside another (an email that has
// "contact" has "con"), longest first: the likeliest to be rare, so a row's check mostly stops at
// its first term. More than kMaxSearchTerms words come back as they are, for the caller to refuse.
std::vector<std::string> TermsOf(const EmailQuery& q) {
  std::vector<std::string> words = WordsOf(q);
  if (words.size() > kMaxSearchTerms) return words;  // refused by SearchEmails; not worth the work
  std::stable_sort(words.begin(), words.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::vector<std::string> terms;
  for (std::string& w : words)
    if (std::none_of(terms.begin(), terms.end(), [&](const std::string& t) { return t.find(w) != std::string::npos; }))
      terms.push_back(std::move(w));
  return terms;
}

// Every text filter is a substring of a text the email index holds (subject, from and to are
// among a term's texts, and cc is indexed too): whether any is long enough for the index.
bool AnyIndexed(const std::string& subject, const std::string& from, const std::string& to,
                const std::vector<std::string>& terms) {
  for (const std::string* text : {&subject, &from, &to})
    if (text->size() >= kIndexedNeedleMin) return true;
  return std::any_of(terms.begin(), terms.end(), [](const std::string& t) { return t.size() >= kIndexedNeedleMin; });
}

// The positions in both ordered lists.
std::vector<std::uint32_t> Intersect(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::vector<std::uint32_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Checking a candidate reads its row, the row's address lists and their texts: four places on
// the heap, far apart, each a cache miss, one after the other (a profile of a selective search,
// `q=contact42@` at 1 M emails: 46% of its time in the term check, 97% of that waiting for those
// loads). So each level of a candidate is asked for kAhead candidates before the level below it
// is read, and the candidate is checked kAhead after its last level: the loads of several
// candidates overlap. (A term not in the addresses is looked for in the subject and the
// snippet: fetched too.)
constexpr size_t kAhead = 8;

inline void Prefetch(const void* p) { __builtin_prefetch(p); }

void PrefetchTexts(const std::vector<Address>& list) {
  for (const auto& a : list) {
    Prefetch(a.address.data());
    Prefetch(a.name.data());
  }
}

// Calls `check` with the position in `rows` of each of `count` candidates, `position(i)` the
// i-th, in order, having fetched ahead what MatchesTerm reads of them, and with `flags` the end
// of the row too (the folder, labels and flags a filter may compare first).
template <class Position, class Check>
void CheckAhead(const std::vector<const Email*>& rows, size_t count, bool flags, Position&& position, Check&& check) {
  // The row of the candidate `levels` times kAhead before the i-th, or null when there is none.
  auto behind = [&](size_t i, size_t levels) -> const Email* {
    const size_t back = levels * kAhead;
    return i >= back && i - back < count ? rows[position(i - back)] : nullptr;
  };
  for (size_t i = 0; i < count + 4 * kAhead; ++i) {
    if (i < count) Prefetch(&rows[position(i)]);
    if (const Email* e = behind(i, 1)) {
      Prefetch(&e->subject);
      Prefetch(&e->snippet);
      Prefetch(&e->from);
      Prefetch(&e->to);
      if (flags) Prefetch(&e->isRead);
    }
    if (const Email* e = behind(i, 2)) {
      Prefetch(e->from.data());
      Prefetch(e->to.data());
    }
    if (const Email* e = behind(i, 3)) {
      PrefetchTexts(e->from);
      PrefetchTexts(e->to);
      Prefetch(e->subject.data());
      Prefetch(e->snippet.data());
    }
    if (i >= 4 * kAhead) check(position(i - 4 * kAhead));
  }
}

}  // namespace

size_t CatchUpEmailSearch(const State& s, const Caller& caller, const EmailQuery& q, size_t most) {
  const std::string from = ToLower(q.from), to = ToLower(q.to), subject = ToLower(q.subject);
  // A search the index does not serve needs no email order either.
  const std::vector<std::string> terms = TermsOf(q);
  if (terms.size() > kMaxSearchTerms || !AnyIndexed(subject, from, to, terms)) return 0;
  // The index's positions are in the email order: that first (what is left of it counted above
  // any index's work, so the count only goes down).
  if (const size_t left = s.emailOrder.CatchUp(s, most)) return left + s.emails.size();
  return s.emailSearch.CatchUp(s, caller.workspaceId, most);
}

size_t WarmSearchIndexes(const State& s, size_t min_records, size_t most) {
  size_t budget = most, left = 0;
  // One index of one workspace (or the email order): what a step of no size reports is what is
  // left before, so what the step took comes off the budget.
  auto warm = [&](auto&& catch_up) {
    const size_t before = catch_up(0);
    if (before == 0) return size_t{0};
    const size_t after = budget > 0 ? catch_up(budget) : before;
    budget -= std::min(budget, before - after);
    left += after;
    return after;
  };
  for (const auto& w : s.workspaces) {
    warm([&](size_t n) { return s.mailboxSearch.CatchUp(s, w.id, n, min_records); });
    warm([&](size_t n) { return s.domainSearch.CatchUp(s, w.id, n, min_records); });
  }
  if (s.emails.size() < std::max<size_t>(min_records, 1)) return left;
  // The email search's lists are the email order's: that first, and until it is built, every
  // email is counted as left to index besides.
  if (warm([&](size_t n) { return s.emailOrder.CatchUp(s, n); }) > 0) return left + s.emails.size();
  for (const auto& w : s.workspaces) warm([&](size_t n) { return s.emailSearch.CatchUp(s, w.id, n, min_records); });
  return left;
}

Result<EmailSearchView> SearchEmails(const State& s, const Caller& caller, const EmailQuery& q) {
  if (q.after && q.before && *q.before <= *q.after)
    return Error::Validation("before", "before must be later than after", "query");
  const std::vector<std::string> terms = TermsOf(q);
  if (terms.size() > kMaxSearchTerms)
    return Error::Validation("q", "q has " + std::to_string(terms.size()) + " distinct words; a search takes at most " +
                                      std::to_string(kMaxSearchTerms),
                             "query");
  const std::string from = ToLower(q.from), to = ToLower(q.to), subject = ToLower(q.subject);
  const std::string folder = ToLower(q.folder), label = ToLower(q.label), account = ToLower(q.account);

  auto matches = [&](const Email& e) {
    if (!account.empty() && ToLower(e.account) != account) return false;
    if (!folder.empty() && ToLower(e.folderPath) != folder) return false;
    if (!label.empty() && !AnyEquals(e.labels, label)) return false;
    if (q.isRead && e.isRead != *q.isRead) return false;
    if (q.isStarred && e.isStarred != *q.isStarred) return false;
    if (q.hasAttachments && e.hasAttachments != *q.hasAttachments) return false;
    if (q.after && e.date < *q.after) return false;
    if (q.before && e.date >= *q.before) return false;
    if (!subject.empty() && !ContainsFolded(e.subject, subject)) return false;
    if (!from.empty() && !AnyAddressContains(e.from, from)) return false;
    if (!to.empty() && !AnyAddressContains(e.to, to) &&
        std::none_of(e.cc.begin(), e.cc.end(), [&](const std::string& c) { return ContainsFolded(c, to); }))
      return false;
    return std::all_of(terms.begin(), terms.end(), [&](const std::string& t) { return MatchesTerm(e, t); });
  };
  const bool flags = !folder.empty() || !label.empty() || q.isRead || q.isStarred || q.hasAttachments;
  const bool filtered = flags || !account.empty() || q.after || q.before || !subject.empty() || !from.empty() ||
                        !to.empty() || !terms.empty();
  // The workspace's emails newest first (State::emailOrder: sorted once, not per search), each
  // read at its position (EmailOrder::List's rows), never found by its id.
  const EmailOrder::List* in_order = s.emailOrder.NewestFirst(s, caller.workspaceId);
  const auto& rows = in_order ? in_order->rows : NoIds<std::vector<const Email*>>();
  EmailSearchView view;
  if (!filtered) {
    view.page = Paginate(static_cast<std::int64_t>(rows.size()), q.page, q.limit);
    for (auto i = view.page.begin; i < view.page.end; ++i) view.emails.push_back(rows[static_cast<size_t>(i)]);
    return view;
  }
  // Each text filter of three bytes or more answered by the index, exactly (model/text_search.hpp):
  // the emails in all of their lists. What the index leaves (a shorter filter, one most emails
  // may match, the flags, dates, folder, label and account) is checked on those rows; with
  // nothing left, the lists are the answer, and no row is read but the page's (a term 4,514 of
  // 4.5 M generated emails have, each row checked: 2.3 ms).
  // The longest first (the likeliest to be rare), and at most kIndexedFilters of them, none once
  // the emails found are few: a query of many terms asks the index a bounded number of times
  // (each a merge of lists that may hold millions), and its other terms are checked on the rows
  // found.
  using namespace email_field;
  std::vector<std::pair<std::string_view, Fields>> texts = {
      {subject, FieldBit(kSubject)}, {from, FieldBit(kFrom)}, {to, FieldBit(kTo) | FieldBit(kCc)}};
  for (const std::string& t : terms) texts.emplace_back(t, kTerm);
  std::stable_sort(texts.begin(), texts.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  constexpr size_t kIndexedFilters = 8, kFewFound = 32;
  std::optional<std::vector<std::uint32_t>> found;
  bool left = flags || !account.empty() || q.after || q.before;
  size_t asked = 0;
  for (const auto& [needle, fields] : texts) {
    if (needle.empty()) continue;
    if (found && found->empty()) break;
    if (needle.size() < kIndexedNeedleMin || asked == kIndexedFilters || (found && found->size() <= kFewFound)) {
      left = true;
      continue;
    }
    ++asked;
    auto listed = s.emailSearch.MatchesAt(s, caller.workspaceId, needle, fields);
    if (!listed) {
      left = true;
      continue;
    }
    found = found ? Intersect(*found, *listed) : std::move(*listed);
  }
  std::vector<const Email*> matching;
  auto check_at = [&](size_t at) {
    if (matches(*rows[at])) matching.push_back(rows[at]);
  };
  if (!found)
    CheckAhead(rows, rows.size(), flags, [](size_t i) { return i; }, check_at);
  else if (left)
    CheckAhead(rows, found->size(), flags, [&](size_t i) { return (*found)[i]; }, check_at);
  else {
    // Only the page's rows are read.
    view.page = Paginate(static_cast<std::int64_t>(found->size()), q.page, q.limit);
    for (auto i = view.page.begin; i < view.page.end; ++i) view.emails.push_back(rows[(*found)[static_cast<size_t>(i)]]);
    return view;
  }
  view.page = Paginate(static_cast<std::int64_t>(matching.size()), q.page, q.limit);
  view.emails.assign(matching.begin() + view.page.begin, matching.begin() + view.page.end);
  return view;
}

}  // namespace emsim::model
