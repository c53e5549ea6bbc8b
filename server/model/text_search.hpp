#pragma once
// The list filters `contains` of mailboxes and domains (Part 4.2 and 4.1 lists; README: a
// case-insensitive substring) without reading every record of the workspace: a mailbox scan took
// 24 ms at 100k mailboxes and 1.2 s at 4.5 M; a domain scan read every domain of every workspace.
//
// WorkspaceTextSearch keeps, for each workspace searched, the distinct texts of its records
// (values: a text as folded, with the field it is in), each with the records that have it, as
// positions in the workspace's list of ids (State::mailboxesByWorkspace, State::domainsByWorkspace,
// EmailOrder), which only grows, in table order, until a rebuild, a removal or the workspace's
// deletion; and the grams of the values (every three and every four lower-cased bytes), each with
// the values that have it. A needle of three bytes or more can only be in a value that has every
// gram of it (a needle of four bytes or more is looked up by its four-byte grams, whose lists are
// shorter): those in all of its lists are checked, each once, and the records of the values that
// contain it are the answer, exactly, in the workspace's order. Checked per record instead, a
// needle a thousand records share (one correspondent's address among 4.5 M generated emails: 4,514 of
// them) read every one of those records, ~0.4 us each; its value is checked once. Shorter
// needles, and needles a quarter of the workspace may match, still scan.
//
// A cache, built when a workspace is first searched (or, for a workspace already big when its
// world is loaded, ahead of that: WarmSearchIndexes, runtime::SearchWarmer) and brought up to
// date by the next search (records added since are appended); what changes a record's text (a
// mailbox renamed) or removes one from the list (a domain removed) forgets the workspace's entry.
// So writes cost nothing but that, and a world that grows by writes and is never searched (a
// tenant's, a soak's) holds no index. Searches
// run under the store's read lock, several at once: the cache has a lock of its own, held for a
// search's catch-up and candidates. A read route brings the entry up to date before its search
// in steps (CatchUp, app::Ctx::ReadInSteps), each a read transaction of its own, so a write
// waits for a step rather than for a big workspace's whole first build. A copy of the state
// starts with an empty cache.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/flat_table.hpp"

namespace emsim::model {

struct State;

// The ids of a workspace's (or domain's) records in a State index, in creation order: a deque, so
// appending never moves the ids already there. A std::vector of 4.3 M ids moved them all to a
// larger array in one append, under the store's write lock (a 116 ms p99 round of the mailbox
// soak); a deque adds a block of 16 and keeps random access for a page's slice.
using IdList = std::deque<std::string>;
struct Mailbox;
struct Domain;
struct Email;

// What a mailbox's `contains` is matched against: "username@domain" and "first last", as written
// (the comparison folds case). Into the caller's buffers, which a scan reuses for every mailbox;
// `domain` is the caller's too (nullptr at first): consecutive mailboxes mostly share one.
void MailboxSearchTexts(const State& s, const Mailbox& m, std::string& address, std::string& name,
                        const Domain*& domain);

// The first element of the ordered range [from, end) that is `at` or more, as std::lower_bound
// answers, found by steps that double from `from`: O(log distance), and the first steps stay near
// `from` (where the next of a run of ordered searches usually is).
const std::uint32_t* GallopTo(const std::uint32_t* from, const std::uint32_t* end, std::uint32_t at);

// A gram's list of value numbers, or a value's of record positions: in order, each kept as its
// distance from the one before in 1-5 bytes (7 bits a byte, the high bit set on all but the
// last), and every 32nd position with where its bytes end kept aside to jump to. The distances
// mostly fit a byte: at four bytes a position, the first searches of a workspace of 4.5 M
// generated mailboxes (and as many emails) made emsim ~2 GB larger, and a third of building an
// index was copying lists as they grew and the kernel zeroing their new pages. (Offsets are 32
// bits: a list's bytes stay far below 4 GiB, as a workspace's records stay below what memory
// holds.)
class Positions {
 public:
  // `at` is more than back(), or the list is empty.
  void Append(std::uint32_t at);
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::uint32_t back() const { return last_; }
  std::vector<std::uint32_t> Decoded() const;
  // Appends every position, in order, to `out`.
  void AppendTo(std::vector<std::uint32_t>& out) const;

  // Reads a list forward: to the first position not less than a target, the targets in order.
  class Cursor {
   public:
    explicit Cursor(const Positions& list);
    // Moves to the first position >= `at` (never back); false when the list has none.
    bool SeekTo(std::uint32_t at);
    std::uint32_t value() const { return value_; }

   private:
    const Positions& list_;
    size_t index_ = 0;        // of the position the cursor is on (size(): past the last)
    std::uint32_t value_ = 0;  // that position
    size_t next_ = 0;          // where the next one's bytes start
  };

 private:
  static constexpr size_t kBlock = 32;
  std::vector<std::uint8_t> bytes_;
  std::vector<std::uint32_t> blockFirst_;  // position kBlock * b
  std::vector<std::uint32_t> blockNext_;   // where the bytes after it start
  std::uint32_t count_ = 0, last_ = 0;
};

// The shortest needle the index serves (a trigram); shorter ones are answered by a scan.
inline constexpr size_t kIndexedNeedleMin = 3;

// Which of a record's texts a value is (a search may look in some only: the email search's
// `subject` in subjects alone), and a set of them (bit 1 << field).
using Field = std::uint8_t;
using Fields = std::uint32_t;
inline constexpr Fields kAnyField = ~Fields{0};
constexpr Fields FieldBit(Field f) { return Fields{1} << f; }

// Texts copied in and never moved, in chunks (a text longer than a chunk gets one of its own): a
// value's text stays where it is as the values grow, and costs no allocation of its own.
class TextArena {
 public:
  std::string_view Add(std::string_view text);

 private:
  static constexpr size_t kChunk = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* next_ = nullptr;
  size_t left_ = 0;
};

// A value's key in a search's table of its distinct texts: FNV-1a of the field and the folded
// text, in 32 bits, never 0. Two values may share one (declared for the test that makes them).
std::uint32_t TextValueKey(Field field, std::string_view folded);

class WorkspaceTextSearch {
 public:
  // Hands each text of the record at `position` of the workspace's ids, whose id is `id`, to
  // `add` with its field (nothing for an id no record has).
  using Add = std::function<void(Field field, std::string_view text)>;
  using Reader = std::function<void(size_t position, const std::string& id, const Add& add)>;
  // A reader for one build of a workspace's entry, made when the build starts: it may keep what
  // consecutive records share (a mailbox's domain: looking it up again for each mailbox was a hash
  // lookup and a cache miss per record) for as long as the build runs under the store's lock.
  using Texts = std::function<Reader(const State& s, const std::string& workspace_id)>;
  // The workspace's ids, in order: one of the State's per-workspace lists (nullptr: none).
  using Ids = std::function<const IdList*(const State& s, const std::string& workspace_id)>;

  WorkspaceTextSearch(std::string name, Ids ids, Texts texts)
      : name_(std::move(name)), ids_(std::move(ids)), texts_(std::move(texts)) {}
  // A copy starts empty (the cache is not state).
  WorkspaceTextSearch(const WorkspaceTextSearch& o) : name_(o.name_), ids_(o.ids_), texts_(o.texts_) {}
  WorkspaceTextSearch& operator=(const WorkspaceTextSearch&) {
    Clear();
    return *this;
  }

  // The positions in the workspace's ids, in order, of the records with a text of one of `fields`
  // that contains `needle_lower`, exactly; none (nullopt) when the needle is too short for the
  // index, or so common that a scan is faster: the caller scans. A list, so a caller counts the
  // matches and looks up a page's rows alone; the email search intersects its filters' lists.
  std::optional<std::vector<std::uint32_t>> MatchesAt(const State& s, const std::string& workspace_id,
                                                      std::string_view needle_lower,
                                                      Fields fields = kAnyField) const;

  // For a search of `needle` (as MatchesAt takes it): indexes at most `most` more of the
  // workspace's records and answers how many are still not indexed (0: up to date, no record, or
  // a needle too short for the index, which a search answers by a scan). A caller brings a big
  // workspace's first search up to date in steps, each under a read transaction of its own
  // (app::Ctx::ReadInSteps): built by the search itself, under the one read transaction of its
  // request, the index held every write for the whole build (1.3-2.2 s at 1 M mailboxes and
  // emails; ~10 s at 4.5 M).
  size_t CatchUp(const State& s, const std::string& workspace_id, std::string_view needle, size_t most) const;
  // The same for whatever the next search looks for, when the workspace has `min_records` records
  // or more (0 otherwise): the warm-up of a world's big workspaces (WarmSearchIndexes).
  size_t CatchUp(const State& s, const std::string& workspace_id, size_t most, size_t min_records = 0) const;

  // A record's text changed, or one left the workspace's list: rebuilt when next searched.
  void Forget(const std::string& workspace_id);
  void Clear();
  // "" when every workspace's entry is what a fresh build of the same records gives.
  std::string Problems(const State& s) const;
  // Workspaces with an entry (tests).
  size_t Workspaces() const;

 private:
  // Gram (three or four bytes) -> value numbers: a flat table (core/flat_table) of list indexes
  // over the lists. A build looks up grams for every byte of every new value; std::unordered_map's
  // lookup (a modulo by a prime, a node per trigram) was most of a first search (emails at 1 M:
  // 3.7 s).
  class Postings {
   public:
    // The gram's list, made empty when it has none (valid until the next call).
    Positions& operator[](std::uint32_t gram);
    const Positions* Find(std::uint32_t gram) const;
    // Every list by its gram, in gram order (Problems compares two builds).
    std::map<std::uint32_t, std::vector<std::uint32_t>> Sorted() const;

   private:
    // gram + 1 (0 is the table's empty key, and a four-byte gram may be 0) -> index in lists_
    core::FlatTable<std::uint64_t, std::uint32_t, core::FibonacciHome64> index_;
    std::vector<Positions> lists_;
  };
  // A distinct text of the workspace's records, as folded, in one field, and the records that
  // have it: most values (an address) have one record, kept inline; the rest of a shared one's
  // (a subject, a correspondent) are a list of their own.
  struct Value {
    static constexpr std::uint32_t kNone = ~std::uint32_t{0};
    const char* text;
    std::uint32_t size;
    Field field;
    std::uint32_t first;         // the first record's position
    std::uint32_t more = kNone;  // index in Entry::more of the later records' positions
  };
  struct Entry {
    Postings postings;  // trigram -> value numbers
    // Four-byte gram -> value numbers, for needles of four bytes or more: a generated address's
    // digits ("gen-0000123") have trigrams tens of thousands of values share among 4.5 M, and
    // merging those lists was nearly all of a selective search (135 us); the needle's four-byte
    // grams' lists are a tenth as long. (Trigrams stay for three-byte needles.)
    Postings quadgrams;
    // TextValueKey(field, text) -> value number; a key two values share moves the later one on
    // to the next key, so a lookup compares the text of every value it finds (32-bit keys: half
    // the table of 64-bit ones, and the ~2,400 such keys among 4.5 M values cost a step each)
    core::FlatTable<std::uint32_t, std::uint32_t, core::FibonacciHome> byText;
    std::vector<Value> values;
    std::vector<Positions> more;
    TextArena texts;
    size_t indexed = 0;  // the first `indexed` records of the workspace are in `values`
    // The record at `at` has `folded` in `field` (records come in order, each text once or more).
    void Add(Field field, std::string_view folded, std::uint32_t at);
    size_t RecordsOf(const Value& v) const { return 1 + (v.more == Value::kNone ? 0 : more[v.more].size()); }
    // Every value as (field, text, positions), in value order (Problems compares two builds).
    std::vector<std::tuple<Field, std::string_view, std::vector<std::uint32_t>>> AllValues() const;
  };
  // Indexes the workspace's records (`ids`) from e.indexed to `upto`.
  void IndexUpTo(const State& s, const std::string& workspace_id, const IdList& ids, Entry& e, size_t upto) const;

  std::string name_;  // for Problems
  Ids ids_;
  Texts texts_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, Entry> entries_;
};

// The emails of each workspace in the order the mailbox search (Part 4.9) lists them: newest first,
// equal dates the later-stored first. A cache as the searches are: built for every workspace by
// one pass over the emails when first asked, the sort done once instead of per search (a search
// with no filter read and sorted every email: 6.3 ms at 100k). Emails are never changed once
// stored; what adds or removes any (a tenant's creation or deletion) clears it, and the email
// search with it (State::ForgetEmailOrder), whose positions are in these lists.
class EmailOrder {
 public:
  static constexpr size_t kRun = 65536;  // keys sorted a step
  EmailOrder() = default;
  // `run`: keys sorted a step (tests make it small, to merge many runs).
  explicit EmailOrder(size_t run) : run_(run > 0 ? run : 1) {}
  EmailOrder(const EmailOrder& o) : run_(o.run_) {}
  EmailOrder& operator=(const EmailOrder&) {
    Clear();
    return *this;
  }
  // A workspace's emails newest first: their ids (the email search's positions are in this
  // order) and, at the same positions, the rows. A search reads a candidate's row there instead
  // of finding it by its id (that lookup, a few cache misses, was a third of a selective search
  // at 1 M emails). The rows stay where they are until Clear: emails are stored in a std::deque
  // that appends without moving them, and what adds or removes any clears the order.
  struct List {
    IdList ids;
    std::vector<const Email*> rows;
    bool operator==(const List&) const = default;
  };
  // The workspace's list; nullptr when it holds no email. Valid until Clear (a writer's, under
  // the store's write lock: never during a search).
  const List* NewestFirst(const State& s, const std::string& workspace_id) const;
  // Takes at most `most` more steps of the build (an email read, a run of kRun keys sorted, or an
  // email placed in its list) and answers how many are left (0: built). A read route builds it so
  // before a first search (app::Ctx::ReadInSteps): in one go, at 1 M emails, it held writes ~0.3 s.
  size_t CatchUp(const State& s, size_t most) const;
  void Clear();
  // "" when the cache is what a fresh build gives.
  std::string Problems(const State& s) const;

 private:
  // A build under way: every email's date, storage position and workspace, read in steps, then
  // sorted (by value: no email is read by the sort) a run of kRun keys a step, then the runs
  // merged, each email placed in its workspace's list as the merge reaches it, in steps. Sorted
  // whole in one step, 4.5 M emails held the store's read lock, and every write, ~0.5 s; a run is
  // a few milliseconds. Emails are never changed once stored and what adds or removes any clears
  // the build, so what it read stays true until it ends.
  struct Build {
    struct Key {
      std::int64_t date;  // Millis
      std::uint32_t at;  // position in State::emails
      std::uint32_t workspace;  // index in `workspaces`
    };
    // The order of the lists: by workspace, newest first, of one date the later-stored first.
    static bool Before(const Key& x, const Key& y) {
      if (x.workspace != y.workspace) return x.workspace < y.workspace;
      if (x.date != y.date) return x.date > y.date;
      return x.at > y.at;
    }
    std::vector<Key> keys;
    std::vector<const std::string*> workspaces;
    std::unordered_map<std::string_view, std::uint32_t> workspaceIndex;
    size_t sortedRuns = 0;
    // The merge: per run not yet placed whole, {its next key, its end} (positions in keys), as a
    // heap whose top holds the first key of the order; made when the first email is placed.
    std::vector<std::pair<size_t, size_t>> heads;
    size_t placed = 0;
  };
  size_t StepLocked(const State& s, size_t most) const;  // under mu_
  size_t run_ = kRun;
  mutable std::mutex mu_;
  mutable bool built_ = false;
  mutable Build build_;
  mutable std::unordered_map<std::string, List> byWorkspace_;
};

// The email search's fields: a term (Part 4.9 `q`) is looked for in the subject, the snippet and
// the senders' and recipients' names and addresses; `subject` in the subject; `from` in the
// senders'; `to` in the recipients' and cc.
namespace email_field {
inline constexpr Field kSubject = 0, kSnippet = 1, kFrom = 2, kTo = 3, kCc = 4;
inline constexpr Fields kTerm = FieldBit(kSubject) | FieldBit(kSnippet) | FieldBit(kFrom) | FieldBit(kTo);
}  // namespace email_field

// The three searches the State keeps (model/state.hpp): mailboxes by address and name, domains by
// name, emails by what their filters are matched against (email_field), in EmailOrder's order.
WorkspaceTextSearch MakeMailboxSearch();
WorkspaceTextSearch MakeDomainSearch();
WorkspaceTextSearch MakeEmailSearch();

}  // namespace emsim::model
