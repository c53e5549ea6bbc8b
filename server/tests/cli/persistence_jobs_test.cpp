// Jobs across a restart with --data-dir (README "Persistence"): what fell due while emsim was down
// runs at once, in due-time order, each at its due time; a webhook attempt that was on the wire
// when emsim died goes out again with the same event id (Part 6: at least once).
#include <sqlite3.h>

#include <filesystem>
#include <set>

#include "tests/support/temp_dir.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

using model::Millis;

// What a person may do to a stopped emsim's file (README "Persistence"): here, move the saved real
// clock's offset on, as if `hours` had passed while emsim was down, without a test sleeping.
void AgeTheSavedClock(const std::string& db_path, Millis by) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  const std::string sql = "UPDATE meta SET body = json_set(body, '$.offsetMs', json_extract(body, '$.offsetMs') + " +
                          std::to_string(by) + ") WHERE name = 'clock'";
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
}

TEST(DataDirJobs, JobsThatFellDueWhileEmsimWasDownRunInOrderAtTheirDueTimes) {
  TempDir dir;
  const std::string data = dir.path + "/d";
  Millis bought_at = -1, to_connected = 0, to_active = 0;
  {
    TestServer s(WithDataDir(data), runtime::ClockMode::kReal);
    ASSERT_EQ(s.Post("/v1/domain/buy-domain", {{"domainName", "brightreach.com"}, {"useWallet", true}}).status, 200);
    const json w = s.Get("/_sim/state", "").body;
    for (const auto& d : w["domains"])
      if (d["domain"] == "brightreach.com") bought_at = d["createdAt"].get<Millis>();
    to_connected = w["timings"]["domainPendingToConnectedSeconds"].get<Millis>() * model::kSecond;
    to_active = w["timings"]["domainConnectedToActiveSeconds"].get<Millis>() * model::kSecond;
  }
  ASSERT_GE(bought_at, 0);
  AgeTheSavedClock(data + "/emsim.db", to_connected + to_active + model::kHour);

  TestServer s(WithDataDir(data), runtime::ClockMode::kReal);
  s.Advance("0s");  // answers once every job due by now has finished
  const json w = s.Get("/_sim/state", "").body;
  for (const auto& d : w["domains"])
    if (d["domain"] == "brightreach.com") {
      EXPECT_EQ(d["status"], "ACTIVE") << "both transitions ran";
    }
  // Each transition ran at its own due time, the first before the second (which the first scheduled).
  std::vector<Millis> times;
  for (const auto& e : w["events"])
    if (e["type"] == "domain.updated" && e["data"]["domainDetails"]["domain"] == "brightreach.com")
      times.push_back(e["createdMs"].get<Millis>());
  EXPECT_EQ(times, (std::vector<Millis>{bought_at + to_connected, bought_at + to_connected + to_active}));
}

TEST(DataDirJobs, AnAttemptOnTheWireWhenEmsimDiedGoesOutAgainWithTheSameEventId) {
  Receiver receiver;
  // The first request is held (the attempt is on the wire); any later one is answered at once.
  receiver.SetBehaviour([&](int n, const httplib::Request&, httplib::Response&) {
    if (n == 1) receiver.WaitForRelease();
    return 200;
  });
  TempDir dir;
  const std::string data = dir.path + "/d", copy = dir.path + "/killed";
  auto first = std::make_unique<TestServer>(WithDataDir(data));
  CreateEndpoint(*first, receiver.Url());
  const json event = Trigger(*first);
  ASSERT_TRUE(receiver.WaitForHits(1));
  // A kill -9 now: the files as they are while the attempt is unanswered (every answer so far was
  // committed, and nothing writes while the attempt waits).
  std::filesystem::create_directories(copy);
  for (const char* f : {"/emsim.db", "/emsim.db-wal"})
    if (std::filesystem::exists(data + f)) std::filesystem::copy_file(data + f, copy + f);

  {
    TestServer restarted(WithDataDir(copy));
    restarted.Advance("0s");
    ASSERT_TRUE(receiver.WaitForHits(2));
    const auto hits = receiver.Hits();
    ASSERT_EQ(hits.size(), 2u);
    EXPECT_EQ(json::parse(hits[1].body)["id"], event["id"]) << "the same event, sent again";
    const json d = Deliveries(restarted)["deliveries"];
    ASSERT_EQ(d.size(), 1u) << d.dump(1);
    EXPECT_EQ(d[0]["status"], "succeeded");
    EXPECT_EQ(d[0]["eventId"], event["id"]);
  }
  receiver.Release();
  first.reset();
}

}  // namespace
}  // namespace emsim::testing
