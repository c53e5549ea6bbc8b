// The WAL-gathering VFS (runtime/wal_gather.hpp): a commit's frames reach the WAL file as one write,
// and every commit is in the files by the time COMMIT returns, so a copy of the files taken then
// (what a killed process leaves) opens with it, whatever SQLite did on the way: a transaction
// bigger than the page cache (frames written early, rewritten, their checksums redone), a rolled
// back one, a checkpoint and a WAL started over, synchronous FULL or NORMAL.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "runtime/wal_gather.hpp"
#include "tests/support/sqlite_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace emsim::runtime {
namespace {

using testing::SqlValue;
using testing::TempDir;

struct Db {
  sqlite3* db = nullptr;
  Db(const std::string& file, const char* synchronous) {
    EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, GatheringVfs()), SQLITE_OK);
    Exec("PRAGMA journal_mode=WAL");
    Exec(std::string("PRAGMA synchronous=") + synchronous);
    Exec("PRAGMA wal_autocheckpoint=0");  // checkpoints only where a test runs one
    Exec("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v INTEGER, pad TEXT)");
  }
  ~Db() { sqlite3_close(db); }
  void Exec(const std::string& sql) {
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "") << ": " << sql;
    sqlite3_free(error);
  }
  // Rows [from, from + n) with value v, each ~1 KiB: four to a page.
  void Insert(int from, int n, int v) {
    for (int i = from; i < from + n; ++i)
      Exec("INSERT OR REPLACE INTO t VALUES(" + std::to_string(i) + "," + std::to_string(v) + ", printf('%.1000c', 'x'))");
  }
};

// The database as a process killed now would leave it: its file and its WAL copied (the copy sees
// only what was written to them), opened by SQLite's own VFS, which recovers the WAL.
std::string AfterAKill(const std::string& file, const std::string& sql) {
  static int copies = 0;
  const std::string copy = file + ".copy" + std::to_string(++copies);
  std::filesystem::copy_file(file, copy);
  if (std::filesystem::exists(file + "-wal")) std::filesystem::copy_file(file + "-wal", copy + "-wal");
  return SqlValue(copy, sql);
}

class WalGather : public ::testing::TestWithParam<const char*> {};

TEST_P(WalGather, ACommitIsOneWriteAndInTheFilesWhenCommitReturns) {
  TempDir dir;
  const std::string file = dir.path + "/w.db";
  Db db(file, GetParam());
  for (int round = 1; round <= 3; ++round) {
    const WalGatherCounts before = WalGatherCountsNow();
    db.Exec("BEGIN");
    db.Insert(round * 100, 40, round);  // ten pages and more: twenty frame writes and more
    db.Exec("COMMIT");
    const WalGatherCounts after = WalGatherCountsNow();
    EXPECT_GE(after.appends - before.appends, 20u) << "round " << round;
    EXPECT_EQ(after.writes - before.writes, 1u) << "round " << round;
    EXPECT_EQ(AfterAKill(file, "SELECT count(*) FROM t"), std::to_string(40 * round)) << "round " << round;
    EXPECT_EQ(AfterAKill(file, "PRAGMA integrity_check"), "ok");
    // And another connection (the default VFS) reads it too.
    EXPECT_EQ(SqlValue(file, "SELECT count(*) FROM t WHERE v=" + std::to_string(round)), "40");
  }
}

TEST_P(WalGather, ATransactionBiggerThanTheCacheCommitsWholeAndARolledBackOneLeavesNothing) {
  TempDir dir;
  const std::string file = dir.path + "/w.db";
  Db db(file, GetParam());
  db.Exec("PRAGMA cache_size=8");  // eight pages: the transaction below spills frames before its commit
  db.Exec("BEGIN");
  db.Insert(0, 200, 1);
  db.Insert(0, 200, 2);  // every page again, spilled already: rewritten in the WAL, checksums redone
  db.Exec("COMMIT");
  EXPECT_EQ(AfterAKill(file, "SELECT count(*) || ' ' || sum(v) FROM t"), "200 400");
  EXPECT_EQ(AfterAKill(file, "PRAGMA integrity_check"), "ok");

  db.Exec("BEGIN");
  db.Insert(1000, 200, 7);  // spilled, then rolled back: its frames in the WAL are never committed
  db.Exec("ROLLBACK");
  EXPECT_EQ(AfterAKill(file, "SELECT count(*) || ' ' || sum(v) FROM t"), "200 400");
  db.Exec("BEGIN");
  db.Insert(200, 3, 5);  // a small commit after it, written over the rolled-back frames
  db.Exec("COMMIT");
  EXPECT_EQ(AfterAKill(file, "SELECT count(*) || ' ' || sum(v) FROM t"), "203 415");
  EXPECT_EQ(AfterAKill(file, "PRAGMA integrity_check"), "ok");
}

TEST_P(WalGather, CommitsAfterACheckpointStartsTheWalOverAreInTheFiles) {
  TempDir dir;
  const std::string file = dir.path + "/w.db";
  Db db(file, GetParam());
  db.Insert(0, 30, 1);  // one commit a row: frames appended commit after commit
  db.Exec("PRAGMA wal_checkpoint(RESTART)");
  db.Insert(0, 1, 9);  // the first commit of the WAL started over: its header and one frame
  EXPECT_EQ(AfterAKill(file, "SELECT count(*) || ' ' || sum(v) FROM t"), "30 38");
  db.Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.Exec("BEGIN");
  db.Insert(30, 40, 2);
  db.Exec("COMMIT");
  EXPECT_EQ(AfterAKill(file, "SELECT count(*) || ' ' || sum(v) FROM t"), "70 118");
  EXPECT_EQ(AfterAKill(file, "PRAGMA integrity_check"), "ok");
}

INSTANTIATE_TEST_SUITE_P(Synchronous, WalGather, ::testing::Values("FULL", "NORMAL"));

}  // namespace
}  // namespace emsim::runtime
