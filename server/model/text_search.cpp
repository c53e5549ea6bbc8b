#include "model/text_search.hpp"

#include <algorithm>
#include <map>

#include "core/hash.hpp"
#include "core/text.hpp"
#include "model/state.hpp"

namespace emsim::model {

void MailboxSearchTexts(const State& s, const Mailbox& m, std::string& address, std::string& name,
                        const Domain*& domain) {
  if (!domain || domain->id != m.domainId) domain = s.domains.Find(m.domainId);
  address.assign(m.username).append("@").append(domain ? std::string_view(domain->domain) : std::string_view());
  name.assign(m.firstName).append(" ").append(m.lastName);
}

namespace {

// A byte folded as ContainsFolded compares it (core/text.hpp).
std::uint32_t Folded(char c) { return static_cast<std::uint32_t>(static_cast<unsigned char>(AsciiLower(c))); }

// Three bytes of `text` from `i`, folded.
std::uint32_t Trigram(std::string_view text, size_t i) {
  return Folded(text[i]) << 16 | Folded(text[i + 1]) << 8 | Folded(text[i + 2]);
}

// Four.
std::uint32_t Quadgram(std::string_view text, size_t i) { return Trigram(text, i) << 8 | Folded(text[i + 3]); }

}  // namespace

void Positions::Append(std::uint32_t at) {
  for (std::uint32_t d = at - last_; ; d >>= 7) {  // last_ is 0 before the first
    if (d < 0x80) {
      bytes_.push_back(static_cast<std::uint8_t>(d));
      break;
    }
    bytes_.push_back(static_cast<std::uint8_t>(d | 0x80));
  }
  if (count_ % kBlock == 0) {
    blockFirst_.push_back(at);
    blockNext_.push_back(static_cast<std::uint32_t>(bytes_.size()));
  }
  last_ = at;
  ++count_;
}

namespace {

// The distance whose bytes start at bytes[next], and next past them.
std::uint32_t ReadDistance(const std::uint8_t* bytes, size_t& next) {
  std::uint32_t d = 0;
  for (unsigned shift = 0;; shift += 7) {
    const std::uint8_t b = bytes[next++];
    d |= static_cast<std::uint32_t>(b & 0x7f) << shift;
    if (b < 0x80) return d;
  }
}

}  // namespace

std::vector<std::uint32_t> Positions::Decoded() const {
  std::vector<std::uint32_t> out;
  AppendTo(out);
  return out;
}

void Positions::AppendTo(std::vector<std::uint32_t>& out) const {
  const size_t from = out.size();
  out.resize(from + count_);
  std::uint32_t at = 0;
  size_t next = 0;
  for (size_t i = from; i < out.size(); ++i) out[i] = at += ReadDistance(bytes_.data(), next);
}

std::string_view TextArena::Add(std::string_view text) {
  if (text.size() > left_) {
    const size_t size = std::max(kChunk, text.size());
    chunks_.push_back(std::make_unique<char[]>(size));
    next_ = chunks_.back().get();
    left_ = size;
  }
  char* at = next_;
  std::copy(text.begin(), text.end(), at);
  next_ += text.size();
  left_ -= text.size();
  return {at, text.size()};
}

Positions::Cursor::Cursor(const Positions& list) : list_(list) {
  if (!list.empty()) {
    value_ = list.blockFirst_[0];
    next_ = list.blockNext_[0];
  }
}

bool Positions::Cursor::SeekTo(std::uint32_t at) {
  if (index_ >= list_.count_) return false;
  if (value_ >= at) return true;
  // A later block starting at or before `at`: jump to the last such, found by doubling steps.
  const size_t block = index_ / kBlock, blocks = list_.blockFirst_.size();
  const std::uint32_t* first = list_.blockFirst_.data();
  if (block + 1 < blocks && first[block + 1] <= at) {
    const std::uint32_t* it = GallopTo(first + block + 1, first + blocks, at);
    const size_t to = static_cast<size_t>(it - first) - (it != first + blocks && *it == at ? 0 : 1);
    index_ = to * kBlock;
    value_ = first[to];
    next_ = list_.blockNext_[to];
  }
  const std::uint8_t* bytes = list_.bytes_.data();
  while (value_ < at) {
    if (++index_ >= list_.count_) return false;
    value_ += ReadDistance(bytes, next_);
  }
  return true;
}

Positions& WorkspaceTextSearch::Postings::operator[](std::uint32_t gram) {
  const auto [list, added] = index_.Emplace(std::uint64_t{gram} + 1, static_cast<std::uint32_t>(lists_.size()));
  if (added) lists_.emplace_back();
  return lists_[*list];
}

const Positions* WorkspaceTextSearch::Postings::Find(std::uint32_t gram) const {
  const std::uint32_t* list = index_.Find(std::uint64_t{gram} + 1);
  return list ? &lists_[*list] : nullptr;
}

std::map<std::uint32_t, std::vector<std::uint32_t>> WorkspaceTextSearch::Postings::Sorted() const {
  std::map<std::uint32_t, std::vector<std::uint32_t>> out;
  index_.ForEach([&](std::uint64_t key, std::uint32_t list) {
    out.emplace(static_cast<std::uint32_t>(key - 1), lists_[list].Decoded());
  });
  return out;
}

const std::uint32_t* GallopTo(const std::uint32_t* from, const std::uint32_t* end, std::uint32_t at) {
  if (from == end || *from >= at) return from;
  // Past the loop, *(from + step / 2) < at, and *(from + step) >= at unless step reached the end.
  size_t step = 1;
  while (step < static_cast<size_t>(end - from) && from[static_cast<std::ptrdiff_t>(step)] < at) step *= 2;
  const auto lo = from + static_cast<std::ptrdiff_t>(step / 2);
  const auto hi = step < static_cast<size_t>(end - from) ? from + static_cast<std::ptrdiff_t>(step) + 1 : end;
  return std::lower_bound(lo, hi, at);
}

std::uint32_t TextValueKey(Field field, std::string_view folded) {
  const std::uint64_t h = core::Fnv1a64(folded, core::Fnv1a64(std::string_view(reinterpret_cast<const char*>(&field), 1)));
  const auto key = static_cast<std::uint32_t>(h ^ h >> 32);
  return key | (key == 0);
}

namespace {

// The key after `key` for a value whose key another value has (a full-period step of a linear
// congruential generator: the keys after one repeat only after billions).
std::uint32_t NextKey(std::uint32_t key) {
  const std::uint32_t next = key * 0x9E3779B1u + 0x7F4A7C15u;
  return next | (next == 0);
}

}  // namespace

void WorkspaceTextSearch::Entry::Add(Field field, std::string_view folded, std::uint32_t at) {
  for (std::uint32_t key = TextValueKey(field, folded);; key = NextKey(key)) {
    const auto [slot, added] = byText.Emplace(key, static_cast<std::uint32_t>(values.size()));
    if (added) {
      const std::uint32_t number = *slot;
      const std::string_view text = texts.Add(folded);
      values.push_back(Value{text.data(), static_cast<std::uint32_t>(text.size()), field, at});
      // Each gram's list gets the value once (numbers only grow: lists stay in order). The grams
      // rolled along (three bytes per position folded again were a fifth of a build).
      const auto once = [number](Positions& list) {
        if (list.empty() || list.back() != number) list.Append(number);
      };
      std::uint32_t g = static_cast<unsigned char>(text[0]) << 8 | static_cast<unsigned char>(text[1]);
      for (size_t i = 2; i < text.size(); ++i) {
        g = g << 8 | static_cast<unsigned char>(text[i]);  // its low 24 bits == Trigram(text, i - 2)
        once(postings[g & 0xffffff]);
        if (i >= 3) once(quadgrams[g]);
      }
      return;
    }
    Value& v = values[*slot];
    if (v.field != field || std::string_view(v.text, v.size) != folded) continue;  // another value's hash
    if ((v.more == Value::kNone ? v.first : more[v.more].back()) == at) return;  // the record's again
    if (v.more == Value::kNone) {
      v.more = static_cast<std::uint32_t>(more.size());
      more.emplace_back();
    }
    more[v.more].Append(at);
    return;
  }
}

std::vector<std::tuple<Field, std::string_view, std::vector<std::uint32_t>>> WorkspaceTextSearch::Entry::AllValues()
    const {
  std::vector<std::tuple<Field, std::string_view, std::vector<std::uint32_t>>> out;
  for (const Value& v : values) {
    std::vector<std::uint32_t> at{v.first};
    if (v.more != Value::kNone) more[v.more].AppendTo(at);
    out.emplace_back(v.field, std::string_view(v.text, v.size), std::move(at));
  }
  return out;
}

void WorkspaceTextSearch::IndexUpTo(const State& s, const std::string& workspace_id, const IdList& ids, Entry& e,
                                    size_t upto) const {
  if (e.indexed >= upto) return;  // a search of an index that is up to date
  // Each text folded once, into a buffer the build reuses, and looked up as a value: a text the
  // workspace has already (a subject, a correspondent, a name) costs that lookup and a position;
  // only a new one's grams are added.
  std::uint32_t at = 0;
  std::string folded;
  const Add add = [&](Field field, std::string_view text) {
    if (text.size() < kIndexedNeedleMin) return;  // no needle the index serves is in it
    folded.assign(text);
    for (char& c : folded) c = AsciiLower(c);
    e.Add(field, folded, at);
  };
  const Reader read = texts_(s, workspace_id);
  for (; e.indexed < upto; ++e.indexed) {
    at = static_cast<std::uint32_t>(e.indexed);
    read(e.indexed, ids[e.indexed], add);
  }
}

std::optional<std::vector<std::uint32_t>> WorkspaceTextSearch::MatchesAt(const State& s,
                                                                         const std::string& workspace_id,
                                                                         std::string_view needle_lower,
                                                                         Fields fields) const {
  if (needle_lower.size() < kIndexedNeedleMin) return std::nullopt;
  const IdList* ids = ids_(s, workspace_id);
  if (!ids) return std::vector<std::uint32_t>();  // no record
  std::lock_guard lock(mu_);
  Entry& e = entries_[workspace_id];
  IndexUpTo(s, workspace_id, *ids, e, ids->size());
  // A needle of four bytes or more by its four-byte grams: their lists are an order of magnitude
  // shorter than the trigrams' where text repeats with variations (digits: "0123" against "123").
  std::vector<const Positions*> lists;
  const bool quads = needle_lower.size() >= 4;
  for (size_t i = 0; i + (quads ? 4 : 3) <= needle_lower.size(); ++i) {
    const Positions* list = quads ? e.quadgrams.Find(Quadgram(needle_lower, i)) : e.postings.Find(Trigram(needle_lower, i));
    if (!list) return std::vector<std::uint32_t>();  // no value has this gram: none matches
    lists.push_back(list);
  }
  // The shortest list, cut down by the others (a value that contains the needle is in each; each
  // list is in order): checking a value costs a cache miss or two, a search in a list 20-200 ns.
  // A needle of common trigrams ("0000123@" among 4.5 M generated addresses) had tens of
  // thousands of candidates from its shortest list alone.
  std::sort(lists.begin(), lists.end(), [](const auto* a, const auto* b) {
    return a->size() != b->size() ? a->size() < b->size() : a < b;
  });
  lists.erase(std::unique(lists.begin(), lists.end()), lists.end());  // a gram the needle has twice
  // A needle most records may match ("example.com"): the caller's scan reads the rows in order,
  // ~4 times faster than looking up each match by id (4.5 M mailboxes: 0.65 s against 3.3 s);
  // checking as many values costs about what checking the rows does.
  const size_t most = ids->size() / 4;
  if (lists.front()->size() > most) return std::nullopt;
  // A gram nearly every value has ("con" of the "contact<n>@" of every generated email's
  // correspondent) would strike out less than an eighth of the candidates for a search per
  // candidate in a list of millions: they are left to the check.
  const size_t nearly_all = e.values.size() - e.values.size() / 8;
  while (lists.size() > 1 && lists.back()->size() > nearly_all) lists.pop_back();
  std::vector<std::uint32_t> candidates = lists.front()->Decoded(), kept;
  for (size_t i = 1; i < lists.size() && candidates.size() > 1; ++i) {
    // Each candidate sought from where the previous one was found: read on through the list's
    // bytes when it is near, jumped to (by doubling steps over the list's every 32nd position)
    // when it is far ("ct4" against "t42" among 4.5 M generated addresses: lists of hundreds
    // each, read in step; a few candidates against a list of millions: jumps).
    Positions::Cursor list(*lists[i]);
    kept.clear();
    for (const std::uint32_t at : candidates) {
      if (!list.SeekTo(at)) break;
      if (list.value() == at) kept.push_back(at);
    }
    candidates.swap(kept);
  }
  // The values that do contain it, in a field asked for, and how many records they name (a
  // record may be named by several: counted once below).
  kept.clear();
  size_t named = 0;
  for (const std::uint32_t number : candidates) {
    const Value& v = e.values[number];
    if (!(fields & FieldBit(v.field)) || std::string_view(v.text, v.size).find(needle_lower) == std::string_view::npos)
      continue;
    kept.push_back(number);
    named += e.RecordsOf(v);
  }
  if (named > most) return std::nullopt;
  // Their records' positions: each value's in order, merged.
  std::vector<std::uint32_t> out;
  out.reserve(named);
  for (size_t k = 0; k < kept.size(); ++k) {
    const Value& v = e.values[kept[k]];
    const auto mid = static_cast<std::ptrdiff_t>(out.size());
    out.push_back(v.first);
    if (v.more != Value::kNone) e.more[v.more].AppendTo(out);
    // Merged as they come while they are few; many values' (a needle in thousands of distinct
    // subjects), sorted once at the end.
    if (k > 0 && kept.size() <= 16) std::inplace_merge(out.begin(), out.begin() + mid, out.end());
  }
  if (kept.size() > 16) std::sort(out.begin(), out.end());
  if (kept.size() > 1) out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t WorkspaceTextSearch::CatchUp(const State& s, const std::string& workspace_id, std::string_view needle,
                                    size_t most) const {
  if (needle.size() < kIndexedNeedleMin) return 0;
  return CatchUp(s, workspace_id, most);
}

size_t WorkspaceTextSearch::CatchUp(const State& s, const std::string& workspace_id, size_t most,
                                    size_t min_records) const {
  const IdList* ids = ids_(s, workspace_id);
  if (!ids || ids->size() < min_records) return 0;
  std::lock_guard lock(mu_);
  Entry& e = entries_[workspace_id];
  IndexUpTo(s, workspace_id, *ids, e, std::min(ids->size(), e.indexed + most));
  return ids->size() > e.indexed ? ids->size() - e.indexed : 0;
}

void WorkspaceTextSearch::Forget(const std::string& workspace_id) {
  std::lock_guard lock(mu_);
  entries_.erase(workspace_id);
}

void WorkspaceTextSearch::Clear() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

size_t WorkspaceTextSearch::Workspaces() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

std::string WorkspaceTextSearch::Problems(const State& s) const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [workspace_id, e] : entries_) {
    const IdList* ids = ids_(s, workspace_id);
    const size_t have = ids ? ids->size() : 0;
    if (e.indexed > have) {
      out += name_ + "[" + workspace_id + "] indexes records the workspace no longer has; ";
      continue;
    }
    // A fresh build of the same prefix, compared list by list.
    Entry fresh;
    if (e.indexed > 0) IndexUpTo(s, workspace_id, *ids, fresh, e.indexed);
    if (fresh.postings.Sorted() != e.postings.Sorted() || fresh.quadgrams.Sorted() != e.quadgrams.Sorted() ||
        fresh.AllValues() != e.AllValues())
      out += name_ + "[" + workspace_id + "]; ";
  }
  return out;
}

namespace {

// A workspace's id list, or null when it has none (the search then keeps no entry for it).
template <class Index>
const IdList* IdsIn(const Index& lists, const std::string& workspace_id) {
  const IdList& ids = IdsOf(lists, workspace_id);
  return ids.empty() ? nullptr : &ids;
}

}  // namespace

WorkspaceTextSearch MakeMailboxSearch() {
  return WorkspaceTextSearch(
      "mailboxSearch", [](const State& s, const std::string& w) { return IdsIn(s.mailboxesByWorkspace, w); },
      [](const State& s, const std::string&) -> WorkspaceTextSearch::Reader {
        // The build's buffers and its last domain: a workspace's mailboxes come a domain's at a
        // time, so the domain is mostly the one before.
        return [&s, address = std::string(), name = std::string(), domain = static_cast<const Domain*>(nullptr)](
                   size_t, const std::string& id, const WorkspaceTextSearch::Add& add) mutable {
          const Mailbox* m = s.mailboxes.Find(id);
          if (!m) return;
          MailboxSearchTexts(s, *m, address, name, domain);
          add(0, address);  // `contains` looks in both: one field
          add(0, name);
        };
      });
}

WorkspaceTextSearch MakeDomainSearch() {
  return WorkspaceTextSearch(
      "domainSearch", [](const State& s, const std::string& w) { return IdsIn(s.domainsByWorkspace, w); },
      [](const State& s, const std::string&) -> WorkspaceTextSearch::Reader {
        return [&s](size_t, const std::string& id, const WorkspaceTextSearch::Add& add) {
          if (const Domain* d = s.domains.Find(id)) add(0, d->domain);
        };
      });
}

WorkspaceTextSearch MakeEmailSearch() {
  return WorkspaceTextSearch(
      "emailSearch",
      [](const State& s, const std::string& w) -> const IdList* {
        const EmailOrder::List* list = s.emailOrder.NewestFirst(s, w);
        return list ? &list->ids : nullptr;
      },
      [](const State& s, const std::string& w) -> WorkspaceTextSearch::Reader {
        // The rows at the ids' positions (EmailOrder::List), not each found by its id.
        const EmailOrder::List* list = s.emailOrder.NewestFirst(s, w);
        return [list](size_t at, const std::string&, const WorkspaceTextSearch::Add& add) {
          using namespace email_field;
          const Email* e = list->rows[at];
          add(kSubject, e->subject);
          add(kSnippet, e->snippet);
          for (const Address& a : e->from) {
            add(kFrom, a.address);
            add(kFrom, a.name);
          }
          for (const Address& a : e->to) {
            add(kTo, a.address);
            add(kTo, a.name);
          }
          for (const std::string& c : e->cc) add(kCc, c);
        };
      });
}

size_t EmailOrder::StepLocked(const State& s, size_t most) const {
  if (built_) return 0;
  Build& b = build_;
  const size_t n = s.emails.size();
  // Reading: the keys of the next emails.
  for (; most > 0 && b.keys.size() < n; --most) {
    const size_t at = b.keys.size();
    const Email& e = s.emails.rows()[at];
    auto [slot, added] = b.workspaceIndex.emplace(e.workspaceId, static_cast<std::uint32_t>(b.workspaces.size()));
    if (added) b.workspaces.push_back(&e.workspaceId);
    b.keys.push_back({e.date, static_cast<std::uint32_t>(at), slot->second});
  }
  const size_t runs = (n + run_ - 1) / run_;
  if (b.keys.size() < n) return (n - b.keys.size()) + runs + n;
  // Sorting: a run a step.
  for (; b.sortedRuns < runs; ++b.sortedRuns) {
    if (most == 0) return (runs - b.sortedRuns) + n;
    --most;
    const auto first = b.keys.begin() + static_cast<std::ptrdiff_t>(b.sortedRuns * run_);
    std::sort(first, first + static_cast<std::ptrdiff_t>(std::min(run_, n - b.sortedRuns * run_)), Build::Before);
  }
  // Placing: the next key of the merged runs, its email's row and id appended to its workspace's
  // list.
  const auto later = [&b](const std::pair<size_t, size_t>& x, const std::pair<size_t, size_t>& y) {
    return Build::Before(b.keys[y.first], b.keys[x.first]);  // a max-heap of "later": the first on top
  };
  if (b.placed == 0 && b.heads.empty()) {  // the merge not begun (once begun, empty only when done)
    for (size_t r = 0; r < runs; ++r) b.heads.emplace_back(r * run_, std::min(n, (r + 1) * run_));
    std::make_heap(b.heads.begin(), b.heads.end(), later);
  }
  for (; most > 0 && b.placed < n; --most, ++b.placed) {
    std::pop_heap(b.heads.begin(), b.heads.end(), later);
    auto& [next, end] = b.heads.back();
    const Build::Key& k = b.keys[next];
    List& list = byWorkspace_[*b.workspaces[k.workspace]];
    const Email& e = s.emails.rows()[k.at];
    list.rows.push_back(&e);
    list.ids.push_back(e.id);
    if (++next == end) b.heads.pop_back();
    else std::push_heap(b.heads.begin(), b.heads.end(), later);
  }
  if (b.placed < n) return n - b.placed;
  build_ = Build();
  built_ = true;
  return 0;
}

size_t EmailOrder::CatchUp(const State& s, size_t most) const {
  std::lock_guard lock(mu_);
  return StepLocked(s, most);
}

const EmailOrder::List* EmailOrder::NewestFirst(const State& s, const std::string& workspace_id) const {
  std::lock_guard lock(mu_);
  StepLocked(s, SIZE_MAX);
  auto it = byWorkspace_.find(workspace_id);
  return it == byWorkspace_.end() ? nullptr : &it->second;
}

void EmailOrder::Clear() {
  std::lock_guard lock(mu_);
  byWorkspace_.clear();
  build_ = Build();
  built_ = false;
}

std::string EmailOrder::Problems(const State& s) const {
  std::lock_guard lock(mu_);
  if (!built_) return "";
  EmailOrder fresh;
  fresh.CatchUp(s, SIZE_MAX);
  return fresh.byWorkspace_ == byWorkspace_ ? "" : "emailOrder; ";
}

}  // namespace emsim::model
