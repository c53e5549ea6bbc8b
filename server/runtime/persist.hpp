#pragma once
// Durable state (--data-dir): the world kept in one SQLite database, DIR/emsim.db, in WAL mode.
//
// Every write transaction of the store hands its change set (the rows it may have changed, the
// jobs it scheduled and removed, the appended events, deliveries and notifications, the scalar
// parts) to the Persister under the store's lock, so change sets queue in commit order. One writer
// thread commits whatever has queued as one SQLite transaction (group commit: one fsync for many
// requests); a request's answer is sent only after that (sent by the writer: OnDurable; or after
// Sync), so an answer means durable. Reads never wait for the disk.
//
// The file is for people too: one table per kind of record, each row the record's JSON as
// GET /_sim/state shows it (`sqlite3 DIR/emsim.db "select id, body->>'status' from domains"`).
// At start the rows are assembled into a state document and loaded by model::LoadState, so a row
// is checked exactly as a state load or fixture is.
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/flat_table.hpp"
#include "model/state.hpp"
#include "runtime/clock.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace emsim::runtime {

// full: synchronous=FULL, an answer survives a power cut; process: synchronous=NORMAL, it
// survives the process being killed, not the machine losing power.
enum class Durability { kFull, kProcess };
// The names --durability takes and GET /_sim/health answers.
std::string ToString(Durability d);

struct PersistError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One row written (body set) or deleted (body empty). `table` indexes kTables (persist.cpp).
struct RowChange {
  std::uint8_t table = 0;
  std::string id;        // the record's id (Table<T> kinds), or the job's seq as text
  std::int64_t key = 0;  // the position (events, deliveries, notifications) or the job's seq
  std::optional<std::string> body;
  // The body's checksum (format 2), computed by the request thread that collected the row: the
  // one writer thread is what every durable answer waits for, so it only writes.
  std::int64_t sum = 0;
  bool below = false;  // a log's rows at positions below `key` deleted (retention)
};

// Where a log stood when a write transaction began: its end and its first retained position, both
// counted over the whole history (State::trimmed).
struct LogMark {
  std::uint64_t end = 0, trimmed = 0;
};

struct ChangeSet {
  bool replace = false;     // the whole world: every table emptied first (reset, state load)
  std::vector<RowChange> rows;
  json meta = json::object();  // meta rows by name (nextJobSeq, faults, ...)
  // The id generator's seed and counter, when they moved (nearly every write: kept as numbers, not
  // built as a meta document per write; the writer makes the "ids" row once a batch).
  std::optional<std::array<std::uint64_t, 2>> ids;
};

// What the file held when it was opened.
struct Recovered {
  // A state document (model::DumpState's keys), for model::LoadState: the scalar parts, and the
  // record tables and logs too when `lists` is not set.
  json state;
  // The record tables, logs and jobs, read row by row straight into records (model::ReadRecordText)
  // and not yet checked: model::LoadState(state, lists) checks them with the rest.
  std::optional<model::State> lists;
  std::optional<json> clock;  // {mode, epochMs, offsetMs} as last written
  std::int64_t batch = 0;     // the number of the last committed batch
};

// The rowid of each record's row in a table keyed by id, for the writer (the file has no index on
// id: persist.cpp, CreateTableSql). A flat table (core/flat_table) over the ids' 64-bit hashes,
// 16 bytes a slot: a std::unordered_map<std::string, int64_t> took ~120 bytes and two allocations
// a row, and its lookups were 11% of the writer's time and 12% of a restart's. Two ids of one hash
// are not told apart by the slots: the writer's statements name the id as well as the rowid, so a
// row found holding another id shows it, and such an id is then kept in `collided`, by its text.
class RowidIndex {
 public:
  // The rowid of `id`'s row, or of another id of the same hash (the statement then finds out).
  std::optional<std::int64_t> Find(std::string_view id) const;
  // False, changing nothing, when the slot of `id`'s hash is taken.
  bool Put(std::string_view id, std::int64_t rowid) { return PutHash(HashOf(id), rowid); }
  bool PutHash(std::uint64_t hash, std::int64_t rowid);
  static std::uint64_t HashOf(std::string_view id);
  void Erase(std::string_view id);
  void Clear();
  void Reserve(size_t rows);
  size_t size() const { return slots_.size() + collided.size(); }

  std::unordered_map<std::string, std::int64_t> collided;

  // Tests set it to make ids collide (a real 64-bit collision cannot be written down).
  static inline std::uint64_t (*hash_for_tests)(std::string_view) = nullptr;

 private:
  // hash of the id (0 is stored as 1: the table's empty key) -> rowid
  core::FlatTable<std::uint64_t, std::int64_t, core::IdentityHome> slots_;
};

class Persister {
 public:
  // PRAGMA user_version. 1: a table per kind, JSON bodies. 2: a checksum (`sum`) per row, FNV-1a.
  // 3: the checksum a word at a time (persist.cpp, RowSum).
  static constexpr int kFormatVersion = 3;
  static constexpr const char* kFileName = "emsim.db";
  static constexpr const char* kLockName = "emsim.lock";

  // Creates DIR when missing, takes DIR/emsim.lock (refusing, with the holder's pid, when another
  // emsim has it), opens the database, checks it (PRAGMA quick_check, the format version) and
  // creates the tables of a new one. Throws PersistError naming the file and what is wrong.
  Persister(std::string dir, Durability durability);
  ~Persister();  // commits what is queued, then stops the writer
  Persister(const Persister&) = delete;
  Persister& operator=(const Persister&) = delete;

  const std::string& path() const { return path_; }
  // What opening the file recovered of a torn WAL ("" when nothing was dropped).
  const std::string& walReport() const { return wal_report_; }

  // Whether the file holds a world (a first snapshot committed). Throws PersistError for a file
  // with rows but no committed batch: emsim never starts empty over data.
  bool HasData();
  // Reads every row; throws PersistError naming the file, the table and the id of a row that is
  // not a JSON record. Each row becomes its record directly (Recovered::lists); when a row needs
  // the document to say what it means (one from_json refuses, a duplicate id), every row is read
  // into the document instead (`document`, or when asked), so what is wrong is reported exactly as
  // a state load reports it. Either is then checked by model::LoadState.
  Recovered Read(bool document = false);

  // The world `saved` holds, checked by model::LoadState (what emsim's start does with Read's
  // answer). Throws PersistError naming the file, and the table and id of the row concerned.
  model::State Load(Recovered& saved);

  // A model::LoadState message about the document Read made, with the table and the id of the row
  // it concerns ("state.domains[3]: ..." names a position of the document, not of the file).
  std::string Describe(const std::string& load_error, const json& state) const;

  // Starts the writer thread (and the checkpointer's); the clock is written with every batch.
  // First waits for the file's integrity check: throws PersistError when it found damage.
  void Start(const Clock& clock);
  // Before Start: the WAL's size, in frames, at which a checkpoint is asked for, and past which the
  // writer checkpoints itself (defaults: 5,000 and 40,000 frames of 4 KiB). Tests make them small.
  void SetCheckpointFrames(int soft, int hard) {
    checkpoint_frames_ = soft;
    wal_limit_frames_ = hard;
  }

  // ---- under the store's write lock ----------------------------------------------------------
  // Turns on the change notes of `s` (after it was created, loaded or replaced) and forgets old ones.
  static void Track(model::State& s);
  // The start of a write transaction: where the append-only parts end now.
  void Mark(const model::State& s);
  // The end of one: what it changed, queued.
  void Collect(model::State& s);
  // The whole of `s`, queued (reset, state load, the first start).
  void CollectAll(const model::State& s);

  // Waits until everything queued before the call, and the clock as it is now, is committed.
  // Throws PersistError when the disk refused a batch (the answer must then not say "done").
  void Sync();
  // What Sync waits for, without waiting: the ticket of everything queued before the call (and
  // of the clock as it is now), and then `done(true)` once it is committed, `done(false)` when the
  // disk refused it or the writer stopped first. `done` runs once, on the writer's thread after
  // the batch's commit (or on the caller's, at once, when that is already decided): it must not
  // block. The connection of a durable answer sends it from there (http/connection.hpp).
  std::uint64_t Ticket();
  // Record rows put or deleted so far (not counting the scalar parts, trims and clearings).
  std::uint64_t RowsWritten() const { return rows_written_.load(std::memory_order_relaxed); }
  bool Failed() const { return failed_flag_.load(); }
  // What the writer has done since this emsim started, for GET /_sim/health: a long-running emsim's
  // owner sees that its writes reach the file, how many requests a commit carries, and, once the
  // disk has refused a batch, why every write is refused since.
  struct Stats {
    std::uint64_t batches = 0;     // SQLite transactions committed (group commits)
    std::uint64_t changeSets = 0;  // the write transactions those carried (a request's writes are one)
    std::uint64_t rowsWritten = 0;
    int walFrames = 0;             // the WAL's frames after the last commit (4 KiB each)
    std::string error;             // why the disk refused a batch; "" while it has not
  };
  Stats stats();
  Durability durability() const { return durability_; }
  void OnDurable(std::uint64_t ticket, std::function<void(bool)> done);

 private:
  struct Pending {
    ChangeSet changes;
    std::uint64_t ticket;
  };
  void Enqueue(ChangeSet changes);
  void WriterLoop();
  void CheckpointLoop();
  // After each commit and its answers, before the writer's next step: wakes the checkpointer, or,
  // when the WAL has outgrown it, checkpoints on the writer's own connection.
  void AfterCommit();
  void CommitBatch(std::deque<Pending>& batch);
  // How a batch writes a row of a table keyed by id that several of its change sets write, none
  // deleting it: once, where the first write was (so a new row takes the place it would have
  // taken), with the last write's body. Each purchase rewrote its account's row (the credits),
  // nine times in a batch of nine. Per row of `batch`, in order: null to write it as queued, the
  // row to write in its place, or kSkipRow (persist.cpp) to leave it out. Empty: all as queued.
  static std::vector<const RowChange*> Coalesce(const std::deque<Pending>& batch);
  void Exec(const char* sql);
  template <class Row>
  void Query(sqlite3* db, const std::string& sql, Row&& row) const;
  json ParseBody(const std::string& table, const std::string& id, sqlite3_stmt* st, int sum_col) const;
  json ReadTable(sqlite3* db, size_t table, std::uint64_t first_pos);
  // The rows of a table straight into `s`'s list of it; false when one needs the document.
  bool ReadRecords(sqlite3* db, size_t table, std::uint64_t first_pos, model::State& s);
  template <class T, class Slot, class Done>
  bool ReadRows(sqlite3* db, size_t table, std::uint64_t first_pos, Slot&& slot, Done&& done);
  json RecordBody(const std::string& table, const std::string& id, sqlite3_stmt* st) const;
  void CheckKey(size_t table, std::string_view raw_id, const std::string_view* body_id, std::uint64_t pos) const;
  // The rowid of the row of `id` in a table keyed by id, found by reading the table (a hash collision).
  std::optional<std::int64_t> ScanRowid(std::uint8_t table, const std::string& id);
  std::string RowsSql(size_t table) const;
  void CheckSum(std::string_view table, std::string_view id, sqlite3_stmt* st, int sum_col) const;
  void CreateTables();
  void Migrate(int from);
  void TakeLock();

  std::string dir_, path_, wal_report_;
  Durability durability_;
  int lock_fd_ = -1;
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> put_, update_, del_, clear_, trim_;  // per table of kTables
  // The rowid of each record's row, per table keyed by id (the writer's; filled by Read).
  std::vector<RowidIndex> rowids_;
  // What the read found, per table: {hash of the id, rowid} in row order. Indexing them was 8% of
  // a restart's CPU (a cache miss a row, interleaved with the parsing); a thread of its own does
  // it while the start checks the world, and Start waits for it before the writer runs.
  std::vector<std::vector<std::pair<std::uint64_t, std::int64_t>>> read_rowids_;
  std::vector<std::vector<std::int64_t>> collided_rowids_;  // rows whose hash another row had
  std::thread rowid_builder_;
  void BuildRowids();
  void AwaitRowids();

  // PRAGMA quick_check of a file already in this emsim's format runs on a thread of its own while
  // the world is read and loaded (it was ~15% of a restart, on one core while the other waited):
  // Read's helper runs it once its tables are read. Start waits for it, so nothing is served or
  // written before it passed. A file about to be written first (a new one, a migration) is checked
  // before that, in the constructor. An error of the read or the load is reported only once the
  // check has run, and the check's first: a damaged file is refused for its damage, not for the
  // row it happened to garble.
  std::string QuickCheck(sqlite3* db) const;  // the problems found ("" none); throws when it cannot run
  sqlite3* OpenForReading() const;  // a read-only connection with the start's memory map
  void RunCheck(sqlite3* db) noexcept;  // on `db` (else a connection of its own); keeps the error
  void StartCheck();  // on a thread of its own, unless it was started
  void AwaitCheck();  // throws the check's PersistError
  template <class F>
  auto Checked(F&& f) -> decltype(f());
  bool HasDataUnchecked();
  Recovered ReadUnchecked(bool document);
  model::State LoadUnchecked(Recovered& saved);
  std::thread checker_;
  bool check_started_ = false, check_done_ = false;
  std::exception_ptr check_error_;
  sqlite3_stmt* put_meta_ = nullptr;
  // A batch's BEGIN IMMEDIATE and COMMIT, prepared once (sqlite3_exec parsed them every batch).
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;

  // The scalar parts (ids, job and fault counters, faults, trimmed) as the last change set queued
  // them (under the store's lock): a change set carries only those that differ from it.
  // Null before the first change set.
  struct Scalars;
  std::unique_ptr<Scalars> queued_scalars_;

  // Append-only parts at the start of the open write transaction.
  std::vector<LogMark> log_marks_;  // per table of kTables; only the logs' are used

  const Clock* clock_ = nullptr;
  std::mutex mu_;
  std::condition_variable queued_cv_;
  std::deque<Pending> queue_;  // not yet taken by the writer
  std::uint64_t next_ticket_ = 1;
  // OnDurable's callbacks not yet due, under mu_; run by the writer after each batch.
  std::vector<std::pair<std::uint64_t, std::function<void(bool)>>> on_durable_;
  // The writer's: the callbacks a batch made due, run outside mu_.
  void RunDue(bool failed);
  std::atomic<std::uint64_t> committed_{0};  // the last ticket on disk
  std::atomic<std::uint64_t> rows_written_{0};
  std::uint64_t batches_committed_ = 0, change_sets_committed_ = 0;  // under mu_ (Stats)
  std::atomic<bool> failed_flag_{false};
  std::atomic<std::uint64_t> batches_done_{0};  // what waiters sleep on: +1 per batch, done or failed
  std::int64_t batches_ = 0;
  std::string failed_;  // the error that stopped the writer, if any
  bool stop_ = false;
  std::thread writer_;

  // Checkpoints (the WAL's pages copied into the main file) run on a connection and a thread of
  // their own, so the writer, which every durable answer waits for, only appends to the WAL: they
  // were 10% of its time, and each one held every waiting answer for its length (the p99).
  sqlite3* checkpoint_db_ = nullptr;  // null: the writer checkpoints itself (SQLite's automatic one)
  std::thread checkpointer_;
  std::mutex checkpoint_mu_;
  // Held while a checkpoint runs, by either thread: SQLite answers a checkpoint that finds another
  // one running with SQLITE_BUSY at once (its busy handler is not asked), so the writer's own
  // (past the limit, after a whole world) would be skipped. The writer's connection has no busy
  // handler: a RESTART that meets a long reader (a backup with sqlite3) copies what it can and is
  // tried again after the next commit, instead of holding every answer while the reader reads.
  std::mutex checkpoint_run_mu_;
  std::condition_variable checkpoint_cv_;
  bool checkpoint_wanted_ = false, checkpoint_stop_ = false;
  std::atomic<int> wal_frames_{0};  // the WAL's frames after the last commit (sqlite3_wal_hook)
  // The checkpointer's last run copied every frame it saw (AfterCommit then copies the rest).
  std::atomic<bool> caught_up_{false};
  // A checkpoint is asked for once the WAL holds this many frames (~20 MB); past the limit the
  // writer checkpoints itself, so the WAL stays bounded when the checkpointer cannot keep up (one
  // that never catches up never lets the WAL start over). Why 5,000, not SQLite's 1,000 nor the
  // 10,000 it was: a checkpoint's fsync of the main file stalls the WAL's fsyncs behind it (traced:
  // commits of 10-16 ms during a run of 25-31 ms at 10,000 frames, and the writer's catch-up up to
  // 28 ms), so its size is the durable POST's p99; at 5,000 the p99 was 7.2-7.8 ms against 8-21 ms
  // (FULL, three alternating pairs, throughput alike), while 1,000-3,000 cost ~4% of throughput.
  int checkpoint_frames_ = 5000, wal_limit_frames_ = 40000;
};

}  // namespace emsim::runtime
