#pragma once
// Part 4.9 mailbox search over the emails held in the caller's workspace's mailboxes. The spec
// shows no query parameters; emsim's set (README gap decision) is the obvious one below.
#include <optional>
#include <string>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/paging.hpp"
#include "model/state.hpp"

namespace emsim::model {

inline constexpr std::int64_t kSearchDefaultLimit = 20;
inline constexpr std::int64_t kSearchMaxLimit = 100;
// The distinct words q may hold (README gap decision). A search reads every row for a word most
// emails have, and each row is checked for each such word until one is missing (~50 ms per word
// per million emails): without a limit, one request of an 8 KiB line (~2,700 short words) could
// hold the store's read lock, and every write, for as many of those passes as its words are common.
inline constexpr size_t kMaxSearchTerms = 32;

struct EmailQuery {
  std::string q;        // every whitespace-separated term in subject, snippet, from or to (names, addresses)
  std::string from;     // substring of a sender's name or address
  std::string to;       // substring of a recipient's name or address (to and cc)
  std::string subject;  // substring of the subject
  std::string folder;   // folderPath, whole value
  std::string label;    // one of the labels, whole value
  std::string account;  // the mailbox address the email is held in, whole value
  std::optional<bool> isRead, isStarred, hasAttachments;
  std::optional<Millis> after, before;  // date >= after, date < before
  std::int64_t limit = kSearchDefaultLimit, page = 1;
};

struct EmailSearchView {
  Page page;                        // over every matching email, `limit` per page
  std::vector<const Email*> emails;  // this page, newest first
};

// Text comparisons ignore case. Emails of the caller's workspace only, newest first (ties: the
// later-stored first). `before` not later than `after`: 400 naming `before`; more than
// kMaxSearchTerms distinct words in q: 400 naming `q`.
Result<EmailSearchView> SearchEmails(const State& s, const Caller& caller, const EmailQuery& q);
// One step of bringing the email index SearchEmails(q) would use up to date
// (WorkspaceTextSearch::CatchUp): at most `most` more emails indexed; how many are left (0 when q
// has no text the index serves).
size_t CatchUpEmailSearch(const State& s, const Caller& caller, const EmailQuery& q, size_t most);

// One step of building, ahead of any search, the indexes of the workspaces that have at least
// `min_records` (1 or more) mailboxes, domains or emails: the `contains` filters' and the email
// search's (with the email order the latter's positions are in). At most about `most` records
// indexed (or email order steps taken); answers how many are left at most (0: every such index is
// up to date). Built as the searches' own catch-up builds them: a search finds the work done.
size_t WarmSearchIndexes(const State& s, size_t min_records, size_t most);

}  // namespace emsim::model
