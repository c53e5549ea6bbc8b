// Model tests (no sockets) for Part 4.5 exports: selection filters, the CSV, the export job and
// third-party credentials.
#include <gtest/gtest.h>

#include "model/exports.hpp"
#include "core/messages.hpp"
#include "tests/support/fixture_clock.hpp"

namespace emsim::model {
namespace {

using testing::kFixtureStartMs;  // 2026-01-01T09:00:00.000Z

// acc_a: ws_a (domains a.com [tag_x], b.com [tag_y, tag_z]) and ws_a2 (c.com); acc_b: ws_b (d.com).
State ExportsWorld() {
  State s;
  s.ids = IdGenerator(7);
  for (auto [id, key] : {std::pair{"acc_a", "key_a"}, {"acc_b", "key_b"}}) {
    Account a;
    a.id = id;
    a.apiKey = key;
    a.user.id = std::string("usr_") + id;
    s.accounts.Insert(a);
  }
  for (auto [id, acc] : {std::pair{"ws_a", "acc_a"}, {"ws_a2", "acc_a"}, {"ws_b", "acc_b"}}) {
    Workspace w;
    w.id = id;
    w.accountId = acc;
    w.name = id;
    s.workspaces.Insert(w);
  }
  auto domain = [&](const char* id, const char* name, const char* ws, const char* acc, std::vector<std::string> tags) {
    Domain d;
    d.id = id;
    d.domain = name;
    d.workspaceId = ws;
    d.accountId = acc;
    d.tags = std::move(tags);
    s.AddDomain(d);
  };
  domain("dom_a", "a.com", "ws_a", "acc_a", {"tag_x"});
  domain("dom_b", "b.com", "ws_a", "acc_a", {"tag_y", "tag_z"});
  domain("dom_c", "c.com", "ws_a2", "acc_a", {"tag_x"});
  domain("dom_d", "d.com", "ws_b", "acc_b", {"tag_x"});
  auto mailbox = [&](const char* id, const char* dom, const char* user, const char* first, const char* last,
                     const char* status) {
    const Domain* d = s.domains.Find(dom);
    Mailbox m;
    m.id = id;
    m.domainId = dom;
    m.workspaceId = d->workspaceId;
    m.accountId = d->accountId;
    m.username = user;
    m.firstName = first;
    m.lastName = last;
    m.status = *core::ParseEnum<MailboxStatus>(status);
    s.AddMailbox(m);
  };
  mailbox("m1", "dom_a", "jane", "Jane", "Doe", "ACTIVE");
  mailbox("m2", "dom_a", "sam", "Sam", "Smith, Jr.", "INACTIVE");
  mailbox("m3", "dom_b", "lee", "Lee", "Quote\"d", "IN_PROGRESS");
  mailbox("m4", "dom_b", "ana", "Ana", "Jones", "ACTIVE");
  mailbox("m5", "dom_c", "zed", "Zed", "Other", "ACTIVE");
  mailbox("m6", "dom_d", "bob", "Bob", "Foreign", "ACTIVE");
  s.RebuildIndexes();
  return s;
}

const Caller kA{"acc_a", "ws_a"};

std::vector<std::string> MailboxIds(const Result<std::vector<const Mailbox*>>& r) {
  std::vector<std::string> out;
  for (const auto* m : r.value()) out.push_back(m->id);
  return out;
}

ExportRequest Req(std::vector<std::string> apps = {"MANUAL"}) {
  ExportRequest r;
  r.apps = std::move(apps);
  return r;
}

TEST(ExportSelection, NoFilterSelectsEveryMailboxOfTheWorkspaceInCreationOrder) {
  State s = ExportsWorld();
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, Req())), (std::vector<std::string>{"m1", "m2", "m3", "m4"}));
}

TEST(ExportSelection, IdsRestrictAndExcludeIdsRemove) {
  State s = ExportsWorld();
  ExportRequest r = Req();
  r.ids = {"m4", "m1", "m2"};
  r.excludeIds = {"m2", "no_such_mailbox"};  // unknown excludeIds exclude nothing
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, r)), (std::vector<std::string>{"m1", "m4"}));
}

TEST(ExportSelection, AnIdOutsideTheWorkspaceIsA400NamingIds) {
  State s = ExportsWorld();
  for (const char* id : {"m5", "m6", "nope"}) {  // other workspace, other account, unknown
    ExportRequest r = Req();
    r.ids = {"m1", id};
    auto sel = SelectMailboxes(s, kA, r);
    ASSERT_FALSE(sel.ok()) << id;
    EXPECT_EQ(sel.error().code, ErrorCode::kValidation);
    EXPECT_EQ(sel.error().errors.at(0).param, "ids");
    EXPECT_NE(sel.error().errors.at(0).msg.find(id), std::string::npos);
  }
}

TEST(ExportSelection, TagIdsMatchAnyTagOfTheMailboxDomain) {
  State s = ExportsWorld();
  ExportRequest r = Req();
  r.tagIds = {"tag_z"};
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, r)), (std::vector<std::string>{"m3", "m4"}));
  r.tagIds = {"tag_x", "tag_z"};
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, r)), (std::vector<std::string>{"m1", "m2", "m3", "m4"}));
  r.tagIds = {"tag_unknown"};
  EXPECT_TRUE(SelectMailboxes(s, kA, r)->empty());
}

TEST(ExportSelection, ContainsMatchesAddressOrNameIgnoringCase) {
  State s = ExportsWorld();
  ExportRequest r = Req();
  r.contains = "B.COM";
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, r)), (std::vector<std::string>{"m3", "m4"}));
  r.contains = "smith";
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, r)), (std::vector<std::string>{"m2"}));
}

TEST(ExportSelection, StatusFiltersExactlyAndEmptyStatusDoesNot) {
  State s = ExportsWorld();
  ExportRequest r = Req();
  r.status = "ACTIVE";
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, r)), (std::vector<std::string>{"m1", "m4"}));
  r.status = "";
  EXPECT_EQ(SelectMailboxes(s, kA, r)->size(), 4u);
}

TEST(ExportSelection, FiltersCombine) {
  State s = ExportsWorld();
  ExportRequest r = Req();
  r.tagIds = {"tag_x", "tag_y"};
  r.status = "ACTIVE";
  r.excludeIds = {"m4"};
  EXPECT_EQ(MailboxIds(SelectMailboxes(s, kA, r)), (std::vector<std::string>{"m1"}));
}

TEST(ExportCsv, HeaderThenOneQuotedLinePerMailbox) {
  State s = ExportsWorld();
  EXPECT_EQ(MailboxesCsv(s, {"m2", "m3", "gone"}),
            "email,firstName,lastName,status,domain\r\n"
            "sam@a.com,Sam,\"Smith, Jr.\",INACTIVE,a.com\r\n"
            "lee@b.com,Lee,\"Quote\"\"d\",IN_PROGRESS,b.com\r\n");
}

TEST(StartExport, UnknownAppIsA400NamingAppsAndChangesNothing) {
  State s = ExportsWorld();
  auto r = StartExport(s, kA, Req({"MANUAL", "MAILCHIMP"}), kFixtureStartMs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errors.at(0).param, "apps");
  EXPECT_NE(r.error().errors.at(0).msg.find("MAILCHIMP"), std::string::npos);
  EXPECT_TRUE(s.exports.empty());
  EXPECT_TRUE(s.jobs.empty());
  EXPECT_TRUE(s.events.empty());
}

TEST(StartExport, AppIdsAreCaseSensitive) {
  State s = ExportsWorld();
  EXPECT_FALSE(StartExport(s, kA, Req({"manual"}), kFixtureStartMs).ok());
}

TEST(StartExport, EmptySelectionIsA400) {
  State s = ExportsWorld();
  ExportRequest r = Req();
  r.status = "ACTIVE";
  r.contains = "nobody";
  auto x = StartExport(s, kA, r, kFixtureStartMs);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().errors.at(0).msg.rfind(msg::kExportSelectsNothing, 0), 0u);
  EXPECT_TRUE(s.exports.empty());
}

TEST(StartExport, RecordsStartedExportSchedulesTheJobAndEmitsStarted) {
  State s = ExportsWorld();
  s.timings["exportSeconds"] = 45;
  auto id = StartExport(s, kA, Req(), kFixtureStartMs);
  ASSERT_TRUE(id.ok());
  const MailboxExport* x = s.exports.Find(*id);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->status, ExportStatus::kStarted);
  EXPECT_EQ(x->mailboxIds, (std::vector<std::string>{"m1", "m2", "m3", "m4"}));
  EXPECT_FALSE(x->csv.has_value());
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs.begin()->second.dueMs, kFixtureStartMs + 45 * kSecond);
  EXPECT_EQ(s.jobs.begin()->second.kind, "exports.run");
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].type, "export.started");
  EXPECT_EQ(s.events[0].accountId, "acc_a");
  EXPECT_EQ(s.events[0].data.Parse()["exportDetails"]["id"], *id);
  EXPECT_EQ(s.events[0].data.Parse()["exportDetails"]["mailboxCount"], 4);
}

TEST(RunExport, ManualWritesTheCsvAndCompletes) {
  State s = ExportsWorld();
  ExportRequest r = Req();
  r.ids = {"m1"};
  auto id = StartExport(s, kA, r, kFixtureStartMs);
  ASSERT_TRUE(id.ok());
  RunExport(s, *id, kFixtureStartMs + 2 * kMinute);
  const MailboxExport* x = s.exports.Find(*id);
  EXPECT_EQ(x->status, ExportStatus::kCompleted);
  EXPECT_EQ(x->completedAt, kFixtureStartMs + 2 * kMinute);
  EXPECT_EQ(*x->csv, "email,firstName,lastName,status,domain\r\njane@a.com,Jane,Doe,ACTIVE,a.com\r\n");
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[1].type, "export.completed");
  EXPECT_EQ(s.events[1].data.Parse()["previousState"]["status"], "STARTED");
  // Running again (a duplicated job) changes nothing.
  RunExport(s, *id, kFixtureStartMs + 3 * kMinute);
  EXPECT_EQ(s.exports.Find(*id)->completedAt, kFixtureStartMs + 2 * kMinute);
  EXPECT_EQ(s.events.size(), 2u);
}

TEST(RunExport, ThirdPartyAppWithoutCredentialsFailsAndWithCredentialsSends) {
  State s = ExportsWorld();
  auto first = StartExport(s, kA, Req({"MANUAL", "INSTANTLY"}), kFixtureStartMs);
  RunExport(s, *first, kFixtureStartMs + kMinute);
  const MailboxExport* x = s.exports.Find(*first);
  EXPECT_EQ(x->status, ExportStatus::kFailed);
  ASSERT_TRUE(x->failureReason.has_value());
  EXPECT_NE(x->failureReason->find("INSTANTLY"), std::string::npos);
  ASSERT_EQ(x->results.size(), 2u);
  EXPECT_EQ(x->results[0].status, ExportStatus::kCompleted);  // the CSV is still written
  EXPECT_TRUE(x->csv.has_value());
  EXPECT_EQ(x->results[1].status, ExportStatus::kFailed);
  EXPECT_EQ(s.events.back().type, "export.failed");

  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"INSTANTLY", "Ops@Example.com", "sha256:aa"}, kFixtureStartMs + 2 * kMinute).ok());
  auto second = StartExport(s, kA, Req({"INSTANTLY"}), kFixtureStartMs + 3 * kMinute);
  RunExport(s, *second, kFixtureStartMs + 4 * kMinute);
  x = s.exports.Find(*second);
  EXPECT_EQ(x->status, ExportStatus::kCompleted);
  EXPECT_EQ(x->results[0].accountEmail, "ops@example.com");
  EXPECT_EQ(x->results[0].sentMailboxes,
            (std::vector<std::string>{"jane@a.com", "sam@a.com", "lee@b.com", "ana@b.com"}));
  EXPECT_FALSE(x->csv.has_value());
}

TEST(ThirdPartyAccount, ManualAndUnknownAppsAre400NamingApp) {
  State s = ExportsWorld();
  for (const char* app : {"MANUAL", "HUBSPOT"}) {
    auto r = UpdateThirdPartyAccount(s, kA, {app, "ops@example.com", "sha256:aa"}, kFixtureStartMs);
    ASSERT_FALSE(r.ok()) << app;
    EXPECT_EQ(r.error().errors.at(0).param, "app");
  }
  EXPECT_TRUE(s.thirdPartyAccounts.empty());
}

TEST(ThirdPartyAccount, OneRecordPerAccountAppAndEmailUpdatedInPlace) {
  State s = ExportsWorld();
  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"SMARTLEAD", "ops@example.com", "sha256:01"}, kFixtureStartMs).ok());
  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"SMARTLEAD", "OPS@example.com", "sha256:02"}, kFixtureStartMs + kMinute).ok());
  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"LEMLIST", "ops@example.com", "sha256:03"}, kFixtureStartMs).ok());
  ASSERT_TRUE(UpdateThirdPartyAccount(s, {"acc_b", "ws_b"}, {"SMARTLEAD", "ops@example.com", "sha256:04"}, kFixtureStartMs).ok());
  ASSERT_EQ(s.thirdPartyAccounts.size(), 3u);
  const ThirdPartyAccount& first = *s.thirdPartyAccounts.begin();
  EXPECT_EQ(first.passwordFingerprint, "sha256:02");
  EXPECT_EQ(first.createdAt, kFixtureStartMs);
  EXPECT_EQ(first.updatedAt, kFixtureStartMs + kMinute);
}

TEST(ThirdPartyAccount, ReconnectedFiresOnceForTheLatestExportThatFailedForThatApp) {
  State s = ExportsWorld();
  auto id = StartExport(s, kA, Req({"LEMLIST"}), kFixtureStartMs);
  // Credentials for another app, or while the export is still running: no reconnect.
  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"INSTANTLY", "x@example.com", "sha256:01"}, kFixtureStartMs).ok());
  RunExport(s, *id, kFixtureStartMs + kMinute);
  const size_t before = s.events.size();
  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"INSTANTLY", "x@example.com", "sha256:02"}, kFixtureStartMs + 2 * kMinute).ok());
  EXPECT_EQ(s.events.size(), before);
  // Another account's credentials do not reconnect this account's export.
  ASSERT_TRUE(UpdateThirdPartyAccount(s, {"acc_b", "ws_b"}, {"LEMLIST", "x@example.com", "sha256:02"}, kFixtureStartMs).ok());
  EXPECT_EQ(s.events.size(), before);

  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"LEMLIST", "x@example.com", "sha256:03"}, kFixtureStartMs + 3 * kMinute).ok());
  ASSERT_EQ(s.events.size(), before + 1);
  const Event& e = s.events.back();
  EXPECT_EQ(e.type, "export.reconnected");
  EXPECT_EQ(e.data.Parse()["exportDetails"]["id"], *id);
  EXPECT_EQ(e.data.Parse()["exportDetails"]["status"], "FAILED");
  EXPECT_EQ(e.data.Parse()["thirdPartyAccountDetails"]["app"], "LEMLIST");
  EXPECT_FALSE(e.data.Parse()["thirdPartyAccountDetails"].contains("passwordFingerprint"));
  EXPECT_EQ(e.data.Parse()["previousState"], json({{"reconnectedAt", nullptr}}));
  EXPECT_EQ(s.exports.Find(*id)->reconnectedAt, kFixtureStartMs + 3 * kMinute);

  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"LEMLIST", "x@example.com", "sha256:04"}, kFixtureStartMs + 4 * kMinute).ok());
  EXPECT_EQ(s.events.size(), before + 1);  // once
}

TEST(ExportState, DumpAndLoadRoundTripExportsAndCredentials) {
  State s = ExportsWorld();
  auto id = StartExport(s, kA, Req({"MANUAL", "REPLY_IO"}), kFixtureStartMs);
  RunExport(s, *id, kFixtureStartMs + kMinute);
  ASSERT_TRUE(UpdateThirdPartyAccount(s, kA, {"REPLY_IO", "x@example.com", "sha256:05"}, kFixtureStartMs).ok());
  const json dump = DumpState(s);
  State loaded = LoadState(dump);
  EXPECT_EQ(DumpState(loaded), dump);
  EXPECT_EQ(loaded.exports.Find(*id)->csv, s.exports.Find(*id)->csv);
}

}  // namespace
}  // namespace emsim::model
