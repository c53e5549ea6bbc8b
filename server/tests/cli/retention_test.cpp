// Retention (emsim serve --retain-events): the event log, the delivery log and notifications keep
// their newest N entries, in memory and in the data dir alike, and a delivery still pending for an
// event that was dropped is recorded as dropped, never sent without its event (Part 6).
#include <set>

#include "tests/support/sqlite_file.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

std::set<std::string> EventIds(TestServer& s) {
  std::set<std::string> ids;
  const json events = s.Get("/_sim/events", "").body["events"];
  for (const auto& e : events) ids.insert(e["id"].get<std::string>());
  return ids;
}

TEST(Retention, TheNewestEventsAreKeptAndTheDataDirAgreesAcrossARestart) {
  TempDir dir;
  app::Options o = WithDataDir(dir.path + "/d");
  o.retainEvents = 3;
  std::vector<std::string> ids;
  {
    TestServer s(o);
    for (int i = 0; i < 5; ++i) ids.push_back(Trigger(s)["id"]);
    EXPECT_EQ(EventIds(s), (std::set<std::string>{ids[2], ids[3], ids[4]}));
    EXPECT_EQ(s.Get("/_sim/state", "").body["trimmed"]["events"], 2);
  }
  const std::string file = dir.path + "/d/emsim.db";
  EXPECT_EQ(SqlValue(file, "SELECT count(*) FROM events"), "3");
  EXPECT_EQ(SqlValue(file, "SELECT min(pos) FROM events"), "2");  // positions count the whole history
  {
    TestServer s(o);
    EXPECT_EQ(EventIds(s), (std::set<std::string>{ids[2], ids[3], ids[4]}));
    ids.push_back(Trigger(s)["id"]);
    EXPECT_EQ(EventIds(s), (std::set<std::string>{ids[3], ids[4], ids[5]}));
  }
  TestServer s(o);
  EXPECT_EQ(EventIds(s), (std::set<std::string>{ids[3], ids[4], ids[5]}));
  EXPECT_EQ(s.Get("/_sim/state", "").body["trimmed"]["events"], 3);
  EXPECT_EQ(SqlValue(file, "SELECT min(pos) || '-' || max(pos) FROM events"), "3-5");
}

TEST(Retention, AFewerRetainedOnRestartCutsTheLogsOfTheDataDirToo) {
  TempDir dir;
  app::Options o = WithDataDir(dir.path + "/d");
  o.retainEvents = 0;  // everything
  std::vector<std::string> ids;
  {
    TestServer s(o);
    for (int i = 0; i < 4; ++i) ids.push_back(Trigger(s)["id"]);
  }
  o.retainEvents = 1;
  {
    TestServer s(o);
    EXPECT_EQ(EventIds(s), (std::set<std::string>{ids[3]}));
  }
  EXPECT_EQ(SqlValue(dir.path + "/d/emsim.db", "SELECT count(*) FROM events"), "1");
  TestServer s(o);
  EXPECT_EQ(EventIds(s), (std::set<std::string>{ids[3]}));
}

TEST(Retention, ARetryOfAnEventNoLongerRetainedIsRecordedAsDroppedNotSent) {
  Receiver receiver;
  receiver.SetBehaviour([](int, const httplib::Request&, httplib::Response&) { return 500; });
  app::Options o;
  o.retainEvents = 2;
  TestServer s(o);
  CreateEndpoint(s, receiver.Url());  // subscribed to workspace.invitations only
  const std::string first = Trigger(s)["id"];
  s.Advance("0s");
  ASSERT_EQ(receiver.Count(), 1u);  // failed: a retry is scheduled
  // Two events the endpoint does not take push the first out of the log.
  Trigger(s, "domain.updated", kAliceKey, "dom_nw_01");
  Trigger(s, "domain.updated", kAliceKey, "dom_nw_01");
  ASSERT_FALSE(EventIds(s).count(first));
  s.Advance("1d");
  EXPECT_EQ(receiver.Count(), 1u);
  bool dropped = false;
  const json deliveries = s.Get("/_sim/deliveries", "").body["deliveries"];
  for (const auto& d : deliveries)
    if (d["eventId"] == first && d["status"] == "dropped") {
      dropped = true;
      EXPECT_NE(d["error"].get<std::string>().find("older than the events emsim retains"), std::string::npos) << d;
    }
  EXPECT_TRUE(dropped);
}

}  // namespace
}  // namespace emsim::testing
