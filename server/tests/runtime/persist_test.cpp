// Durable state (runtime/persist.hpp): what a store's write transactions change reaches the file,
// a new Persister on the same directory reads the same world back, and a damaged or foreign file,
// a second emsim on the directory, a row that is not a record, are refused with a message naming
// the file, the table and the id. The kill -9 and torn-file tests are scripts/crash-test.py.
#include <gtest/gtest.h>

#include <random>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <utility>

#include "model/state.hpp"
#include "runtime/clock.hpp"
#include "runtime/persist.hpp"
#include "runtime/store.hpp"
#include "tests/support/sqlite_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace emsim::runtime {
namespace {

using model::State;

using testing::SqlValue;
using testing::TempDir;

State SmallWorld() {
  State s;
  model::Account a;
  a.id = "acc_1";
  a.apiKey = "key_1";
  a.user.id = "usr_1";
  a.walletCents = 1000;
  s.AddAccount(a);
  model::Workspace w;
  w.id = "ws_1";
  w.accountId = "acc_1";
  w.name = "One";
  s.workspaces.Insert(w);
  return s;
}

// An emsim's store on a data dir, as App wires it: SmallWorld is both the world and the baseline,
// written whole into a new directory. Members in this order so the writer stops before the clock.
struct Running {
  Clock clock;
  Persister persister;
  Store store;
  explicit Running(const std::string& dir, Durability d = Durability::kFull, model::Millis start = 0,
                   std::pair<int, int> checkpoint_frames = {10000, 40000})
      : clock(ClockMode::kManual, start), persister(dir, d), store(SmallWorld(), SmallWorld()) {
    persister.SetCheckpointFrames(checkpoint_frames.first, checkpoint_frames.second);
    persister.Start(clock);
    store.Persist(persister, true);
  }
};

// The world a new Persister reads from `dir`, loaded as emsim's start loads it.
State Reopen(const std::string& dir) {
  Persister p(dir, Durability::kFull);
  EXPECT_TRUE(p.HasData());
  Recovered r = p.Read();
  return p.Load(r);
}

// A directory holding SmallWorld, committed, with no emsim on it.
void WriteWorld(const std::string& dir) {
  Running r(dir, Durability::kFull, 0);
  r.store.AwaitDurable();
}

void Sql(const std::string& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

std::string FileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Why emsim's start refuses to read `dir` (the PersistError of opening or reading it); "" when
// it reads.
std::string ReadRefusal(const std::string& dir) {
  try {
    Persister p(dir, Durability::kFull);
    p.Read();
  } catch (const PersistError& e) {
    return e.what();
  }
  return "";
}

TEST(TableChanges, NotesRowsHandedOutMutablyAndNothingElse) {
  model::Table<model::Workspace> t;
  model::Workspace w;
  w.id = "a";
  t.Insert(w);
  w.id = "b";
  t.Insert(w);
  t.Track(true);
  const auto& ct = t;
  ct.Find("a");  // a read
  std::vector<std::pair<std::string, bool>> seen;
  auto take = [&] {
    seen.clear();
    return t.TakeChanges([&](std::string_view id, const model::Workspace* row) { seen.emplace_back(id, row != nullptr); });
  };
  EXPECT_FALSE(take());
  EXPECT_TRUE(seen.empty());
  t.Edit("b")->name = "changed";
  t.Find("b");
  w.id = "c";
  t.Insert(w);
  t.Erase("a");
  EXPECT_FALSE(take());
  // First noted first: b, then c, then a (the erase).
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, bool>>{{"b", true}, {"c", true}, {"a", false}}));
  // Rows inserted together come out in the table's order, not sorted: the durable copy keeps it.
  for (const char* id : {"z", "m", "d"}) {
    w.id = id;
    t.Insert(w);
    t.Edit(id)->name = "noted again";
  }
  EXPECT_FALSE(take());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, bool>>{{"z", true}, {"m", true}, {"d", true}}));
  for (auto& row : t.EditAll()) row.name = "all";  // the whole table
  EXPECT_TRUE(take());
  EXPECT_FALSE(take());  // forgotten once taken
  // More notes than a scan takes (a hash set instead), by position while no erase moves rows;
  // then an erase before all of them (every position after it moves): the rows noted before it
  // are still the rows handed, each once, first noted first, the erased one last and gone.
  std::vector<std::pair<std::string, bool>> want;
  for (int i = 0; i < 12; ++i) {
    w.id = "n" + std::to_string(i);
    t.Insert(w);
    want.emplace_back(w.id, true);
  }
  for (const auto& [id, present] : want) t.Edit(id)->name = "twice";
  EXPECT_FALSE(take());
  EXPECT_EQ(seen, want);
  for (const auto& [id, present] : want) t.Edit(id)->name = "again";
  ASSERT_EQ(t.rows().front().id, "b");
  t.Erase("b");
  t.Edit("n11")->name = "after the erase";
  t.Edit("n0")->name = "after the erase";
  EXPECT_FALSE(take());
  want.emplace_back("b", false);
  EXPECT_EQ(seen, want);
  // Once the whole table is to be written (a clear), nothing more is noted: a position noted
  // before it is never read after it (here it would be past the end of the rows).
  t.Edit("n11")->name = "noted before the clear";
  t.Clear();
  w.id = "after the clear";
  t.Insert(w);
  t.Erase("after the clear");
  EXPECT_TRUE(take());
  EXPECT_FALSE(take());
}

TEST(Persist, WritesReachTheFileAndReadBackTheSameWorld) {
  TempDir dir;
  {
    Running r(dir.path);
    Store& store = r.store;
    store.Write([](State& s) {
      s.accounts.Edit("acc_1")->walletCents -= 250;
      model::Workspace w;
      w.id = "ws_2";
      w.accountId = "acc_1";
      s.workspaces.Insert(w);
      s.Schedule(5, "test.job", json{{"n", 1}});
      s.Schedule(6, "test.job", json{{"n", 2}});
      s.Emit("domain.updated", "acc_1", json{{"x", 1}}, 7);
    });
    store.Write([](State& s) { s.EraseJob(s.jobs.begin()); });
    store.AwaitDurable();
  }
  const State back = Reopen(dir.path);
  EXPECT_EQ(back.accounts.Find("acc_1")->walletCents, 750);
  EXPECT_TRUE(back.workspaces.Contains("ws_2"));
  ASSERT_EQ(back.jobs.size(), 1u);
  EXPECT_EQ(back.jobs.begin()->second.args.Parse()["n"], 2);
  EXPECT_EQ(back.events.size(), 1u);
  EXPECT_EQ(back.nextJobSeq, 3u);
}

// Change sets that reach the writer together are one batch; a row several of them write (none
// deleting it) is written once, where its first write was, with its last body: the world read
// back is the world in memory, rows in the same order. A row deleted and written again in the
// batch is written as queued.
TEST(Persist, ABatchWritesARowItsChangeSetsRewriteOnceInItsFirstPlace) {
  TempDir dir;
  WriteWorld(dir.path);
  State in_memory;
  std::uint64_t rows = 0;
  {
    Clock clock(ClockMode::kManual, 0);
    Persister p(dir.path, Durability::kFull);
    ASSERT_TRUE(p.HasData());
    Recovered saved = p.Read();
    Store store(p.Load(saved), SmallWorld());
    store.Persist(p, false);
    // Queued before the writer starts, so its first batch takes them all.
    auto add = [&](const std::string& id, const std::string& name) {
      store.Write([&](State& s) {
        model::Workspace w;
        w.id = id;
        w.accountId = "acc_1";
        w.name = name;
        s.workspaces.Insert(w);
      });
    };
    for (int i = 0; i < 3; ++i) store.Write([](State& s) { s.accounts.Edit("acc_1")->walletCents -= 100; });
    add("ws_a", "first");
    add("ws_b", "b");
    store.Write([](State& s) { s.workspaces.Edit("ws_a")->name = "renamed"; });
    add("ws_c", "c");
    store.Write([](State& s) { s.workspaces.Erase("ws_c"); });
    add("ws_c", "again");
    const std::uint64_t before = p.RowsWritten();
    p.Start(clock);
    store.AwaitDurable();
    rows = p.RowsWritten() - before;
    in_memory = store.Read([](const State& s) { return s; });
  }
  // acc_1 once (not three times), ws_a once and ws_b once, ws_c three times (deleted between).
  EXPECT_EQ(rows, 6u);
  const State back = Reopen(dir.path);
  EXPECT_EQ(back.accounts.Find("acc_1")->walletCents, 700);
  EXPECT_EQ(back.workspaces.Find("ws_a")->name, "renamed");
  EXPECT_EQ(back.workspaces.Find("ws_c")->name, "again");
  EXPECT_EQ(model::DumpState(back), model::DumpState(in_memory));
  std::vector<std::string> order;
  for (const auto& w : back.workspaces) order.push_back(w.id);
  EXPECT_EQ(order, (std::vector<std::string>{"ws_1", "ws_a", "ws_b", "ws_c"}));
}

// A durable answer handed to OnDurable (what a connection sends it from) is told yes only once
// its change is in the file, as another reader of the file sees it; and no when the change will
// never be written (here another connection holds the file's write lock, so the batch fails),
// at once for every later one.
TEST(Persist, OnDurableSaysYesOnlyOnceTheChangeIsInTheFileAndNoWhenItNeverWillBe) {
  TempDir dir;
  Running r(dir.path);
  const std::string file = dir.path + "/" + Persister::kFileName;
  auto add_workspace = [&](const std::string& id) {
    r.store.Write([&](State& s) {
      model::Workspace w;
      w.id = id;
      w.accountId = "acc_1";
      s.workspaces.Insert(w);
    });
  };
  add_workspace("ws_2");
  std::promise<std::pair<bool, std::string>> told;
  r.store.OnDurable(*r.store.DurableTicket(), [&](bool ok) {
    told.set_value({ok, SqlValue(file, "select id from workspaces where id = 'ws_2'")});
  });
  const auto [ok, seen] = told.get_future().get();
  EXPECT_TRUE(ok);
  EXPECT_EQ(seen, "ws_2") << "told yes before the change was in the file";

  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &other), SQLITE_OK);
  sqlite3_busy_timeout(other, 60000);  // the writer may be committing the start's batch
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  add_workspace("ws_3");
  std::promise<bool> refused;
  r.store.OnDurable(*r.store.DurableTicket(), [&](bool ok) { refused.set_value(ok); });
  EXPECT_FALSE(refused.get_future().get());
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_EQ(SqlValue(file, "select id from workspaces where id = 'ws_3'"), "");
  add_workspace("ws_4");
  std::optional<bool> later;
  r.store.OnDurable(*r.store.DurableTicket(), [&](bool ok) { later = ok; });
  EXPECT_EQ(later, std::optional<bool>(false)) << "after a refusal every later answer is refused at once";
  EXPECT_THROW(r.store.AwaitDurable(), PersistError);
}

// The writer's id -> rowid index keeps 64-bit hashes, not ids: every operation on ids of one hash
// (here all of them) must still reach each id's own row, while running and after restarts.
TEST(Persist, IdsOfOneHashStillReachTheirOwnRows) {
  struct ForceOneHash {
    ForceOneHash() { runtime::RowidIndex::hash_for_tests = [](std::string_view) { return std::uint64_t{42}; }; }
    ~ForceOneHash() { runtime::RowidIndex::hash_for_tests = nullptr; }
  };
  TempDir dir;
  auto named = [](State& s, const std::string& id, const std::string& name) {
    if (auto* w = s.workspaces.Edit(id)) {
      w->name = name;
      return;
    }
    model::Workspace w;
    w.id = id;
    w.accountId = "acc_1";
    w.name = name;
    s.workspaces.Insert(w);
  };
  json expected;
  {
    ForceOneHash one;
    Running r(dir.path);
    r.store.Write([&](State& s) {
      for (int i = 0; i < 6; ++i) named(s, "ws_c" + std::to_string(i), "first");
    });
    r.store.Write([&](State& s) {
      named(s, "ws_c3", "renamed");
      named(s, "ws_c0", "renamed");
      s.workspaces.Erase("ws_c1");
      s.workspaces.Erase("ws_c4");
    });
    r.store.Write([&](State& s) { named(s, "ws_c4", "back"); });
    r.store.AwaitDurable();
    expected = r.store.Dump();
  }
  {
    ForceOneHash one;
    EXPECT_EQ(model::DumpState(Reopen(dir.path)), expected);
  }
  {
    // Restarted with the ids colliding again, changed, then read with the real hash.
    ForceOneHash one;
    Clock clock(ClockMode::kManual, 0);  // before the persister, whose writer reads it to the end
    Persister p(dir.path, Durability::kFull);
    Recovered saved = p.Read();
    Store store(p.Load(saved), SmallWorld());
    p.Start(clock);
    store.Persist(p, false);
    store.Write([&](State& s) {
      named(s, "ws_c5", "again");
      s.workspaces.Erase("ws_c0");
      named(s, "ws_c9", "new");
    });
    store.AwaitDurable();
    expected = store.Dump();
  }
  EXPECT_EQ(model::DumpState(Reopen(dir.path)), expected);
  EXPECT_EQ(SqlValue(dir.path + "/emsim.db", "select count(*) from workspaces where id like 'ws_c%'"), "5");  // c2 c3 c4 c5 c9
}

// RowidIndex against a plain map over random puts and erases, with its table growing and its
// entries shifting back into holes.
TEST(RowidIndex, AnswersAsAMapWouldThroughPutsAndErases) {
  runtime::RowidIndex index;
  std::unordered_map<std::string, std::int64_t> map;
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const std::string id = "id_" + std::to_string(rng() % 5000);
    if (rng() % 3 == 0) {
      index.Erase(id);
      map.erase(id);
    } else if (!map.count(id)) {
      ASSERT_TRUE(index.Put(id, i));
      map[id] = i;
    }
    if (i % 997 == 0) {
      for (int k = 0; k < 5000; ++k) {
        const std::string probe = "id_" + std::to_string(k);
        const auto it = map.find(probe);
        ASSERT_EQ(index.Find(probe), it == map.end() ? std::nullopt : std::optional<std::int64_t>(it->second)) << probe;
      }
      ASSERT_EQ(index.size(), map.size());
    }
  }
}

// Checkpoints run beside the writer, and past the limit the writer checkpoints itself: however
// long the writes go on, the WAL is reused from its start instead of growing, and what was
// written is all there.
TEST(Persist, TheWalStaysBoundedHoweverLongTheWritesGoOn) {
  TempDir dir;
  const int soft = 8, limit = 24;
  std::uintmax_t largest_wal = 0;
  {
    Running r(dir.path, Durability::kProcess, 0, {soft, limit});
    for (int i = 0; i < 300; ++i) {
      r.store.Write([&](State& s) {
        s.accounts.Edit("acc_1")->walletCents += 1;
        model::Workspace w;
        w.id = "ws_n" + std::to_string(i);
        w.accountId = "acc_1";
        w.name = std::string(900, 'x');  // about four rows to a page
        s.workspaces.Insert(w);
      });
      r.store.AwaitDurable();
      largest_wal = std::max(largest_wal, std::filesystem::file_size(dir.path + "/emsim.db-wal"));
    }
  }
  // Frames of 4 KiB pages and their 24-byte headers after a 32-byte header. A batch here dirties a
  // few pages, so the WAL may pass the limit by one batch before the writer's checkpoint; without
  // checkpoints it would hold 300 batches' frames (over 600).
  const std::uintmax_t frames = (largest_wal - 32) / (4096 + 24);
  EXPECT_LE(frames, static_cast<std::uintmax_t>(limit + 8)) << largest_wal << " bytes";
  const State back = Reopen(dir.path);
  EXPECT_EQ(back.workspaces.size(), 301u);
  EXPECT_EQ(back.accounts.Find("acc_1")->walletCents, 1300);
}

// Lists answer in insertion order; a restart must not change it (a tenant's workspaces, created in
// one transaction, once came back sorted by id).
TEST(Persist, RowsInsertedTogetherComeBackInTheirOrder) {
  TempDir dir;
  {
    Running r(dir.path);
    r.store.Write([](State& s) {
      for (const char* id : {"ws_z", "ws_b", "ws_m"}) {
        model::Workspace w;
        w.id = id;
        w.accountId = "acc_1";
        s.workspaces.Insert(w);
      }
    });
    r.store.AwaitDurable();
  }
  const State back = Reopen(dir.path);
  std::vector<std::string> ids;
  for (const auto& w : back.workspaces) ids.push_back(w.id);
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(ids.end() - 3, ids.end()), (std::vector<std::string>{"ws_z", "ws_b", "ws_m"}));
}

TEST(Persist, ResetIsDurableAndReturnsToTheBaseline) {
  TempDir dir;
  {
    Running r(dir.path, Durability::kProcess, 0);
    Store& store = r.store;
    store.Write([](State& s) { s.accounts.Edit("acc_1")->walletCents = 1; });
    store.Reset();
    store.AwaitDurable();
  }
  EXPECT_EQ(Reopen(dir.path).accounts.Find("acc_1")->walletCents, 1000);
}

TEST(Persist, TheClockIsSavedWithEveryBatch) {
  TempDir dir;
  {
    Running r(dir.path, Durability::kFull, 1000);
    r.clock.Set(5000);
    r.store.AwaitDurable();
  }
  Persister p(dir.path, Durability::kFull);
  const Recovered r = p.Read();
  ASSERT_TRUE(r.clock);
  EXPECT_EQ((*r.clock)["mode"], "manual");
  EXPECT_EQ((*r.clock)["epochMs"], 5000);
}

TEST(Persist, ANewDirectoryHasNoWorld) {
  TempDir dir;
  Persister p(dir.path, Durability::kFull);
  EXPECT_FALSE(p.HasData());
}

TEST(Persist, RowsWithoutACommittedBatchAreNeverWrittenOver) {
  TempDir dir;
  WriteWorld(dir.path);
  // The marker every batch writes, gone (a hand edit, a damaged write): the rows are still data.
  Sql(dir.path + "/emsim.db", "DELETE FROM meta WHERE name='batch'");
  Persister p(dir.path, Durability::kFull);
  EXPECT_THROW(
      try { p.HasData(); } catch (const PersistError& e) {
        EXPECT_NE(std::string(e.what()).find("has rows but the file has no committed batch"), std::string::npos) << e.what();
        throw;
      },
      PersistError);
}

TEST(Persist, ASecondEmsimOnTheDirectoryIsRefusedNamingTheFirstsPid) {
  TempDir dir;
  Persister first(dir.path, Durability::kFull);
  try {
    Persister second(dir.path, Durability::kFull);
    FAIL() << "opened twice";
  } catch (const PersistError& e) {
    EXPECT_NE(std::string(e.what()).find("pid " + std::to_string(::getpid())), std::string::npos) << e.what();
  }
}

TEST(Persist, ARowThatIsNotARecordIsRefusedNamingFileTableAndId) {
  TempDir dir;
  WriteWorld(dir.path);
  const std::string file = dir.path + "/emsim.db";
  Sql(file, "UPDATE workspaces SET body='{\"id\":\"ws_1\",' WHERE id='ws_1'");
  const std::string m = ReadRefusal(dir.path);
  ASSERT_NE(m, "") << "a torn row was read";
  EXPECT_NE(m.find(file), std::string::npos) << m;
  EXPECT_NE(m.find("table workspaces, id ws_1"), std::string::npos) << m;
}

TEST(Persist, ARowThatBreaksTheWorldsRulesIsNamedByTableAndId) {
  TempDir dir;
  WriteWorld(dir.path);
  Sql(dir.path + "/emsim.db", "UPDATE accounts SET body=json_set(body, '$.walletCents', 'lots') WHERE id='acc_1'");
  Persister p(dir.path, Durability::kFull);
  Recovered r = p.Read();
  try {
    p.Load(r);
    FAIL() << "a wallet of text was loaded";
  } catch (const PersistError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("table accounts, id acc_1"), std::string::npos) << m;
  }
}

TEST(Persist, AFileOfANewerFormatOrNotEmsimsIsRefused) {
  TempDir newer, foreign;
  Sql(newer.path + "/emsim.db", "PRAGMA user_version=99");
  EXPECT_THROW(Persister(newer.path, Durability::kFull), PersistError);
  Sql(foreign.path + "/emsim.db", "CREATE TABLE notes(x)");
  try {
    Persister p(foreign.path, Durability::kFull);
    FAIL() << "wrote over a foreign file";
  } catch (const PersistError& e) {
    EXPECT_NE(std::string(e.what()).find("not emsim's file"), std::string::npos) << e.what();
  }
}

TEST(Persist, AFlippedBitInsideABodyIsRefusedNamingTableAndId) {
  TempDir dir;
  WriteWorld(dir.path);  // a whole world is checkpointed: the rows are in the main file
  const std::string file = dir.path + "/emsim.db";
  std::string bytes = FileText(file);
  const size_t at = bytes.find("\"name\":\"One\"");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 9] ^= 0x01;  // "One" -> "Nne": still JSON, still a valid workspace, still the right id
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  const std::string m = ReadRefusal(dir.path);  // the pages are whole: quick_check passes
  ASSERT_NE(m, "") << "a damaged body was read as data";
  EXPECT_NE(m.find("table workspaces, id ws_1: the body does not match its checksum"), std::string::npos) << m;
}

// A page added to the file and counted in its header, in no table and not free: every row is whole
// and reads back, so only the file's check sees it ("Page N is never used").
void AddAPageNothingUses(const std::string& file) {
  std::string bytes = FileText(file);
  const size_t page = std::stoul(SqlValue(file, "PRAGMA page_size"));
  ASSERT_EQ(bytes.size() % page, 0u);
  const std::uint32_t pages = static_cast<std::uint32_t>(bytes.size() / page) + 1;
  for (int i = 0; i < 4; ++i) bytes[28 + i] = static_cast<char>(pages >> (8 * (3 - i)));  // big-endian, at 28
  bytes.append(page, '\0');
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(Persist, DamageTheRowsDoNotShowStopsTheStartBeforeAnythingIsWritten) {
  TempDir dir;
  WriteWorld(dir.path);
  const std::string file = dir.path + "/emsim.db";
  AddAPageNothingUses(file);
  const std::string damaged = FileText(file);
  {
    Persister p(dir.path, Durability::kFull);
    ASSERT_TRUE(p.HasData());
    Recovered r = p.Read();  // the check runs beside the read and the load
    const State world = p.Load(r);
    EXPECT_EQ(world.workspaces.Find("ws_1")->name, "One");
    Clock clock(ClockMode::kManual, 0);
    try {
      p.Start(clock);
      FAIL() << "a file that fails its check was started";
    } catch (const PersistError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(file + ": the integrity check failed"), std::string::npos) << m;
    }
  }
  EXPECT_EQ(FileText(file), damaged) << "the refused file was written";
}

TEST(Persist, AFileWithDamagedRowsAndPagesIsRefusedForItsPages) {
  TempDir dir;
  WriteWorld(dir.path);
  const std::string file = dir.path + "/emsim.db";
  AddAPageNothingUses(file);
  std::string bytes = FileText(file);
  bytes[bytes.find("\"name\":\"One\"") + 9] ^= 0x01;  // a body that no longer matches its checksum
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  const std::string m = ReadRefusal(dir.path);
  ASSERT_NE(m, "") << "a damaged file was read";
  EXPECT_NE(m.find(file + ": the integrity check failed"), std::string::npos) << m;
}

TEST(Persist, ABodyEditedByHandWithSqliteIsReadUnchecked) {
  TempDir dir;
  WriteWorld(dir.path);
  const std::string file = dir.path + "/emsim.db";
  Sql(file, "UPDATE workspaces SET body=json_set(body, '$.name', 'Renamed') WHERE id='ws_1'");
  EXPECT_EQ(SqlValue(file, "SELECT quote(sum) FROM workspaces WHERE id='ws_1'"), "NULL");  // the trigger cleared it
  EXPECT_EQ(Reopen(dir.path).workspaces.Find("ws_1")->name, "Renamed");
  // Rows emsim writes itself keep theirs.
  EXPECT_EQ(SqlValue(file, "SELECT count(*) FROM accounts WHERE sum IS NULL"), "0");
}

TEST(Persist, ADataDirOfFormatOneIsMigratedAndReadsTheSameWorld) {
  TempDir dir;
  const std::string file = dir.path + "/emsim.db";
  Sql(file, FileText(std::string(EMSIM_SOURCE_DIR) + "/server/tests/runtime/data/persist-format-v1.sql"));
  ASSERT_EQ(SqlValue(file, "PRAGMA user_version"), "1");
  {
    Persister p(dir.path, Durability::kFull);
    ASSERT_TRUE(p.HasData());
    Recovered r = p.Read();
    const State s = p.Load(r);
    EXPECT_EQ(s.accounts.Find("acc_alice")->walletCents, 24800);
    ASSERT_EQ(s.placementTests.size(), 1u);
    EXPECT_EQ(s.placementTests.begin()->mailboxId, "mbx_nw_01_01");
    EXPECT_EQ(s.webhookEndpoints.size(), 1u);
    EXPECT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.deliveries.size(), 2u);
    EXPECT_EQ(s.mailboxes.size(), 114u);
    EXPECT_EQ(r.batch, std::stoll(SqlValue(file, "SELECT body FROM meta WHERE name='batch'")));
  }
  EXPECT_EQ(SqlValue(file, "PRAGMA user_version"), std::to_string(Persister::kFormatVersion));
  EXPECT_EQ(SqlValue(file, "SELECT count(*) FROM mailboxes WHERE sum IS NULL"), "0");
  EXPECT_EQ(SqlValue(file, "SELECT count(*) FROM sqlite_schema WHERE type='trigger'"), "22");  // 21 tables and meta
  EXPECT_EQ(SqlValue(file, "SELECT count(*) FROM walletMovements"), "0");  // the ledger's table, new in format 2
  // Migrated once: a second open finds the current format and the same world.
  EXPECT_EQ(Reopen(dir.path).accounts.Find("acc_alice")->walletCents, 24800);
}

// Format 2 (FNV-1a checksums) as emsim at 9dcd8a9 wrote it (data/persist-format-v2.sql says how):
// migrated in place to the checksum of format 3, the same world read back.
TEST(Persist, ADataDirOfFormatTwoIsMigratedAndReadsTheSameWorld) {
  TempDir dir;
  const std::string file = dir.path + "/emsim.db";
  Sql(file, FileText(std::string(EMSIM_SOURCE_DIR) + "/server/tests/runtime/data/persist-format-v2.sql"));
  ASSERT_EQ(SqlValue(file, "PRAGMA user_version"), "2");
  const std::string v2_sum = SqlValue(file, "SELECT sum FROM mailboxes WHERE id='mbx_nw_01_01'");
  {
    Persister p(dir.path, Durability::kFull);
    ASSERT_TRUE(p.HasData());
    Recovered r = p.Read();
    const State s = p.Load(r);
    EXPECT_EQ(s.accounts.Find("acc_alice")->walletCents, 24800);
    EXPECT_EQ(s.placementTests.size(), 1u);
    EXPECT_EQ(s.webhookEndpoints.size(), 1u);
    EXPECT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.deliveries.size(), 2u);
    EXPECT_EQ(s.events.size(), 2u);
    EXPECT_EQ(s.walletMovements.size(), 1u);
    EXPECT_EQ(s.mailboxes.size(), 114u);
  }
  EXPECT_EQ(SqlValue(file, "PRAGMA user_version"), "3");
  EXPECT_NE(SqlValue(file, "SELECT sum FROM mailboxes WHERE id='mbx_nw_01_01'"), v2_sum);
  EXPECT_EQ(SqlValue(file, "SELECT count(*) FROM mailboxes WHERE sum IS NULL"), "0");
  EXPECT_EQ(Reopen(dir.path).accounts.Find("acc_alice")->walletCents, 24800);
}

// A row damaged under format 2 (its body no longer matches its sum) is still refused after the
// migration: the new sum is not computed over the damage.
TEST(Persist, ARowDamagedUnderFormatTwoStaysRefusedAfterTheMigration) {
  TempDir dir;
  const std::string file = dir.path + "/emsim.db";
  Sql(file, FileText(std::string(EMSIM_SOURCE_DIR) + "/server/tests/runtime/data/persist-format-v2.sql"));
  Sql(file, "UPDATE mailboxes SET sum=sum+1 WHERE id='mbx_nw_01_02'");  // the body's bits, as the sum sees them
  const std::string m = ReadRefusal(dir.path);
  ASSERT_NE(m, "") << "a damaged row was read";
  EXPECT_NE(m.find("table mailboxes, id mbx_nw_01_02"), std::string::npos) << m;
  EXPECT_NE(m.find("checksum"), std::string::npos) << m;
}

}  // namespace
}  // namespace emsim::runtime
