#pragma once
// The mailbox list's `contains` filter (Part 4.2 list; README: a case-insensitive substring of
// the address or of "first last") without reading every mailbox of the workspace: a scan took
// 24 ms at 100k mailboxes and 1.2 s at 4.5 M.
//
// For each workspace searched, the trigrams (three lower-cased bytes) of each mailbox's address
// and name, each with the mailboxes that have it, as positions in State::mailboxesByWorkspace
// (which only grows, in table order, until a rebuild or the workspace's deletion). A needle of
// three bytes or more can only match a mailbox that has every trigram of it: the candidates are
// those in all of its lists, checked one by one as the scan checked every mailbox, in the same
// order. Shorter needles, and needles a quarter of the workspace may match, still scan.
//
// A cache, built when a workspace is first searched and brought up to date by the next search
// (mailboxes added since are appended); what changes a mailbox's text (a rename, a new name)
// forgets the workspace's entry. So writes cost nothing but that, and a world nobody searches
// (a tenant's, a soak's) holds no index. Searches run under the store's read lock, several at
// once: the cache has a lock of its own, held for a search's catch-up and candidates. A copy of
// the state starts with an empty cache.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace emsim::model {

struct State;
struct Mailbox;
struct Domain;

// What `contains` is matched against: "username@domain" and "first last", as written (the
// comparison folds case). Into the caller's buffers, which a scan reuses for every mailbox;
// `domain` is the caller's too (nullptr at first): consecutive mailboxes mostly share one.
void MailboxSearchTexts(const State& s, const Mailbox& m, std::string& address, std::string& name,
                        const Domain*& domain);

class MailboxSearch {
 public:
  MailboxSearch() = default;
  MailboxSearch(const MailboxSearch&) {}
  MailboxSearch& operator=(const MailboxSearch&) {
    Clear();
    return *this;
  }

  // Calls `candidate` with each mailbox of `workspace_id` that may contain `needle_lower` (every
  // one that does, some that do not), in the workspace's order, and answers true; or answers
  // false when the needle is too short for the index, or so common that a scan is faster (the
  // caller scans).
  bool ForEachCandidate(const State& s, const std::string& workspace_id, std::string_view needle_lower,
                        const std::function<void(const Mailbox&)>& candidate) const;

  // A mailbox's address or name changed: the workspace's entry is rebuilt when next searched.
  void Forget(const std::string& workspace_id);
  void Clear();
  // "" when every workspace's entry is what a fresh build of the same mailboxes gives.
  std::string Problems(const State& s) const;
  // Workspaces with an entry (tests).
  size_t Workspaces() const;

 private:
  struct Entry {
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> postings;  // trigram -> positions
    size_t indexed = 0;  // the first `indexed` mailboxes of the workspace are in `postings`
  };
  // Indexes the workspace's mailboxes (`ids`, State::mailboxesByWorkspace) from e.indexed to `upto`.
  static void IndexUpTo(const State& s, const std::vector<std::string>& ids, Entry& e, size_t upto);

  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, Entry> entries_;
};

}  // namespace emsim::model
