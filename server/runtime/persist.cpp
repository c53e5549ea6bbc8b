#include "runtime/persist.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <latch>
#include <regex>

#include "core/hash.hpp"
#include "core/json_limits.hpp"
#include "runtime/log.hpp"
#include "runtime/wal_gather.hpp"
#include "core/thread_name.hpp"

namespace emsim::runtime {

namespace {

// Coalesce's mark for a write that a batch leaves out.
const RowChange kSkipRow{};

// How a kind of record is keyed in its table.
enum class Shape {
  kById,        // Table<T>: `id` is the key; rows in insertion order (rowid)
  kByPosition,  // an append-only list: `pos` is the index
  kJobs,        // State::jobs: `seq` is the key
};

struct TableSpec {
  const char* name;  // also the key of the state document (model::DumpState)
  Shape shape;
};

// The order is the index RowChange::table uses; the record tables come first in the order
// ForEachRecordTable visits them.
constexpr TableSpec kTables[] = {
    {"accounts", Shape::kById},         {"workspaces", Shape::kById},       {"domains", Shape::kById},
    {"mailboxes", Shape::kById},        {"subscriptions", Shape::kById},    {"dnsShield", Shape::kById},
    {"emails", Shape::kById},           {"invoices", Shape::kById},         {"placementCarts", Shape::kById},
    {"placementTests", Shape::kById},   {"exports", Shape::kById},          {"thirdPartyAccounts", Shape::kById},
    {"tenants", Shape::kById},          {"checkouts", Shape::kById},        {"webhookEndpoints", Shape::kById},
    {"sinks", Shape::kById},            {"events", Shape::kByPosition},     {"deliveries", Shape::kByPosition},
    {"notifications", Shape::kByPosition}, {"jobs", Shape::kJobs},        {"walletMovements", Shape::kByPosition},
};
constexpr std::uint8_t kEvents = 16, kDeliveries = 17, kNotifications = 18, kJobsTable = 19, kWalletMovements = 20;
constexpr size_t kTableCount = sizeof(kTables) / sizeof(kTables[0]);

template <class S, class F>
void ForEachRecordTable(S& s, F&& f) {
  std::uint8_t i = 0;
  f(i++, s.accounts);
  f(i++, s.workspaces);
  f(i++, s.domains);
  f(i++, s.mailboxes);
  f(i++, s.subscriptions);
  f(i++, s.dnsShield);
  f(i++, s.emails);
  f(i++, s.invoices);
  f(i++, s.placementCarts);
  f(i++, s.placementTests);
  f(i++, s.exports);
  f(i++, s.thirdPartyAccounts);
  f(i++, s.tenants);
  f(i++, s.checkouts);
  f(i++, s.webhookEndpoints);
  f(i++, s.sinks);
}

// The append-only logs, each with its table and the count of its entries retention dropped.
template <class S, class F>
void ForEachLog(S& s, F&& f) {
  f(kEvents, s.events, s.trimmed.events);
  f(kDeliveries, s.deliveries, s.trimmed.deliveries);
  f(kNotifications, s.notifications, s.trimmed.notifications);
  f(kWalletMovements, s.walletMovements, s.trimmed.walletMovements);
}

template <class T>
std::string Body(const T& record) {
  std::string text;
  // Room for most rows at once (a placement test's is ~300 bytes): grown from empty, a row's text
  // was reallocated five times, under the store's lock.
  text.reserve(512);
  model::AppendRecordJson(text, record);  // dump()'s bytes without building the document
  return text;
}

// As much of the file as SQLite maps (its build caps it; Debian's at 2 GB): the rest is read.
constexpr std::int64_t kStartMmapBytes = std::int64_t{16} << 30;

// The checksum of a row's body: SQLite checks its pages' structure (PRAGMA quick_check) but not
// the values in them, so a flipped bit inside a JSON string would otherwise be served as data.
// Stored as the int64 with the same bits.
//
// Format 3: a step per 8-byte word, h = rotl((h ^ w) * odd, 29), from the length. Each step is a
// bijection of h for a given word and of the word for a given h, so any change within one word
// always changes the sum (any number of flipped bits), other changes with probability 1 - 2^-64.
// Format 2 hashed byte by byte (FNV-1a, ~5 cycles a byte: 12% of a restart's CPU); this is ~0.6.
std::int64_t RowSum(std::string_view body) {
  constexpr std::uint64_t kOdd = 0xff51afd7ed558ccdULL;
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ body.size();
  const char* p = body.data();
  size_t left = body.size();
  for (; left >= 8; p += 8, left -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = std::rotl((h ^ w) * kOdd, 29);
  }
  std::uint64_t w = 0;
  if (left) std::memcpy(&w, p, left);  // (an empty body's data() may be null)
  h = std::rotl((h ^ w) * kOdd, 29);
  h ^= h >> 33;  // the last words reach the low bits too
  h *= kOdd;
  h ^= h >> 33;
  return static_cast<std::int64_t>(h);
}

// Format 2's checksum, for the migration to 3 (a row that does not match it stays damaged).
std::int64_t RowSumV2(std::string_view body) { return static_cast<std::int64_t>(core::Fnv1a64(body)); }

// A row written: its body and the body's checksum.
RowChange Put(std::uint8_t table, std::string id, std::int64_t key, std::string body) {
  RowChange r{table, std::move(id), key, std::move(body)};
  r.sum = RowSum(*r.body);
  return r;
}

// A table emptied: a RowChange with no id and no body and key -1.
RowChange ClearTable(std::uint8_t table) { return {table, "", -1, std::nullopt}; }
bool ClearsTable(const RowChange& r) { return r.key == -1 && r.id.empty() && !r.body; }

// Whether a batch holds a whole world (the first start, a reset, a state load).
template <class Batch>
bool WritesWholeWorld(const Batch& batch) {
  return std::any_of(batch.begin(), batch.end(), [](const auto& p) { return p.changes.replace; });
}

// A log's rows since a write transaction began: the entries retention dropped (positions below
// `trimmed`) deleted, the entries appended written. Positions count the whole history
// (State::trimmed), so a row keeps its position when older ones go.
template <class List>
void AppendLog(std::vector<RowChange>& rows, std::uint8_t table, const List& list, std::uint64_t trimmed,
               const LogMark& mark) {
  std::uint64_t from = std::max(mark.end, trimmed);
  if (trimmed + list.size() < mark.end || trimmed < mark.trimmed) {
    // shrank: only a replace does that, which rewrites it whole
    rows.push_back(ClearTable(table));
    from = trimmed;
  } else if (trimmed > mark.trimmed) {
    RowChange below{table, "", static_cast<std::int64_t>(trimmed), std::nullopt};
    below.below = true;
    rows.push_back(std::move(below));
  }
  for (std::uint64_t pos = from; pos < trimmed + list.size(); ++pos)
    rows.push_back(Put(table, list[pos - trimmed].id, static_cast<std::int64_t>(pos), Body(list[pos - trimmed])));
}

LogMark MarkOf(std::uint64_t trimmed, size_t size) { return {trimmed + size, trimmed}; }

RowChange JobRow(const model::Job& job) {
  return Put(kJobsTable, job.kind, static_cast<std::int64_t>(job.seq), Body(job));
}

// A table of format 2: the key of its shape, the body and its checksum.
// No index on id (kById): the writer knows each id's rowid (rowids_), so every new row is appended
// at the end of the table. A unique index on random ids (UUIDs) made each insert touch a random
// page, which the WAL then had to write (measured on a machine like CI's: 62k against 8.8k rows/s).
std::string CreateTableSql(const TableSpec& t) {
  const std::string q = std::string("\"") + t.name + "\"";
  switch (t.shape) {
    case Shape::kById: return "CREATE TABLE " + q + "(id TEXT NOT NULL, body TEXT NOT NULL, sum INTEGER);";
    case Shape::kByPosition: return "CREATE TABLE " + q + "(pos INTEGER PRIMARY KEY, id TEXT, body TEXT NOT NULL, sum INTEGER);";
    case Shape::kJobs: return "CREATE TABLE " + q + "(seq INTEGER PRIMARY KEY, kind TEXT, body TEXT NOT NULL, sum INTEGER);";
  }
  return "";
}

std::string SqliteError(sqlite3* db) { return db ? sqlite3_errmsg(db) : "out of memory"; }

// emsim_sum(body) and emsim_sum_v2(body): RowSum and format 2's in SQL, for the migrations (they
// exist only on emsim's own connection).
template <std::int64_t (*Sum)(std::string_view)>
void SqlRowSum(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const auto* text = sqlite3_value_text(argv[0]);
  const int bytes = sqlite3_value_bytes(argv[0]);
  if (!text) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, Sum(std::string_view(reinterpret_cast<const char*>(text), static_cast<size_t>(bytes))));
}

// A person editing a body with sqlite3 (README "Persistence": prepare a world while emsim is
// stopped) cannot compute its checksum: the edit clears it, and a row without one is read
// unchecked. emsim's writer sets body and sum together, so the trigger leaves its updates alone.
std::string HandEditTrigger(const std::string& table) {
  const std::string q = "\"" + table + "\"";
  return "CREATE TRIGGER \"" + table + "_edited_by_hand\" AFTER UPDATE OF body ON " + q +
         " WHEN NEW.sum IS OLD.sum AND NEW.body IS NOT OLD.body BEGIN UPDATE " + q +
         " SET sum=NULL WHERE rowid=NEW.rowid; END;";
}

}  // namespace

std::string ToString(Durability d) { return d == Durability::kFull ? "full" : "process"; }

// ---- open --------------------------------------------------------------------------------------

Persister::Persister(std::string dir, Durability durability)
    : dir_(std::move(dir)), path_(dir_ + "/" + kFileName), durability_(durability) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw PersistError("data dir " + dir_ + ": " + ec.message());
  TakeLock();
  rowids_.resize(kTableCount);
  log_marks_.resize(kTableCount);
  // The WAL as found: what SQLite's recovery keeps of it is compared with it below, so a torn
  // tail (a write that never committed, so never answered) is reported, not silently dropped.
  const std::string wal = path_ + "-wal";
  struct stat wal_stat {};
  const bool had_wal = ::stat(wal.c_str(), &wal_stat) == 0 && wal_stat.st_size > 0;
  // SQLite's memory statistics (on by default) take a process-wide mutex around every malloc and
  // free it makes: tens a commit. emsim reads none of them (sqlite3_status). Settable only before
  // SQLite initializes, so once, before the first open; refused harmlessly if it already has.
  static const int kNoMemStatus = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)kNoMemStatus;
  // The writer's connection gathers each commit's WAL frames into one write (runtime/wal_gather.hpp).
  if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      GatheringVfs()) != SQLITE_OK)
    throw PersistError(path_ + ": cannot open: " + SqliteError(db_));
  try {
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_create_function(db_, "emsim_sum", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, SqlRowSum<RowSum>, nullptr, nullptr);
    sqlite3_create_function(db_, "emsim_sum_v2", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, SqlRowSum<RowSumV2>, nullptr,
                            nullptr);
    // Part of the file check: a damaged header makes this first statement fail.
    Exec("PRAGMA journal_mode=WAL");
    Exec(durability_ == Durability::kFull ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
    // The commit hook replaces SQLite's automatic checkpoint (Start hands checkpoints to a thread
    // of their own); it only counts the WAL's frames.
    sqlite3_wal_hook(
        db_,
        [](void* self, sqlite3*, const char*, int frames) {
          static_cast<Persister*>(self)->wal_frames_.store(frames, std::memory_order_relaxed);
          return SQLITE_OK;
        },
        this);
    Exec("PRAGMA cache_size=-65536");  // holds the pages the appends keep touching
    // The start reads every page (the check, then every row) through a memory map, not read():
    // the copies were most of the check (2.0 -> 0.8 s at a million purchases). Only for the start:
    // Start turns it off before the writer runs, so a file changed under a running emsim can never
    // turn into SIGBUS (SQLite's caveat for memory-mapped I/O).
    Exec(("PRAGMA mmap_size=" + std::to_string(kStartMmapBytes)).c_str());
    // The format version is on the first page, which the statement above read whole.
    int version = -1;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (version != kFormatVersion) {  // written below before anything is read: checked first
      const std::string check = QuickCheck(db_);
      if (!check.empty()) throw PersistError(path_ + ": the integrity check failed: " + check);
      check_started_ = check_done_ = true;
    }
    if (had_wal) {
      const std::int64_t page = 4096;
      sqlite3_stmt* ps = nullptr;
      std::int64_t page_size = page;
      if (sqlite3_prepare_v2(db_, "PRAGMA page_size", -1, &ps, nullptr) == SQLITE_OK && sqlite3_step(ps) == SQLITE_ROW)
        page_size = sqlite3_column_int64(ps, 0);
      sqlite3_finalize(ps);
      // The frames the WAL file has room for, against the frames SQLite found valid (the
      // checkpoint's "log" column): the rest belonged to a batch that never committed.
      const std::int64_t frames_in_file = wal_stat.st_size > 32 ? (wal_stat.st_size - 32) / (24 + page_size) : 0;
      std::int64_t frames_valid = -1;
      if (sqlite3_prepare_v2(db_, "PRAGMA wal_checkpoint(PASSIVE)", -1, &ps, nullptr) == SQLITE_OK &&
          sqlite3_step(ps) == SQLITE_ROW)
        frames_valid = sqlite3_column_int64(ps, 1);
      sqlite3_finalize(ps);
      const std::int64_t torn_bytes = wal_stat.st_size > 32 ? (wal_stat.st_size - 32) % (24 + page_size) : 0;
      if (frames_valid >= 0 && (frames_valid < frames_in_file || torn_bytes != 0))
        wal_report_ = path_ + "-wal: kept " + std::to_string(frames_valid) + " committed frame(s); dropped " +
                      std::to_string(frames_in_file - frames_valid) + " frame(s) and " + std::to_string(torn_bytes) +
                      " byte(s) of a write that never committed (never acknowledged)";
    }
    CreateTables();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    ::close(lock_fd_);
    throw;
  }
}

std::string Persister::QuickCheck(sqlite3* db) const {
  std::string check;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, nullptr) != SQLITE_OK)
    throw PersistError(path_ + ": the integrity check failed: " + SqliteError(db));
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    if (t && std::strcmp(t, "ok") != 0) check += (check.empty() ? "" : "; ") + std::string(t);
    if (check.size() > 2000) break;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) throw PersistError(path_ + ": the integrity check failed: " + SqliteError(db));
  return check;
}

sqlite3* Persister::OpenForReading() const {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    const std::string error = SqliteError(db);
    sqlite3_close(db);
    throw PersistError(path_ + ": cannot open for reading: " + error);
  }
  sqlite3_exec(db, ("PRAGMA mmap_size=" + std::to_string(kStartMmapBytes)).c_str(), nullptr, nullptr, nullptr);
  return db;
}

void Persister::RunCheck(sqlite3* db) noexcept {
  sqlite3* own = nullptr;
  try {
    if (!db) db = own = OpenForReading();
    const std::string check = QuickCheck(db);
    if (!check.empty()) throw PersistError(path_ + ": the integrity check failed: " + check);
  } catch (...) {
    check_error_ = std::current_exception();
  }
  sqlite3_close(own);
}

void Persister::StartCheck() {
  if (check_started_) return;
  check_started_ = true;
  checker_ = core::NamedThread("persist-check", [this] { RunCheck(nullptr); });
}

void Persister::AwaitCheck() {
  if (!check_done_) {
    StartCheck();
    checker_.join();
    check_done_ = true;
  }
  if (check_error_) std::rethrow_exception(check_error_);
}

template <class F>
auto Persister::Checked(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    AwaitCheck();  // the damage, when the check found any, is the reason
    throw;
  }
}

// What the start reads is reported only once the file's check has run (Checked).
bool Persister::HasData() {
  return Checked([&] { return HasDataUnchecked(); });
}
Recovered Persister::Read(bool document) {
  return Checked([&] { return ReadUnchecked(document); });
}
model::State Persister::Load(Recovered& saved) {
  return Checked([&] { return LoadUnchecked(saved); });
}

void Persister::TakeLock() {
  const std::string lock = dir_ + "/" + kLockName;
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw PersistError(lock + ": " + std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(lock_fd_, buf, sizeof(buf) - 1, 0);
    ::close(lock_fd_);
    std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    throw PersistError("data dir " + dir_ + " is in use by another emsim (pid " + pid + ", " + lock + ")");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0)
    throw PersistError(lock + ": " + std::strerror(errno));
}

void Persister::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : SqliteError(db_);
    sqlite3_free(err);
    throw PersistError(path_ + ": " + msg);
  }
}

void Persister::CreateTables() {
  sqlite3_stmt* st = nullptr;
  int version = 0;
  if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    version = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  if (version > kFormatVersion)
    throw PersistError(path_ + ": format version " + std::to_string(version) + " is newer than this emsim's (" +
                       std::to_string(kFormatVersion) + ")");
  if (version == 0) {
    // A new file, or one that is not emsim's: one with tables of its own is refused, never written over.
    if (sqlite3_prepare_v2(db_, "SELECT count(*) FROM sqlite_schema", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0) {
      sqlite3_finalize(st);
      throw PersistError(path_ + ": has tables but no emsim format version (PRAGMA user_version): not emsim's file");
    }
    sqlite3_finalize(st);
    std::string ddl = "BEGIN;";
    for (const auto& t : kTables) ddl += CreateTableSql(t) + HandEditTrigger(t.name);
    ddl += "CREATE TABLE meta(name TEXT PRIMARY KEY, body TEXT NOT NULL, sum INTEGER);" + HandEditTrigger("meta");
    ddl += "PRAGMA user_version=" + std::to_string(kFormatVersion) + ";COMMIT;";
    Exec(ddl.c_str());
  } else if (version < kFormatVersion) {
    Migrate(version);
  }
  auto prepare = [&](const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK)
      throw PersistError(path_ + ": " + SqliteError(db_) + " (" + sql + ")");
    return s;
  };
  // ?1 the id (or a job's kind), ?2 the position or seq, ?3 the body, ?4 its checksum.
  for (const auto& t : kTables) {
    const std::string q = std::string("\"") + t.name + "\"";
    switch (t.shape) {
      case Shape::kById:
        put_.push_back(prepare("INSERT INTO " + q + "(id, body, sum) VALUES(?1, ?3, ?4)"));
        // The id as well as the rowid: RowidIndex may name the row of another id of the same hash.
        update_.push_back(prepare("UPDATE " + q + " SET body=?3, sum=?4 WHERE rowid=?2 AND id=?1"));
        del_.push_back(prepare("DELETE FROM " + q + " WHERE rowid=?2 AND id=?1"));
        trim_.push_back(nullptr);
        break;
      case Shape::kByPosition:
        put_.push_back(prepare("INSERT OR REPLACE INTO " + q + "(pos, id, body, sum) VALUES(?2, ?1, ?3, ?4)"));
        update_.push_back(nullptr);
        del_.push_back(prepare("DELETE FROM " + q + " WHERE pos=?2"));
        trim_.push_back(prepare("DELETE FROM " + q + " WHERE pos<?2"));
        break;
      case Shape::kJobs:
        put_.push_back(prepare("INSERT OR REPLACE INTO " + q + "(seq, kind, body, sum) VALUES(?2, ?1, ?3, ?4)"));
        update_.push_back(nullptr);
        del_.push_back(prepare("DELETE FROM " + q + " WHERE seq=?2"));
        trim_.push_back(nullptr);
        break;
    }
    clear_.push_back(prepare("DELETE FROM " + q));
  }
  // An upsert, not INSERT OR REPLACE: a replace deletes the row and inserts it under a new rowid,
  // so every batch dirtied the name index's page as well as the row's (a page written to the WAL
  // per commit for nothing).
  put_meta_ = prepare(
      "INSERT INTO meta(name, body, sum) VALUES(?1, ?2, ?3) ON CONFLICT(name) DO UPDATE SET body=excluded.body, "
      "sum=excluded.sum");
  begin_ = prepare("BEGIN IMMEDIATE");
  commit_ = prepare("COMMIT");
}

// One step per format version, each in its own transaction with the version it reaches, so a
// failed step leaves the file at the version before it.
void Persister::Migrate(int from) {
  // `sql` (begun with BEGIN IMMEDIATE) run to version `to`, committed with it, or rolled back.
  auto step = [&](std::string sql, int to) {
    sql += "PRAGMA user_version=" + std::to_string(to) + ";COMMIT;";
    try {
      Exec(sql.c_str());
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    Log("info", "data file migrated", {{"file", path_}, {"from", to - 1}, {"to", to}});
  };
  if (from < 2) {
    // 1 -> 2: a checksum column per table, filled for the rows there (they are trusted as they
    // stand: format 1 could not tell), and the trigger that clears it when a person edits a body;
    // the wallet ledger's table, new in 2.
    std::string sql = "BEGIN IMMEDIATE;";
    auto add = [&](const std::string& table) {
      const std::string q = "\"" + table + "\"";
      sql += "ALTER TABLE " + q + " ADD COLUMN sum INTEGER;UPDATE " + q + " SET sum=emsim_sum_v2(body);" + HandEditTrigger(table);
    };
    for (const auto& t : kTables) {
      if (&t - kTables == kWalletMovements) {
        sql += CreateTableSql(t) + HandEditTrigger(t.name);
        continue;
      }
      add(t.name);
    }
    add("meta");
    step(std::move(sql), 2);
  }
  if (from < 3) {
    // 2 -> 3: the faster checksum. A row whose body no longer matched its format-2 sum gets a sum
    // that cannot match the new one either (its complement), so the damage is still reported; a
    // row edited by hand (no sum) stays without one. The trigger watches the body only.
    std::string sql = "BEGIN IMMEDIATE;";
    auto resum = [&](const std::string& table) {
      const std::string q = "\"" + table + "\"";
      sql += "UPDATE " + q + " SET sum=CASE WHEN sum=emsim_sum_v2(body) THEN emsim_sum(body) ELSE ~emsim_sum(body) END " +
             "WHERE sum IS NOT NULL;";
    };
    for (const auto& t : kTables) resum(t.name);
    resum("meta");
    step(std::move(sql), 3);
  }
}

Persister::~Persister() {
  if (rowid_builder_.joinable()) rowid_builder_.join();
  if (checker_.joinable()) checker_.join();
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  queued_cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  RunDue(true);  // nothing more is committed: whatever still waits is told whether it was
  {
    std::lock_guard lock(checkpoint_mu_);
    checkpoint_stop_ = true;
  }
  checkpoint_cv_.notify_all();
  if (checkpointer_.joinable()) checkpointer_.join();
  sqlite3_close(checkpoint_db_);  // before the writer's: the last connection to close checkpoints the rest
  for (auto* v : {&put_, &update_, &del_, &clear_, &trim_})
    for (auto* st : *v) sqlite3_finalize(st);
  for (auto* st : {put_meta_, begin_, commit_}) sqlite3_finalize(st);
  if (db_) sqlite3_close(db_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

// ---- read at start -----------------------------------------------------------------------------

bool Persister::HasDataUnchecked() {
  auto any_row = [&](const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      throw PersistError(path_ + ": " + SqliteError(db_));
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) throw PersistError(path_ + ": reading (" + sql + "): " + SqliteError(db_));
    return rc == SQLITE_ROW;
  };
  if (any_row("SELECT 1 FROM meta WHERE name='batch'")) return true;
  // Every batch writes the marker, so rows without it were put there by hand or by a damaged
  // write: never written over with the fixtures (a new world would replace every table).
  for (const auto& t : kTables)
    if (any_row(std::string("SELECT 1 FROM \"") + t.name + "\" LIMIT 1"))
      throw PersistError(path_ + ": table " + t.name + " has rows but the file has no committed batch (meta row " +
                         "'batch'): not emsim's world as written, and not written over; move the file away to start anew");
  return false;
}

namespace {

// A text column's bytes, valid until the statement steps again ("" for NULL).
std::string_view ColumnView(sqlite3_stmt* st, int col) {
  const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
  return t ? std::string_view(t, static_cast<size_t>(sqlite3_column_bytes(st, col))) : std::string_view("");
}

std::string ColumnText(sqlite3_stmt* st, int col) { return std::string(ColumnView(st, col)); }

}  // namespace

// ---- RowidIndex ---------------------------------------------------------------------------------

std::uint64_t RowidIndex::HashOf(std::string_view id) {
  const std::uint64_t h = hash_for_tests ? hash_for_tests(id) : std::hash<std::string_view>{}(id);
  return h == 0 ? 1 : h;
}

std::optional<std::int64_t> RowidIndex::Find(std::string_view id) const {
  if (!collided.empty()) {
    const auto it = collided.find(std::string(id));
    if (it != collided.end()) return it->second;
  }
  const std::int64_t* rowid = slots_.Find(HashOf(id));
  return rowid ? std::optional<std::int64_t>(*rowid) : std::nullopt;
}

bool RowidIndex::PutHash(std::uint64_t hash, std::int64_t rowid) { return slots_.Emplace(hash, rowid).second; }

void RowidIndex::Erase(std::string_view id) {
  if (!collided.empty() && collided.erase(std::string(id))) return;
  slots_.Erase(HashOf(id));
}

void RowidIndex::Clear() {
  slots_.Clear();
  collided.clear();
}

void RowidIndex::Reserve(size_t rows) { slots_.Reserve(rows); }

// Runs `sql` on `db`, handing each row to `row`.
template <class Row>
void Persister::Query(sqlite3* db, const std::string& sql, Row&& row) const {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) throw PersistError(path_ + ": " + SqliteError(db));
  int rc;
  try {
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
  } catch (...) {
    sqlite3_finalize(st);
    throw;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) throw PersistError(path_ + ": reading (" + sql + "): " + SqliteError(db));
}

// Column 1 (the body) checked against the checksum of column `sum_col` when it has one.
void Persister::CheckSum(std::string_view table, std::string_view id, sqlite3_stmt* st, int sum_col) const {
  const std::string_view bytes = ColumnView(st, 1);
  if (sqlite3_column_type(st, sum_col) != SQLITE_NULL && sqlite3_column_int64(st, sum_col) != RowSum(bytes))
    throw PersistError(path_ + ": table " + std::string(table) + ", id " + model::SafeText(id) +
                       ": the body does not match its checksum (column sum): the file is damaged; restore a backup, "
                       "or, if the body was changed on purpose, set the row's sum to NULL");
}

// The body of column 1 as a document, checked against its checksum. `id` is the row's key as
// stored. A record's body (RecordBody) must be an object; a meta row's may be any value.
json Persister::ParseBody(const std::string& table, const std::string& id, sqlite3_stmt* st, int sum_col) const {
  CheckSum(table, id, st, sum_col);
  auto parsed = model::ParseJsonLimited(ColumnView(st, 1), model::kStateJsonLimits, "body");
  if (!parsed)
    throw PersistError(path_ + ": table " + table + ", id " + model::SafeText(id) + ": " + parsed.error().errors.front().msg);
  return std::move(*parsed);
}

json Persister::RecordBody(const std::string& table, const std::string& id, sqlite3_stmt* st) const {
  json body = ParseBody(table, id, st, 2);
  if (!body.is_object()) throw PersistError(path_ + ": table " + table + ", id " + model::SafeText(id) + ": the body is not a JSON object");
  return body;
}

// A row's key against its body: a record's id (`body_id`, null when the body has none that is
// text), or a log entry's position (`pos`, counted over the whole history).
void Persister::CheckKey(size_t table, std::string_view raw_id, const std::string_view* body_id, std::uint64_t pos) const {
  const TableSpec& t = kTables[table];
  // A key as a message quotes it: a damaged file may hold any bytes there.
  if (t.shape == Shape::kById && (!body_id || *body_id != raw_id))
    throw PersistError(path_ + ": table " + t.name + ", id " + model::SafeText(raw_id) + ": the body's id is not the row's id");
  if (t.shape == Shape::kByPosition && std::to_string(pos) != raw_id)
    throw PersistError(path_ + ": table " + t.name + ": position " + std::to_string(pos) +
                       " is missing (a log is kept without gaps from its oldest retained entry, meta 'trimmed')");
}

std::string Persister::RowsSql(size_t table) const {
  const TableSpec& t = kTables[table];
  const std::string q = std::string("\"") + t.name + "\"";
  return t.shape == Shape::kById   ? "SELECT id, body, sum, rowid FROM " + q + " ORDER BY rowid"
         : t.shape == Shape::kJobs ? "SELECT seq, body, sum FROM " + q + " ORDER BY seq"
                                   : "SELECT pos, body, sum FROM " + q + " ORDER BY pos";
}

// The rows of kTables[table] in order, each checked, as documents; fills read_rowids_[table]
// (only this call and ReadRows touch it).
json Persister::ReadTable(sqlite3* db, size_t table, std::uint64_t first_pos) {
  const TableSpec& t = kTables[table];
  json rows = json::array();
  auto& ids = read_rowids_[table];
  Query(db, RowsSql(table), [&](sqlite3_stmt* st) {
    const std::string raw_id = ColumnText(st, 0);
    json body = RecordBody(t.name, raw_id, st);
    const json& body_id = body.contains("id") ? body["id"] : json();
    // A view of the document's own string (a conditional with "" would view a temporary copy).
    const std::string_view body_id_text =
        body_id.is_string() ? std::string_view(body_id.get_ref<const std::string&>()) : std::string_view();
    CheckKey(table, raw_id, body_id.is_string() ? &body_id_text : nullptr,
             first_pos + rows.size());
    if (t.shape == Shape::kById) ids.emplace_back(RowidIndex::HashOf(raw_id), sqlite3_column_int64(st, 3));
    rows.push_back(std::move(body));
  });
  return rows;
}

namespace {
// A row that only the document can judge (from_json refuses it): the whole file is then read as
// a document, so the start reports it as a state load would.
struct NeedsDocument {};
}  // namespace

// The same rows, each read into its record T in place (model::ReadRecordText) at `slot()` (a
// default-made record) and handed to `done`; a row not read that way goes through the document
// (ParseBody: the same errors as ReadTable).
template <class T, class Slot, class Done>
bool Persister::ReadRows(sqlite3* db, size_t table, std::uint64_t first_pos, Slot&& slot, Done&& done) {
  const TableSpec& t = kTables[table];
  auto& ids = read_rowids_[table];
  std::uint64_t pos = first_pos;
  try {
    Query(db, RowsSql(table), [&](sqlite3_stmt* st) {
      const std::string_view raw_id = ColumnView(st, 0);
      T& record = slot();
      if (model::ReadRecordText(ColumnView(st, 1), record)) {
        CheckSum(t.name, raw_id, st, 2);
      } else {
        const json body = RecordBody(t.name, std::string(raw_id), st);
        try {
          record = body.get<T>();
        } catch (const std::exception&) {
          throw NeedsDocument{};
        }
      }
      if constexpr (requires { record.id; }) {
        const core::TextOf id(record.id);
        CheckKey(table, raw_id, &id.view, pos);
      }
      if (t.shape == Shape::kById) ids.emplace_back(RowidIndex::HashOf(raw_id), sqlite3_column_int64(st, 3));
      ++pos;
      done(record);
    });
  } catch (const NeedsDocument&) {
    return false;
  }
  return true;
}

bool Persister::ReadRecords(sqlite3* db, size_t table, std::uint64_t first_pos, model::State& s) {
  bool ok = true;
  auto nothing = [](auto&) {};
  ForEachRecordTable(s, [&](std::uint8_t i, auto& list) {
    if (i != table) return;
    using T = std::remove_cvref_t<decltype(list.rows().front())>;
    // In place: a vector first, moved into the table, was a second copy of every record (440 MB
    // of page faults and copies at a million placement carts).
    ok = ReadRows<T>(db, table, first_pos, [&]() -> T& { return list.AppendForLoad(); }, nothing);
    try {
      if (ok) list.IndexLoaded();
    } catch (const std::exception&) {  // a duplicate id: reported as a state load reports it
      ok = false;
    }
  });
  ForEachLog(s, [&](std::uint8_t i, auto& list, auto&) {
    if (i != table) return;
    using T = typename std::remove_cvref_t<decltype(list)>::value_type;
    ok = ReadRows<T>(db, table, first_pos, [&]() -> T& { return list.emplace_back(); }, nothing);
  });
  if (table == kJobsTable) {
    model::Job job;
    ok = ReadRows<model::Job>(
        db, table, first_pos, [&]() -> model::Job& { return job = model::Job{}; },
        [&](model::Job& read) { s.LoadJob(std::move(read)); });
  }
  return ok;
}

Recovered Persister::ReadUnchecked(bool document) {
  AwaitRowids();  // a second read (the document's) starts over
  for (auto& ids : rowids_) ids.Clear();
  read_rowids_.assign(kTableCount, {});
  collided_rowids_.assign(kTableCount, {});
  Recovered out;
  out.state = json::object();
  Query(db_, "SELECT name, body, sum FROM meta", [&](sqlite3_stmt* st) {
    const std::string name = ColumnText(st, 0);
    json value = ParseBody("meta", name, st, 2);
    if (name == "clock") out.clock = std::move(value);
    else if (name == "batch") batches_ = out.batch = value.is_number_integer() ? value.get<std::int64_t>() : 0;
    else out.state[name] = std::move(value);
  });
  // Where each log starts: the entries retention dropped before it (State::trimmed).
  const json trimmed = out.state.contains("trimmed") && out.state["trimmed"].is_object() ? out.state["trimmed"] : json::object();
  std::vector<std::uint64_t> first_pos(kTableCount, 0);
  std::vector<std::int64_t> weight(kTableCount, 0);
  for (size_t i = 0; i < kTableCount; ++i) {
    const json first = trimmed.value(kTables[i].name, json(0));
    if (first.is_number_unsigned()) first_pos[i] = first.get<std::uint64_t>();
    // How many rows (rowids and positions grow by one) times the size of the last one: near enough
    // to share the reading out, which goes by bytes (an email's row is twice a mailbox's).
    Query(db_, std::string("SELECT rowid, length(body) FROM \"") + kTables[i].name + "\" ORDER BY rowid DESC LIMIT 1",
          [&](sqlite3_stmt* st) {
            const std::int64_t rows = std::max<std::int64_t>(0, sqlite3_column_int64(st, 0) - static_cast<std::int64_t>(first_pos[i]));
            if (kTables[i].shape == Shape::kById) read_rowids_[i].reserve(static_cast<size_t>(rows));
            weight[i] = rows * (64 + sqlite3_column_int64(st, 1));  // 64: a row's own cost, in bytes
          });
  }
  // Parsing the rows is most of a start (measured at 100k mailboxes: 3.5 s of 5.7), and tables are
  // independent: a second thread with its own read-only connection takes the tables a greedy split
  // by row count gives it, biggest first. Rows are checked exactly as on one thread.
  std::vector<size_t> order(kTableCount);
  for (size_t i = 0; i < kTableCount; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
  std::vector<size_t> mine, theirs;
  std::int64_t my_load = 0, their_load = 0;
  for (size_t i : order) {
    if (their_load < my_load) {
      theirs.push_back(i);
      their_load += weight[i];
    } else {
      mine.push_back(i);
      my_load += weight[i];
    }
  }
  std::vector<json> rows(kTableCount);
  model::State lists;
  std::vector<char> read(kTableCount, 1);  // whether a table's rows all became records directly
  // Each thread fills its own tables of `lists` (distinct members) or its own entries of `rows`.
  auto read_table = [&](sqlite3* db, size_t i) {
    if (document) rows[i] = ReadTable(db, i, first_pos[i]);
    else read[i] = ReadRecords(db, i, first_pos[i], lists);
  };
  std::exception_ptr their_error;
  // Once its tables are read, the helper checks the file (StartCheck), beside this thread's load:
  // the two take about as long (at a million purchases ~0.85 s each), so both cores stay busy.
  const bool helper_checks = !check_started_;
  check_started_ = true;
  std::latch helper_read(1);
  std::thread helper = core::NamedThread("persist-read", [&, helper_checks] {
    sqlite3* db = nullptr;
    try {
      db = OpenForReading();
      core::CompactString::BulkAssign repeated_texts;  // (core/compact_string.hpp)
      for (size_t i : theirs) read_table(db, i);
    } catch (...) {
      their_error = std::current_exception();
    }
    helper_read.count_down();  // from here on nothing of Read's is touched
    if (helper_checks) RunCheck(db);
    sqlite3_close(db);
  });
  std::exception_ptr my_error;
  try {
    core::CompactString::BulkAssign repeated_texts;
    for (size_t i : mine) read_table(db_, i);
  } catch (...) {
    my_error = std::current_exception();
  }
  helper_read.wait();
  if (helper_checks) checker_ = std::move(helper);
  else helper.join();
  if (my_error) std::rethrow_exception(my_error);
  if (their_error) std::rethrow_exception(their_error);
  if (!document) {
    if (std::find(read.begin(), read.end(), 0) != read.end()) return ReadUnchecked(true);
    out.lists = std::move(lists);
  } else {
    for (size_t i = 0; i < kTableCount; ++i) out.state[kTables[i].name] = std::move(rows[i]);
  }
  rowid_builder_ = core::NamedThread("persist-rowids", [this] { BuildRowids(); });
  return out;
}

void Persister::BuildRowids() {
  for (size_t i = 0; i < kTableCount; ++i) {
    auto& read = read_rowids_[i];
    rowids_[i].Reserve(read.size());
    for (const auto& [hash, rowid] : read)
      if (!rowids_[i].PutHash(hash, rowid)) collided_rowids_[i].push_back(rowid);
    std::vector<std::pair<std::uint64_t, std::int64_t>>().swap(read);
  }
}

void Persister::AwaitRowids() {
  if (!rowid_builder_.joinable()) return;
  rowid_builder_.join();
  // A row whose id's hash an earlier row had: kept by its id, read back by its rowid.
  for (size_t i = 0; i < kTableCount; ++i) {
    for (const std::int64_t rowid : collided_rowids_[i])
      Query(db_, std::string("SELECT id FROM \"") + kTables[i].name + "\" WHERE rowid=" + std::to_string(rowid),
            [&](sqlite3_stmt* st) { rowids_[i].collided[ColumnText(st, 0)] = rowid; });
    collided_rowids_[i].clear();
  }
}

std::optional<std::int64_t> Persister::ScanRowid(std::uint8_t table, const std::string& id) {
  std::optional<std::int64_t> rowid;
  sqlite3_stmt* st = nullptr;
  const std::string sql = std::string("SELECT rowid FROM \"") + kTables[table].name + "\" WHERE id=?1";
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) throw PersistError(path_ + ": " + SqliteError(db_));
  sqlite3_bind_text(st, 1, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) rowid = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) throw PersistError(path_ + ": " + SqliteError(db_));
  return rowid;
}

model::State Persister::LoadUnchecked(Recovered& saved) {
  try {
    return saved.lists ? model::LoadState(saved.state, std::move(*saved.lists)) : model::LoadState(saved.state);
  } catch (const std::exception& e) {
    if (!saved.lists) throw PersistError(Describe(e.what(), saved.state));
  }
  // Rows read straight into records carry no position in a document: the file read again as one
  // gives the message a state load gives, with the row's table and id. (Should the document load
  // where the records did not, the document is the reference: its world is the answer.)
  saved = ReadUnchecked(true);
  try {
    return model::LoadState(saved.state);
  } catch (const std::exception& e) {
    throw PersistError(Describe(e.what(), saved.state));
  }
}

std::string Persister::Describe(const std::string& load_error, const json& state) const {
  static const std::regex kRow(R"(state\.([A-Za-z]+)\[(\d+)\])");
  std::smatch m;
  std::string where;
  if (std::regex_search(load_error, m, kRow)) {
    const std::string table = m[1];
    const size_t i = std::stoull(m[2]);
    const json* rows = state.contains(table) ? &state.at(table) : nullptr;
    if (rows && rows->is_array() && i < rows->size()) {
      const json& row = (*rows)[i];
      const json id = row.is_object() ? row.value(table == "jobs" ? "seq" : "id", json()) : json();
      where = " (table " + table + ", id " + (id.is_string() ? id.get<std::string>() : id.dump()) + ")";
    }
  }
  return path_ + ": " + load_error + where;
}

// ---- change sets -------------------------------------------------------------------------------

// The scalar parts, small enough to write whole with every change: the meta rows by name.
struct Persister::Scalars {
  std::uint64_t seed = 0, counter = 0, nextJobSeq = 0, nextFaultSeq = 0;
  model::State::Trimmed trimmed;
  std::vector<model::Fault> faults;

  static Scalars Of(const model::State& s) {
    return {s.ids.seed(), s.ids.counter(), s.nextJobSeq, s.nextFaultSeq, s.trimmed, s.faults};
  }
  // Into `meta`, those that differ from `before` (all of them without it). Compared as values:
  // building them as JSON for every write transaction to compare them was a quarter of what a
  // durable write transaction added under the store's lock.
  static void Changed(const model::State& s, const Scalars* before, ChangeSet& cs) {
    json& meta = cs.meta;
    if (!before || before->seed != s.ids.seed() || before->counter != s.ids.counter())
      cs.ids = {s.ids.seed(), s.ids.counter()};
    if (!before || before->nextJobSeq != s.nextJobSeq) meta["nextJobSeq"] = s.nextJobSeq;
    if (!before || before->nextFaultSeq != s.nextFaultSeq) meta["nextFaultSeq"] = s.nextFaultSeq;
    if (!before || before->faults != s.faults) meta["faults"] = s.faults;
    if (!before || before->trimmed != s.trimmed) meta["trimmed"] = s.trimmed;
  }
};

void Persister::Track(model::State& s) {
  ForEachRecordTable(s, [](std::uint8_t, auto& table) { table.Track(true); });
  s.trackJobs = true;
  s.jobsScheduled.clear();
  s.jobsErased.clear();
}

void Persister::Mark(const model::State& s) {
  ForEachLog(s, [&](std::uint8_t t, const auto& list, std::uint64_t trimmed) { log_marks_[t] = MarkOf(trimmed, list.size()); });
}

void Persister::Collect(model::State& s) {
  ChangeSet cs;
  ForEachRecordTable(s, [&](std::uint8_t t, auto& table) {
    const bool all = table.TakeChanges([&](std::string_view id, const auto* row) {
      cs.rows.push_back(row ? Put(t, std::string(id), 0, Body(*row)) : RowChange{t, std::string(id), 0, std::nullopt});
    });
    if (all) {  // EditAll, cleared or replaced: written whole
      cs.rows.push_back(ClearTable(t));
      for (const auto& row : table) cs.rows.push_back(Put(t, row.id, 0, Body(row)));
    }
  });
  ForEachLog(s, [&](std::uint8_t t, const auto& list, std::uint64_t trimmed) {
    if (!s.logsRewritten) {
      AppendLog(cs.rows, t, list, trimmed, log_marks_[t]);
      return;
    }
    // Entries removed from the middle (a tenant deleted or reset): the positions after them
    // moved, so the log is written whole.
    cs.rows.push_back(ClearTable(t));
    AppendLog(cs.rows, t, list, trimmed, MarkOf(trimmed, 0));
  });
  s.logsRewritten = false;
  // Removals first: a job scheduled and removed in the same transaction is then not written.
  for (const auto& key : s.jobsErased) cs.rows.push_back({kJobsTable, "", static_cast<std::int64_t>(key.second), std::nullopt});
  for (const auto& key : s.jobsScheduled) {
    // A job is mostly scheduled after every job waiting (State::ScheduleOn): the last one is
    // looked at before a search (under a manual clock a purchase load keeps hundreds of thousands,
    // and the search's cache misses were 8% of collecting a purchase's change set).
    auto it = !s.jobs.empty() && std::prev(s.jobs.end())->first == key ? std::prev(s.jobs.end()) : s.jobs.find(key);
    if (it != s.jobs.end()) cs.rows.push_back(JobRow(it->second));
  }
  s.jobsErased.clear();
  s.jobsScheduled.clear();
  // Most transactions move the id counter and little else: the faults and the logs' trim marks
  // are not copied into every change set.
  Scalars::Changed(s, queued_scalars_.get(), cs);
  if (!queued_scalars_) {
    queued_scalars_ = std::make_unique<Scalars>(Scalars::Of(s));
  } else if (!cs.meta.empty()) {
    *queued_scalars_ = Scalars::Of(s);
  } else if (cs.ids) {  // the common case: no copy of the faults and trim marks
    queued_scalars_->seed = s.ids.seed();
    queued_scalars_->counter = s.ids.counter();
  }
  Enqueue(std::move(cs));
}

void Persister::CollectAll(const model::State& s) {
  ChangeSet cs;
  cs.replace = true;
  ForEachRecordTable(s, [&](std::uint8_t t, const auto& table) {
    for (const auto& row : table) cs.rows.push_back(Put(t, row.id, 0, Body(row)));
  });
  // Every table is emptied first (replace), so each log is written from its first retained entry.
  ForEachLog(s, [&](std::uint8_t t, const auto& list, std::uint64_t trimmed) {
    AppendLog(cs.rows, t, list, trimmed, MarkOf(trimmed, 0));
  });
  for (const auto& [key, job] : s.jobs) cs.rows.push_back(JobRow(job));
  Scalars::Changed(s, nullptr, cs);
  queued_scalars_ = std::make_unique<Scalars>(Scalars::Of(s));
  cs.meta["timings"] = s.timings;
  cs.meta["catalogue"] = s.catalogue;
  cs.meta["plans"] = s.plans;
  Enqueue(std::move(cs));
}

void Persister::Enqueue(ChangeSet changes) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back({std::move(changes), next_ticket_++});
  }
  queued_cv_.notify_one();
}

std::uint64_t Persister::Ticket() {
  std::lock_guard lock(mu_);
  // The batch that will take what is queued has not begun, so it writes the clock as it is now
  // too: waiting for it is enough.
  if (!queue_.empty()) return queue_.back().ticket;
  // An empty change set: its batch writes the clock as it is now.
  const std::uint64_t ticket = next_ticket_++;
  queue_.push_back({ChangeSet{}, ticket});
  queued_cv_.notify_one();
  return ticket;
}

void Persister::OnDurable(std::uint64_t ticket, std::function<void(bool)> done) {
  {
    std::lock_guard lock(mu_);
    const bool decided = committed_.load(std::memory_order_acquire) >= ticket || failed_flag_.load();
    if (!decided) {
      on_durable_.emplace_back(ticket, std::move(done));
      return;
    }
  }
  done(committed_.load(std::memory_order_acquire) >= ticket);
}

Persister::Stats Persister::stats() {
  std::lock_guard lock(mu_);
  return {batches_committed_, change_sets_committed_, rows_written_.load(std::memory_order_relaxed),
          wal_frames_.load(std::memory_order_relaxed), failed_};
}

void Persister::RunDue(bool failed) {
  std::vector<std::pair<std::uint64_t, std::function<void(bool)>>> due;
  {
    std::lock_guard lock(mu_);
    const std::uint64_t committed = committed_.load(std::memory_order_acquire);
    // Kept in the order they came: a connection's answers go out in the order it gave them.
    auto keep = on_durable_.begin();
    for (auto& w : on_durable_) {
      if (failed || w.first <= committed) due.push_back(std::move(w));
      else *keep++ = std::move(w);
    }
    on_durable_.erase(keep, on_durable_.end());
  }
  // committed_ moves only when a batch is on disk: a ticket past it was not written.
  for (auto& [ticket, done] : due) done(ticket <= committed_.load(std::memory_order_acquire));
}

void Persister::Sync() {
  const std::uint64_t ticket = Ticket();
  // Waited for on the atomic itself: a batch wakes its requests without their taking mu_ again
  // one by one (measured: the convoy on mu_ cost more than the commit under 32 connections).
  for (;;) {
    const std::uint64_t round = batches_done_.load(std::memory_order_acquire);
    if (committed_.load(std::memory_order_acquire) >= ticket) return;
    if (failed_flag_.load()) {
      std::lock_guard lock(mu_);
      throw PersistError("the data file refused a write: " + failed_);
    }
    batches_done_.wait(round, std::memory_order_acquire);
  }
}

// ---- the writer --------------------------------------------------------------------------------

void Persister::Start(const Clock& clock) {
  AwaitCheck();
  clock_ = &clock;
  AwaitRowids();
  Exec("PRAGMA mmap_size=0");  // the start's memory map (the constructor) ends here
  if (sqlite3_open_v2(path_.c_str(), &checkpoint_db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) == SQLITE_OK &&
      sqlite3_exec(checkpoint_db_, durability_ == Durability::kFull ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
                   nullptr, nullptr, nullptr) == SQLITE_OK) {
    checkpointer_ = core::NamedThread("persist-ckpt", [this] { CheckpointLoop(); });
  } else {
    Log("warn", "no checkpoint connection; the writer checkpoints the WAL itself",
        {{"file", path_}, {"error", SqliteError(checkpoint_db_)}});
    sqlite3_close(checkpoint_db_);
    checkpoint_db_ = nullptr;
    sqlite3_wal_autocheckpoint(db_, checkpoint_frames_);
  }
  writer_ = core::NamedThread("persist-writer", [this] { WriterLoop(); });
}

void Persister::CheckpointLoop() {
  std::unique_lock lock(checkpoint_mu_);
  for (;;) {
    checkpoint_cv_.wait(lock, [&] { return checkpoint_stop_ || checkpoint_wanted_; });
    if (checkpoint_stop_) return;
    checkpoint_wanted_ = false;
    lock.unlock();
    // PASSIVE: copies what it can without waiting for the writer, which goes on appending.
    std::unique_lock running(checkpoint_run_mu_);
    int in_wal = 0, copied = 0;
    const int rc = sqlite3_wal_checkpoint_v2(checkpoint_db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &in_wal, &copied);
    running.unlock();
    if (rc == SQLITE_OK && copied == in_wal) caught_up_.store(true, std::memory_order_release);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)
      Log("warn", "WAL checkpoint failed; the next commit asks again", {{"file", path_}, {"error", SqliteError(checkpoint_db_)}});
    lock.lock();
  }
}

void Persister::AfterCommit() {
  if (!checkpoint_db_) return;
  const int frames = wal_frames_.load(std::memory_order_relaxed);
  if (frames >= wal_limit_frames_) {
    // RESTART: copies the rest and lets the next commit start the WAL over (after the
    // checkpointer's run, if one is going). Busy (another process's checkpoint) is left for the
    // next commit.
    std::lock_guard running(checkpoint_run_mu_);
    sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_RESTART, nullptr, nullptr);
  } else if (frames >= checkpoint_frames_) {
    // Under a steady load the checkpointer never finds the WAL still: the writer has appended
    // again by the time it has copied what it saw, and SQLite starts the WAL over only at a write
    // that begins with every frame copied. So once the checkpointer has copied what it saw, the
    // writer copies the few frames since (PASSIVE, on its own connection: nothing else appends),
    // and its next batch starts the WAL over. Without it the WAL grew to the limit, where the
    // writer copied it all itself while every answer waited.
    // Never waiting for a run of the checkpointer's (tens of milliseconds, every answer waiting):
    // one that is going will catch up again when it ends.
    if (caught_up_.load(std::memory_order_acquire)) {
      std::unique_lock running(checkpoint_run_mu_, std::try_to_lock);
      if (running.owns_lock()) {
        caught_up_.store(false, std::memory_order_relaxed);
        sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        return;
      }
    }
    {
      std::lock_guard lock(checkpoint_mu_);
      if (checkpoint_wanted_) return;  // asked already; one wake per run, not one per commit
      checkpoint_wanted_ = true;
    }
    checkpoint_cv_.notify_one();
  }
}

void Persister::WriterLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    queued_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty() && stop_) return;
    if (!stop_) {
      // One yield before taking the queue: request threads that are about to queue their change
      // sets get to, so the batch is larger (measured at 32 connections: 5 change sets per batch
      // without it, 8 with it, and 12.5k -> 14.7k purchases/s). Each batch costs the WAL a page
      // per table it touches, however few rows it has. Alone, the yield returns at once.
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
    }
    std::deque<Pending> batch;
    batch.swap(queue_);
    lock.unlock();
    std::string error;
    try {
      CommitBatch(batch);
    } catch (const std::exception& e) {
      error = e.what();
      Log("error", "durable write failed; emsim answers 500 to writes from now on", {{"file", path_}, {"error", error}});
    }
    lock.lock();
    if (!error.empty() && failed_.empty()) {
      failed_ = error;
      failed_flag_.store(true);
    }
    if (error.empty()) {
      committed_.store(batch.back().ticket, std::memory_order_release);
      ++batches_committed_;
      // Tickets a read asked for (Ticket, with nothing queued) carry nothing: not counted.
      for (const auto& p : batch)
        change_sets_committed_ += p.changes.replace || !p.changes.rows.empty() || !p.changes.meta.empty() || p.changes.ids;
    }
    batches_done_.fetch_add(1, std::memory_order_release);
    batches_done_.notify_all();
    const bool failed = failed_flag_.load();
    lock.unlock();
    RunDue(failed);  // the answers that waited for this batch go out now
    // Then the WAL's checkpoint, if it is due: the answers do not wait for it (the batch is
    // committed; a checkpoint only moves it into the main file).
    if (error.empty() && !WritesWholeWorld(batch))
      AfterCommit();
    lock.lock();
  }
}

std::vector<const RowChange*> Persister::Coalesce(const std::deque<Pending>& batch) {
  if (batch.size() < 2) return {};
  size_t rows = 0;
  for (const auto& p : batch) {
    // Rare (reset, state load, a table emptied): written as queued.
    if (p.changes.replace) return {};
    for (const auto& r : p.changes.rows)
      if (ClearsTable(r)) return {};
    rows += p.changes.rows.size();
  }
  struct Key {
    std::uint8_t table;
    std::string_view id;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<std::string_view>()(k.id) * 31 + k.table; }
  };
  struct Writes {
    size_t first = 0, count = 0;
    const RowChange* last = nullptr;
    bool deleted = false;
  };
  std::unordered_map<Key, Writes, KeyHash> writes;
  writes.reserve(rows);
  size_t at = 0, repeated = 0;
  for (const auto& p : batch)
    for (const auto& r : p.changes.rows) {
      const size_t i = at++;
      if (kTables[r.table].shape != Shape::kById) continue;
      Writes& w = writes[{r.table, r.id}];
      if (w.count++ == 0) w.first = i;
      else ++repeated;
      w.last = &r;
      w.deleted = w.deleted || !r.body;
    }
  if (repeated == 0) return {};
  std::vector<const RowChange*> plan(rows, nullptr);
  at = 0;
  for (const auto& p : batch)
    for (const auto& r : p.changes.rows) {
      const size_t i = at++;
      if (kTables[r.table].shape != Shape::kById) continue;
      const Writes& w = writes.at({r.table, r.id});
      if (w.count < 2 || w.deleted) continue;
      plan[i] = i == w.first ? w.last : &kSkipRow;
    }
  return plan;
}

void Persister::CommitBatch(std::deque<Pending>& batch) {
  if (!failed_.empty()) throw PersistError(failed_);  // the file no longer matches the world
  auto step = [&](sqlite3_stmt* st) {
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) throw PersistError(path_ + ": " + SqliteError(db_));
  };
  const std::vector<const RowChange*> plan = Coalesce(batch);
  size_t at = 0;  // the row's position in the batch, for `plan`
  step(begin_);
  try {
    json meta = json::object();
    std::optional<std::array<std::uint64_t, 2>> ids;  // the last change set's
    for (auto& p : batch) {
      if (p.changes.replace) {
        for (auto* st : clear_) step(st);
        for (auto& ids : rowids_) ids.Clear();
      }
      for (const auto& queued : p.changes.rows) {
        const RowChange* instead = plan.empty() ? nullptr : plan[at++];
        if (instead == &kSkipRow) continue;
        const RowChange& r = instead ? *instead : queued;
        if (ClearsTable(r)) {
          step(clear_[r.table]);
          rowids_[r.table].Clear();
          continue;
        }
        if (r.below) {
          sqlite3_bind_int64(trim_[r.table], 2, r.key);
          step(trim_[r.table]);
          continue;
        }
        sqlite3_stmt* st = r.body ? put_[r.table] : del_[r.table];
        std::int64_t key = r.key;
        std::optional<std::int64_t> known;
        if (kTables[r.table].shape == Shape::kById) {
          known = rowids_[r.table].Find(r.id);
          if (!known && !r.body) continue;  // never written: nothing to delete
          if (known) {
            key = *known;
            if (r.body) st = update_[r.table];
          }
        }
        auto run = [&](sqlite3_stmt* s, std::int64_t k) {
          sqlite3_bind_text(s, 1, r.id.data(), static_cast<int>(r.id.size()), SQLITE_STATIC);
          sqlite3_bind_int64(s, 2, k);
          if (r.body) {
            sqlite3_bind_text(s, 3, r.body->data(), static_cast<int>(r.body->size()), SQLITE_STATIC);
            sqlite3_bind_int64(s, 4, r.sum);
          }
          step(s);
        };
        run(st, key);
        rows_written_.fetch_add(1, std::memory_order_relaxed);
        if (kTables[r.table].shape != Shape::kById) continue;
        auto& ids = rowids_[r.table];
        if (!known) {  // a new row, appended
          if (!ids.Put(r.id, sqlite3_last_insert_rowid(db_))) ids.collided[r.id] = sqlite3_last_insert_rowid(db_);
        } else if (sqlite3_changes(db_) == 0) {
          // The row at that rowid holds another id of the same hash (the statements match the id
          // too): this id's row, if any, found by reading the table, and kept by its text.
          const auto actual = ScanRowid(r.table, r.id);
          if (actual) run(r.body ? update_[r.table] : del_[r.table], *actual);
          else if (r.body) run(put_[r.table], 0);
          if (r.body) ids.collided[r.id] = actual ? *actual : sqlite3_last_insert_rowid(db_);
          else ids.collided.erase(r.id);
        } else if (!r.body) {
          ids.Erase(r.id);
        }
      }
      for (auto& [name, value] : p.changes.meta.items()) meta[name] = std::move(value);
      if (p.changes.ids) ids = p.changes.ids;
    }
    if (ids) meta["ids"] = {{"seed", (*ids)[0]}, {"counter", (*ids)[1]}};
    const model::Millis now = clock_->Now();
    meta["clock"] = {{"mode", ToString(clock_->mode())}, {"epochMs", now}, {"offsetMs", now - Clock::WallNow()}};
    meta["batch"] = ++batches_;
    for (const auto& [name, value] : meta.items()) {
      const std::string body = value.dump();
      sqlite3_bind_text(put_meta_, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
      sqlite3_bind_text(put_meta_, 2, body.data(), static_cast<int>(body.size()), SQLITE_STATIC);
      sqlite3_bind_int64(put_meta_, 3, RowSum(body));
      step(put_meta_);
    }
    step(commit_);
    // A whole world written (the first start, a reset, a state load): moved into the main file at
    // once, so the file alone holds a world even if the WAL is later lost.
    if (WritesWholeWorld(batch)) {
      std::lock_guard running(checkpoint_run_mu_);
      sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace emsim::runtime
