// Model tests (no sockets) for Part 4.9 mailbox search: each filter, their combination, order
// and paging.
#include <gtest/gtest.h>

#include "model/search.hpp"

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

}  // namespace
}  // namespace emsim::model
