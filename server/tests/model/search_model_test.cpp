// Model tests (no sockets) for Part 4.9 mailbox search: each filter, their combination, order
// and paging.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <unordered_map>

#include "core/text.hpp"
#include "model/search.hpp"
#include "model/text_search.hpp"

namespace emsim::model {
namespace {

Millis At(const char* iso) { return *ParseIso(iso); }

State Corpus() {
  State s;
  auto add = [&](const char* id, const char* ws, const char* account, const char* subject, const char* snippet,
                 const char* date, Address from, Address to, std::vector<std::string> labels, const char* folder,
                 bool read, bool starred, bool attachments, std::vector<std::string> cc = {}) {
    Email e;
    e.id = id;
    e.accountId = "acc_a";
    e.workspaceId = ws;
    e.account = account;
    e.threadId = std::string("thr_") + id;
    e.messageId = std::string("<") + id + "@x>";
    e.subject = subject;
    e.snippet = snippet;
    e.date = At(date);
    e.from = {from};
    e.to = {to};
    e.cc = std::move(cc);
    e.labels = std::move(labels);
    e.folderPath = folder;
    e.isRead = read;
    e.isStarred = starred;
    e.hasAttachments = attachments;
    s.emails.Insert(e);
  };
  add("e1", "ws_a", "jane@a.com", "Quarterly pipeline review", "Numbers attached", "2025-12-01T10:00:00.000Z",
      {"Jane Doe", "jane@a.com"}, {"Chris Okafor", "chris@cedarline.dev"}, {"SENT"}, "[Gmail]/Sent Mail", true, false,
      true);
  add("e2", "ws_a", "jane@a.com", "Re: Quarterly pipeline review", "Looks good, let's talk Tuesday",
      "2025-12-02T08:30:00.000Z", {"Chris Okafor", "chris@cedarline.dev"}, {"Jane Doe", "jane@a.com"},
      {"INBOX", "IMPORTANT", "UNREAD"}, "INBOX", false, true, false, {"boss@cedarline.dev"});
  add("e3", "ws_a", "sam@b.com", "Delivery Status Notification (Failure)", "Address not found",
      "2025-12-02T08:30:00.000Z", {"Mail Delivery Subsystem", "mailer-daemon@googlemail.com"},
      {"Sam", "sam@b.com"}, {"INBOX"}, "Inbox", true, false, false);
  add("e4", "ws_other", "zed@c.com", "Quarterly pipeline review", "Other workspace", "2025-12-05T00:00:00.000Z",
      {"Zed", "zed@c.com"}, {"Chris Okafor", "chris@cedarline.dev"}, {"SENT"}, "Sent Items", true, false, false);
  return s;
}

const Caller kSearcher{"acc_a", "ws_a"};

std::vector<std::string> Find(const State& s, const EmailQuery& q) {
  auto r = SearchEmails(s, kSearcher, q);
  EXPECT_TRUE(r.ok());
  std::vector<std::string> out;
  if (r.ok())
    for (const auto* e : r->emails) out.push_back(e->id);
  return out;
}

using Ids = std::vector<std::string>;

TEST(SearchEmails, WorkspaceOnlyNewestFirstLaterStoredFirstOnTies) {
  State s = Corpus();
  EXPECT_EQ(Find(s, {}), (Ids{"e3", "e2", "e1"}));
}

TEST(SearchEmails, FreeTextNeedsEveryTermInSubjectSnippetOrAddresses) {
  State s = Corpus();
  EmailQuery q;
  q.q = "QUARTERLY tuesday";
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
  q.q = "cedarline";  // an address
  EXPECT_EQ(Find(s, q), (Ids{"e2", "e1"}));
  q.q = "okafor pipeline";  // a name and a subject word
  EXPECT_EQ(Find(s, q), (Ids{"e2", "e1"}));
  q.q = "nowhere";
  EXPECT_TRUE(Find(s, q).empty());
}

TEST(SearchEmails, AWordInsideAnotherAddsNothingAndTheOtherStillCounts) {
  State s = Corpus();
  EmailQuery q;
  q.q = "re re:";  // "re" is in e1's "review" and e3's "Failure"; "re:" only in e2's subject
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
  q.q = "re: re";
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
  q.q = "pipe pipeline PIPELINE";
  EXPECT_EQ(Find(s, q), (Ids{"e2", "e1"}));
}

TEST(SearchEmails, AtMost32DistinctWordsRepeatsCountOnce) {
  State s = Corpus();
  EmailQuery q;
  for (int i = 0; i < 32; ++i) q.q += "quarterly" + std::string(static_cast<size_t>(i), 'y') + " ";
  // 32 distinct words (none found): answered.
  auto r = SearchEmails(s, kSearcher, q);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->emails.empty());
  // A thousand repeats of one word are one word.
  q.q.clear();
  for (int i = 0; i < 1000; ++i) q.q += "Quarterly ";
  EXPECT_EQ(Find(s, q), (Ids{"e2", "e1"}));
  // A 33rd distinct word: refused, naming q.
  q.q += " tuesday";
  for (int i = 0; i < 31; ++i) q.q += " t" + std::to_string(i);
  r = SearchEmails(s, kSearcher, q);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.error().errors.size(), 1u);
  EXPECT_EQ(r.error().errors[0].param, "q");
  EXPECT_NE(r.error().message.find("33 distinct words; a search takes at most 32"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(CatchUpEmailSearch(s, kSearcher, q, 1000), 0u);  // nothing indexed for a refused search
}

TEST(SearchEmails, FromToAndSubjectAreSubstringsIgnoringCase) {
  State s = Corpus();
  EmailQuery q;
  q.from = "MAILER-DAEMON";
  EXPECT_EQ(Find(s, q), (Ids{"e3"}));
  q = {};
  q.to = "chris";
  EXPECT_EQ(Find(s, q), (Ids{"e1"}));
  q.to = "boss@";  // cc counts as a recipient
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
  q = {};
  q.subject = "re: quarterly";
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
}

// The index keeps each distinct text once with the field it is in: a filter finds a text only in
// its own fields (a subject filter not in a snippet of the same words; a term not in cc), and a
// text hundreds of emails share answers for all of them, counted exactly, through every page.
TEST(SearchEmails, EachFilterFindsAValueOnlyInItsFieldsAndASharedValueCountsEveryEmail) {
  State s;
  int next = 0;
  auto add = [&](const std::string& subject, const std::string& snippet, Address from, Address to,
                 std::vector<std::string> cc = {}, bool read = false) {
    Email e;
    e.id = "eml_" + std::to_string(next);
    e.accountId = "acc_a";
    e.workspaceId = "ws_a";
    e.account = "ann@x.io";
    e.subject = subject;
    e.snippet = snippet;
    e.date = At("2025-12-01T00:00:00.000Z") + static_cast<Millis>(next++) * kSecond;
    e.from = {std::move(from)};
    e.to = {std::move(to)};
    e.cc = std::move(cc);
    e.isRead = read;
    s.emails.Insert(e);
  };
  add("Orbit launch", "nothing here", {"Ann", "ann@x.io"}, {"Bob", "bob@y.io"});                     // eml_0
  add("nothing here", "orbit LAUNCH", {"Bob", "bob@y.io"}, {"Ann", "ann@x.io"}, {"carol@z.io"});     // eml_1
  add("status", "weekly", {"Carol", "carol@z.io"}, {"Dan", "dan@w.io"});                             // eml_2
  for (int i = 0; i < 300; ++i)  // eml_3 .. eml_302: every third from one correspondent
    add("note " + std::to_string(i), "x", {"Shared", i % 3 == 0 ? "shared@corr.io" : "other" + std::to_string(i) + "@corr.io"},
        {"Ann", "ann@x.io"}, {}, i % 2 == 0);
  EmailQuery q;
  q.subject = "orbit";
  EXPECT_EQ(Find(s, q), (Ids{"eml_0"}));
  q = {};
  q.q = "orbit launch";
  EXPECT_EQ(Find(s, q), (Ids{"eml_1", "eml_0"}));
  q = {};
  q.from = "ann@";
  EXPECT_EQ(Find(s, q), (Ids{"eml_0"}));
  q = {};
  q.to = "carol@";  // cc is a recipient
  EXPECT_EQ(Find(s, q), (Ids{"eml_1"}));
  q = {};
  q.q = "carol@";  // a term is not looked for in cc
  EXPECT_EQ(Find(s, q), (Ids{"eml_2"}));
  q = {};
  q.q = "orbit bob";  // bob a recipient of one, the sender of the other
  EXPECT_EQ(Find(s, q), (Ids{"eml_1", "eml_0"}));

  // One value, 100 emails: the count is theirs, and paging lists each once, newest first.
  q = {};
  q.q = "SHARED@corr";
  q.limit = 30;
  Ids paged;
  for (q.page = 1;; ++q.page) {
    auto r = SearchEmails(s, kSearcher, q);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->page.totalSearchedCount, 100);
    for (const Email* e : r->emails) paged.push_back(e->id);
    if (r->page.nextPage == 0) break;
  }
  Ids want;
  for (int i = 297; i >= 0; i -= 3) want.push_back("eml_" + std::to_string(i + 3));
  EXPECT_EQ(paged, want);
  // The same with a flag the index does not hold (checked on the rows), and with a term too short
  // for it: half of them.
  q.page = 1;
  q.limit = 100;
  q.isRead = true;
  EXPECT_EQ(Find(s, q).size(), 50u);
  q.isRead.reset();
  q.q = "shared@corr x";
  EXPECT_EQ(Find(s, q).size(), 100u);
  q.q = "shared@corr note";  // two values, each of hundreds: the emails in both
  EXPECT_EQ(Find(s, q).size(), 100u);
  // The index is asked for the 8 longest terms; the rest, on the rows those give. Here the 9th
  // is the one that picks the email ("note 228"), and then, the first two leaving two emails,
  // the third is checked on those two.
  q.q = "shared@corr.io shared@corr hared@corr ared@corr red@corr shared@ corr.io @corr 228";
  EXPECT_EQ(Find(s, q), (Ids{"eml_231"}));
  q.q = "orbit launch nothing";
  EXPECT_EQ(Find(s, q), (Ids{"eml_1", "eml_0"}));
  q.q = "orbit launch weekly";
  EXPECT_TRUE(Find(s, q).empty());
  q.q = "ORBIT orbit Orbit launch orbit";  // a term repeated is the term once
  EXPECT_EQ(Find(s, q), (Ids{"eml_1", "eml_0"}));
  EXPECT_EQ(IndexProblems(s), "");
}

TEST(SearchEmails, FolderLabelAndAccountAreWholeValuesIgnoringCase) {
  State s = Corpus();
  EmailQuery q;
  q.folder = "inbox";  // matches INBOX and Inbox, not [Gmail]/Sent Mail
  EXPECT_EQ(Find(s, q), (Ids{"e3", "e2"}));
  q = {};
  q.label = "important";
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
  q.label = "IMPORT";  // not a substring match
  EXPECT_TRUE(Find(s, q).empty());
  q = {};
  q.account = "JANE@a.com";
  EXPECT_EQ(Find(s, q), (Ids{"e2", "e1"}));
}

TEST(SearchEmails, Flags) {
  State s = Corpus();
  EmailQuery q;
  q.isRead = false;
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
  q = {};
  q.isStarred = true;
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
  q = {};
  q.hasAttachments = true;
  EXPECT_EQ(Find(s, q), (Ids{"e1"}));
  q.hasAttachments = false;
  EXPECT_EQ(Find(s, q), (Ids{"e3", "e2"}));
}

TEST(SearchEmails, AfterIsInclusiveBeforeIsExclusive) {
  State s = Corpus();
  EmailQuery q;
  q.after = At("2025-12-02T08:30:00.000Z");
  EXPECT_EQ(Find(s, q), (Ids{"e3", "e2"}));
  q = {};
  q.before = At("2025-12-02T08:30:00.000Z");
  EXPECT_EQ(Find(s, q), (Ids{"e1"}));
  q.after = At("2025-12-01");
  q.before = At("2025-12-02");
  EXPECT_EQ(Find(s, q), (Ids{"e1"}));
}

TEST(SearchEmails, BeforeNotLaterThanAfterIsA400NamingBefore) {
  State s = Corpus();
  EmailQuery q;
  q.after = At("2025-12-02");
  q.before = At("2025-12-02");
  auto r = SearchEmails(s, kSearcher, q);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errors.at(0).param, "before");
  EXPECT_EQ(r.error().errors.at(0).location, "query");
}

TEST(SearchEmails, FiltersCombine) {
  State s = Corpus();
  EmailQuery q;
  q.q = "pipeline";
  q.folder = "INBOX";
  q.isStarred = true;
  EXPECT_EQ(Find(s, q), (Ids{"e2"}));
}

TEST(SearchEmails, LimitAndPage) {
  State s = Corpus();
  EmailQuery q;
  q.limit = 2;
  auto first = SearchEmails(s, kSearcher, q);
  EXPECT_EQ(first->page.totalSearchedCount, 3);
  EXPECT_EQ(first->page.totalPages, 2);
  EXPECT_EQ(first->page.nextPage, 2);
  EXPECT_EQ(Find(s, q), (Ids{"e3", "e2"}));
  q.page = 2;
  EXPECT_EQ(Find(s, q), (Ids{"e1"}));
  q.page = 3;
  EXPECT_TRUE(Find(s, q).empty());
}

// A workspace large enough for the index (State::emailSearch) and the order cache
// (State::emailOrder) to answer: every query, page by page, lists what a scan of every email
// sorted newest first lists, before and after emails are added and removed (a tenant's creation
// and deletion, which clear both).
TEST(SearchEmails, TheIndexAndTheOrderAnswerAsAScanSortedNewestFirst) {
  std::mt19937 rng(5);
  const std::vector<std::string> words = {"pipeline", "review", "invoice", "Quarterly", "delivery", "failure",
                                          "Tuesday", "numbers", "okafor", "cedarline", "jane", "meeting"};
  auto word = [&] { return words[rng() % words.size()]; };
  State s;
  int next = 0;
  auto add = [&](const std::string& ws) {
    Email e;
    e.id = "eml_" + std::to_string(next++);
    e.accountId = "acc_a";
    e.workspaceId = ws;
    e.account = "jane@a.com";
    e.subject = word() + " " + word() + " ref-" + std::to_string(next);  // rare needles: the index answers
    e.snippet = word() + " " + word() + " " + word();
    e.date = At("2025-12-01T00:00:00.000Z") + static_cast<Millis>(rng() % 50) * kSecond;  // many equal dates
    e.from = {{word() + " Person", word() + "@from.example"}};
    e.to = {{"Recipient " + word(), word() + "@to.example"}};
    if (rng() % 3 == 0) e.cc = {word() + "@cc.example"};
    e.isRead = rng() % 2;
    s.emails.Insert(e);
  };
  for (int i = 0; i < 600; ++i) add(i % 5 == 0 ? "ws_other" : "ws_a");

  auto scan = [&](const EmailQuery& q) {
    std::vector<const Email*> rows;
    auto has = [](const std::string& text, const std::string& needle) { return ContainsFolded(text, ToLower(needle)); };
    auto any = [&](const std::vector<Address>& list, const std::string& needle) {
      return std::any_of(list.begin(), list.end(), [&](const Address& a) { return has(a.address, needle) || has(a.name, needle); });
    };
    for (const Email& e : s.emails) {
      if (e.workspaceId != kSearcher.workspaceId) continue;
      if (q.isRead && e.isRead != *q.isRead) continue;
      if (!q.subject.empty() && !has(e.subject, q.subject)) continue;
      if (!q.from.empty() && !any(e.from, q.from)) continue;
      if (!q.to.empty() && !any(e.to, q.to) &&
          std::none_of(e.cc.begin(), e.cc.end(), [&](const std::string& c) { return has(c, q.to); }))
        continue;
      std::istringstream terms(q.q);
      bool all = true;
      for (std::string t; terms >> t;)
        all = all && (has(e.subject, t) || has(e.snippet, t) || any(e.from, t) || any(e.to, t));
      if (all) rows.push_back(&e);
    }
    std::vector<const Email*> sorted(rows.rbegin(), rows.rend());
    std::stable_sort(sorted.begin(), sorted.end(), [](const Email* a, const Email* b) { return a->date > b->date; });
    Ids ids;
    for (const Email* e : sorted) ids.push_back(e->id);
    return ids;
  };
  auto listed = [&](EmailQuery q) {
    Ids ids;
    q.limit = 7;
    for (q.page = 1;; ++q.page) {
      auto r = SearchEmails(s, kSearcher, q);
      EXPECT_TRUE(r.ok());
      if (!r.ok()) break;
      for (const Email* e : r->emails) ids.push_back(e->id);
      if (r->page.nextPage == 0) break;
    }
    return ids;
  };
  auto check = [&](const char* when) {
    std::vector<EmailQuery> queries(1);  // no filter
    for (int i = 0; i < 60; ++i) {
      EmailQuery q;
      const std::string w = word();
      const std::string piece = w.substr(rng() % w.size(), 1 + rng() % 6);
      switch (i % 6) {
        case 0: q.q = i % 12 == 0 ? "ref-" + std::to_string(rng() % 60) : piece; break;
        case 1: q.q = word() + " " + ToUpper(piece); break;
        case 2: q.subject = i % 12 == 2 ? "REF-2" + std::to_string(rng() % 10) : piece; break;
        case 3: q.from = piece; break;
        case 4: q.to = i % 12 == 4 ? "cc.example" : piece; break;
        default: q.q = piece; q.isRead = true;
      }
      queries.push_back(q);
    }
    EmailQuery nothing;
    nothing.q = "zzzzqqq";
    queries.push_back(nothing);
    for (const auto& q : queries)
      EXPECT_EQ(listed(q), scan(q)) << when << ": q='" << q.q << "' subject='" << q.subject << "' from='" << q.from
                                    << "' to='" << q.to << "'";
    EXPECT_EQ(IndexProblems(s), "") << when;
  };
  check("first searches");
  for (int i = 0; i < 50; ++i) add("ws_a");
  s.ForgetEmailOrder();  // as a tenant's creation does
  check("after adds");
  s.emails.EraseAll({"eml_1", "eml_2", "eml_3", "eml_602"});
  s.ForgetEmailOrder();  // as a tenant's deletion does
  check("after removals");
}

// The email order built in steps, its keys sorted a run a step and the runs merged as emails are
// placed, is the order one step builds: many runs of 7 keys against one run of them all, both the
// newest first (equal dates: the later-stored first), every step leaving less than the one before.
TEST(EmailOrder, SortedInRunsAndMergedItIsTheOrderOfOneSort) {
  std::mt19937 rng(11);
  State s;
  for (int i = 0; i < 600; ++i) {
    Email e;
    e.id = "eml_" + std::to_string(i);
    e.accountId = "acc_a";
    e.workspaceId = i % 3 == 0 ? "ws_other" : i % 7 == 0 ? "ws_third" : "ws_a";
    e.date = At("2025-12-01T00:00:00.000Z") + static_cast<Millis>(rng() % 40) * kSecond;  // many equal dates
    s.emails.Insert(e);
  }
  EmailOrder runs(7), whole(600);
  std::vector<size_t> left;
  for (size_t l = runs.CatchUp(s, 5);; l = runs.CatchUp(s, 5)) {
    left.push_back(l);
    if (l == 0 || left.size() > 1000) break;
  }
  ASSERT_EQ(left.back(), 0u);
  for (size_t i = 1; i < left.size(); ++i) EXPECT_LT(left[i], left[i - 1]) << "step " << i;
  // 600 keys read, 86 runs sorted, 600 emails placed: 1,286 steps of at most 5.
  EXPECT_EQ(left.size(), (600u + 86u + 600u + 4u) / 5u);
  EXPECT_EQ(whole.CatchUp(s, SIZE_MAX), 0u);
  for (const char* ws : {"ws_a", "ws_other", "ws_third"}) {
    const EmailOrder::List* a = runs.NewestFirst(s, ws);
    const EmailOrder::List* b = whole.NewestFirst(s, ws);
    ASSERT_TRUE(a && b) << ws;
    EXPECT_EQ(*a, *b) << ws;
    // Newest first; of one date, the later-stored first.
    for (size_t i = 1; i < a->rows.size(); ++i) {
      const Email& x = *a->rows[i - 1];
      const Email& y = *a->rows[i];
      const int stored_x = std::stoi(x.id.substr(4)), stored_y = std::stoi(y.id.substr(4));
      EXPECT_TRUE(x.date > y.date || (x.date == y.date && stored_x > stored_y)) << ws << " at " << i;
      EXPECT_EQ(x.workspaceId, ws);
    }
  }
  EXPECT_EQ(runs.NewestFirst(s, "ws_a")->rows.size() + runs.NewestFirst(s, "ws_other")->rows.size() +
                runs.NewestFirst(s, "ws_third")->rows.size(),
            600u);
}

// The ordered searches the index intersects its lists with (WorkspaceTextSearch) answer what
// std::lower_bound answers from any start, for values before, inside, between and past a list's.
TEST(GallopTo, FindsWhatLowerBoundFindsFromAnyStart) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::uint32_t> list(rng() % 300);
    std::uint32_t at = rng() % 4;
    for (auto& v : list) v = at += 1 + rng() % (round % 2 ? 3 : 400);  // dense and sparse lists
    for (int probe = 0; probe < 50; ++probe) {
      const std::uint32_t* begin = list.data();
      const std::uint32_t* end = begin + list.size();
      const std::uint32_t* from = begin + (list.empty() ? 0 : rng() % (list.size() + 1));
      const std::uint32_t want = rng() % (at + 10);
      EXPECT_EQ(GallopTo(from, end, want) - begin, std::lower_bound(from, end, want) - begin)
          << "list of " << list.size() << ", from " << (from - begin) << ", value " << want;
    }
  }
}

// Two distinct texts whose keys in the index's table of values are the same (found by trying
// texts until two collide: 32-bit keys, so a few hundred thousand at most) stay two values: each
// finds its own emails, and the one stored second finds its emails again when it comes back.
TEST(SearchEmails, TwoTextsWhoseValueKeysCollideStayApart) {
  std::unordered_map<std::uint32_t, std::string> seen;
  std::string first, second;
  for (int i = 0; second.empty(); ++i) {
    ASSERT_LT(i, 5'000'000);
    std::string text = std::to_string(10'000'000 + i);  // one length: neither is in the other
    text = "collide-" + text;
    auto [it, added] = seen.emplace(TextValueKey(email_field::kSubject, text), text);
    if (!added) {
      first = it->second;
      second = text;
    }
  }
  State s;
  int next = 0;
  for (const std::string& subject : {first, second, first, second, std::string("other")}) {
    Email e;
    e.id = "eml_" + std::to_string(next);
    e.accountId = "acc_a";
    e.workspaceId = "ws_a";
    e.subject = subject;
    e.date = At("2025-12-01T00:00:00.000Z") + static_cast<Millis>(next++) * kSecond;
    s.emails.Insert(e);
  }
  EmailQuery q;
  q.subject = first;
  EXPECT_EQ(Find(s, q), (Ids{"eml_2", "eml_0"})) << first << " and " << second;
  q.subject = second;
  EXPECT_EQ(Find(s, q), (Ids{"eml_3", "eml_1"})) << first << " and " << second;
  q.subject = "collide-";
  EXPECT_EQ(Find(s, q).size(), 4u);
  EXPECT_EQ(IndexProblems(s), "");
}

// Needles of four bytes or more are looked up by their four-byte grams, shorter ones by their
// trigrams: every byte value is a gram's byte (the gram of four NUL bytes is 0, which the grams'
// table cannot hold as it is), and a needle whose grams are all there but not in one value finds
// nothing.
TEST(SearchEmails, EveryByteOfAGramAndEachGramLengthFindWhatAScanFinds) {
  State s;
  const std::vector<std::string> subjects = {std::string("x\0\0\0\0y", 6), "\xff\xff\xff\xffz", "abcd-1234",
                                             "abcz", "zbcd", "0123 and 1234"};
  for (size_t i = 0; i < subjects.size(); ++i) {
    Email e;
    e.id = "eml_" + std::to_string(i);
    e.accountId = "acc_a";
    e.workspaceId = "ws_a";
    e.subject = subjects[i];
    e.date = At("2025-12-01T00:00:00.000Z") + static_cast<Millis>(i) * kSecond;
    s.emails.Insert(e);
  }
  auto subject = [&](std::string needle) {
    EmailQuery q;
    q.subject = std::move(needle);
    return Find(s, q);
  };
  EXPECT_EQ(subject(std::string("\0\0\0\0", 4)), (Ids{"eml_0"}));
  EXPECT_EQ(subject(std::string("\0\0\0", 3)), (Ids{"eml_0"}));
  EXPECT_EQ(subject("\xff\xff\xff\xff"), (Ids{"eml_1"}));
  EXPECT_EQ(subject("abcd"), (Ids{"eml_2"}));   // its grams "abc" and "bcd" are in eml_3 and eml_4 too
  EXPECT_EQ(subject("bcd"), (Ids{"eml_4", "eml_2"}));
  EXPECT_EQ(subject("01234"), (Ids{}));  // "0123" and "1234" both in eml_5, not as one
  EXPECT_EQ(subject("ABCD-12"), (Ids{"eml_2"}));
  EXPECT_EQ(IndexProblems(s), "");
}

// A trigram's list kept as distances (Positions) gives back every position, and a cursor over it
// finds what std::lower_bound finds for any run of growing targets: lists of every length around
// the 32-position blocks, distances of every encoded length (1 to 5 bytes) up to the largest.
TEST(Positions, GiveBackEveryPositionAndSeekAsLowerBound) {
  std::mt19937 rng(23);
  const std::vector<std::uint32_t> gaps = {1, 2, 127, 128, 16383, 16384, (1u << 21) - 1, 1u << 21, (1u << 28) - 1, 1u << 28};
  for (int round = 0; round < 300; ++round) {
    const size_t n = round < 140 ? static_cast<size_t>(round) : rng() % 2000;  // 0-139: every length near a block boundary
    std::vector<std::uint32_t> want;
    std::uint64_t at = rng() % 3;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) at += round % 3 == 0 ? gaps[rng() % gaps.size()] : 1 + rng() % (round % 3 == 1 ? 4 : 300);
      if (at > UINT32_MAX) break;
      want.push_back(static_cast<std::uint32_t>(at));
    }
    if (round == 7) want = {0, UINT32_MAX};  // the widest distance there is
    Positions list;
    for (const std::uint32_t v : want) list.Append(v);
    ASSERT_EQ(list.size(), want.size());
    ASSERT_EQ(list.Decoded(), want) << "round " << round;
    for (int walk = 0; walk < 8; ++walk) {
      Positions::Cursor cursor(list);
      std::uint64_t target = 0;
      const std::uint64_t top = want.empty() ? 10 : want.back() + 10ULL;
      for (int step = 0; step < 40 && target <= UINT32_MAX; ++step) {
        const auto expected = std::lower_bound(want.begin(), want.end(), static_cast<std::uint32_t>(target));
        const bool found = cursor.SeekTo(static_cast<std::uint32_t>(target));
        ASSERT_EQ(found, expected != want.end()) << "round " << round << ", target " << target;
        if (!found) break;
        ASSERT_EQ(cursor.value(), *expected) << "round " << round << ", target " << target;
        // Near (read on), the same again, or far (a jump over blocks).
        const std::uint64_t far = 1 + rng() % (top / 8 + 1);
        target += walk % 3 == 0 ? rng() % 3 : (walk % 3 == 1 ? rng() % 400 : far);
      }
    }
  }
}

}  // namespace
}  // namespace emsim::model
