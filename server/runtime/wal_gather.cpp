#include "runtime/wal_gather.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

namespace emsim::runtime {
namespace {

// What a run of appends may hold before it is written anyway: a whole world written at once (a
// reset, a state load) is hundreds of megabytes of frames.
constexpr size_t kMaxRun = 8u << 20;
// A run's memory kept for the next commit up to this size; a bigger one is given back.
constexpr size_t kKeptCapacity = 1u << 20;
// The most the default VFS writes in one call (the unix VFS takes up to 0x1ffff bytes a write; it
// reports a longer one as a full disk): a run is written in pieces of this size.
constexpr size_t kMaxWrite = 0x1f000;
constexpr int kFrameHeader = 24;  // the WAL format's frame header; the file's own header is 32
constexpr sqlite3_int64 kWalHeader = 32;

sqlite3_vfs* base_vfs = nullptr;  // the default VFS, which does all the work
sqlite3_vfs gathering{};
std::atomic<std::uint64_t> appends{0}, writes{0};

// A WAL file: the default VFS's file (`real`, in the same allocation, after this) and the run of
// appends not yet written.
struct WalFile {
  sqlite3_file base;  // first: SQLite sees a WalFile as an sqlite3_file
  sqlite3_file* real;
  std::string run;
  sqlite3_int64 run_at = 0;  // the file offset of run[0]
  bool commit_next = false;  // the write before was a commit frame's header: its page ends the commit
};

constexpr size_t RealOffset() { return (sizeof(WalFile) + 15) & ~size_t{15}; }

WalFile* Wal(sqlite3_file* f) { return reinterpret_cast<WalFile*>(f); }
sqlite3_file* Real(sqlite3_file* f) { return Wal(f)->real; }

int WriteThrough(WalFile* w, const void* data, int amount, sqlite3_int64 at) {
  writes.fetch_add(1, std::memory_order_relaxed);
  return w->real->pMethods->xWrite(w->real, data, amount, at);
}

// The run written (and forgotten, whatever the outcome: a failed write fails the statement, as a
// failed frame write always did).
int Flush(WalFile* w) {
  int rc = SQLITE_OK;
  for (size_t done = 0; done < w->run.size() && rc == SQLITE_OK; done += kMaxWrite)
    rc = WriteThrough(w, w->run.data() + done, static_cast<int>(std::min(kMaxWrite, w->run.size() - done)),
                      w->run_at + static_cast<sqlite3_int64>(done));
  w->run.clear();
  if (w->run.capacity() > kKeptCapacity) std::string().swap(w->run);
  return rc;
}

// A frame header whose database-size field (bytes 4-7, big-endian) is set: a commit's last frame.
bool IsCommitHeader(const void* data, int amount, sqlite3_int64 at) {
  if (amount != kFrameHeader || at < kWalHeader) return false;
  const auto* b = static_cast<const unsigned char*>(data);
  return (b[4] | b[5] | b[6] | b[7]) != 0;
}

int Write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 at) {
  WalFile* w = Wal(f);
  appends.fetch_add(1, std::memory_order_relaxed);
  if (!w->run.empty() && (at != w->run_at + static_cast<sqlite3_int64>(w->run.size()) ||
                          w->run.size() + static_cast<size_t>(amount) > kMaxRun)) {
    if (const int rc = Flush(w); rc != SQLITE_OK) return rc;
  }
  const bool ends_commit = w->commit_next;
  w->commit_next = IsCommitHeader(data, amount, at);
  // A commit's header that starts no run (a one-frame commit, or SQLite rewriting a header's
  // checksum after the frames: no page follows then) and its page are written as they come.
  if (w->run.empty() && (w->commit_next || ends_commit || static_cast<size_t>(amount) > kMaxRun))
    return WriteThrough(w, data, amount, at);
  if (w->run.empty()) w->run_at = at;
  try {
    w->run.append(static_cast<const char*>(data), static_cast<size_t>(amount));
  } catch (const std::bad_alloc&) {  // never through SQLite's C frames: the write fails instead
    Flush(w);
    return SQLITE_IOERR_NOMEM;
  }
  return ends_commit ? Flush(w) : SQLITE_OK;
}

// Everything but an append first writes the run, so the file is as SQLite left it.
int FlushFirst(sqlite3_file* f) {
  Wal(f)->commit_next = false;
  return Flush(Wal(f));
}

int Close(sqlite3_file* f) {
  WalFile* w = Wal(f);
  const int flushed = Flush(w);
  const int rc = w->real->pMethods ? w->real->pMethods->xClose(w->real) : SQLITE_OK;
  w->~WalFile();
  return flushed != SQLITE_OK ? flushed : rc;
}

int Read(sqlite3_file* f, void* out, int amount, sqlite3_int64 at) {
  if (const int rc = FlushFirst(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xRead(Real(f), out, amount, at);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (const int rc = FlushFirst(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (const int rc = FlushFirst(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  if (const int rc = FlushFirst(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int CheckReservedLock(sqlite3_file* f, int* out) { return Real(f)->pMethods->xCheckReservedLock(Real(f), out); }
int FileControl(sqlite3_file* f, int op, void* arg) {
  if (const int rc = FlushFirst(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }
int ShmMap(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) { return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags); }
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int remove) { return Real(f)->pMethods->xShmUnmap(Real(f), remove); }
int Fetch(sqlite3_file* f, sqlite3_int64 at, int amount, void** out) {
  if (const int rc = FlushFirst(f); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xFetch(Real(f), at, amount, out);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 at, void* page) { return Real(f)->pMethods->xUnfetch(Real(f), at, page); }

// One table per version of the default VFS's file methods (SQLite reads a method only when the
// version has it, so a WAL file offers exactly what the file under it offers).
sqlite3_io_methods MethodsOfVersion(int version) {
  return {version, Close,  Read,   Write,  Truncate, Sync,     FileSize,  Lock, Unlock, CheckReservedLock,
          FileControl, SectorSize, DeviceCharacteristics, ShmMap, ShmLock, ShmBarrier, ShmUnmap, Fetch, Unfetch};
}
const sqlite3_io_methods kMethods[3] = {MethodsOfVersion(1), MethodsOfVersion(2), MethodsOfVersion(3)};

int Open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  // Every file but a WAL is the default VFS's own file, in the space SQLite gave.
  if (!(flags & SQLITE_OPEN_WAL)) return base_vfs->xOpen(base_vfs, name, f, flags, out_flags);
  auto* w = new (f) WalFile{};
  w->base.pMethods = nullptr;  // until the file under it is open: SQLite then never closes it
  w->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(f) + RealOffset());
  std::memset(w->real, 0, static_cast<size_t>(base_vfs->szOsFile));
  const int rc = base_vfs->xOpen(base_vfs, name, w->real, flags, out_flags);
  if (rc != SQLITE_OK || !w->real->pMethods) {
    if (w->real->pMethods) w->real->pMethods->xClose(w->real);
    w->~WalFile();
    f->pMethods = nullptr;
    return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
  }
  const int version = w->real->pMethods->iVersion;
  w->base.pMethods = &kMethods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
  return SQLITE_OK;
}

// The rest of the VFS is the default one's, called with the default one (it keeps its own state
// in its sqlite3_vfs).
int Delete(sqlite3_vfs*, const char* name, int sync_dir) { return base_vfs->xDelete(base_vfs, name, sync_dir); }
int Access(sqlite3_vfs*, const char* name, int flags, int* out) { return base_vfs->xAccess(base_vfs, name, flags, out); }
int FullPathname(sqlite3_vfs*, const char* name, int n, char* out) { return base_vfs->xFullPathname(base_vfs, name, n, out); }
void* DlOpen(sqlite3_vfs*, const char* name) { return base_vfs->xDlOpen(base_vfs, name); }
void DlError(sqlite3_vfs*, int n, char* out) { base_vfs->xDlError(base_vfs, n, out); }
void (*DlSym(sqlite3_vfs*, void* lib, const char* symbol))(void) { return base_vfs->xDlSym(base_vfs, lib, symbol); }
void DlClose(sqlite3_vfs*, void* lib) { base_vfs->xDlClose(base_vfs, lib); }
int Randomness(sqlite3_vfs*, int n, char* out) { return base_vfs->xRandomness(base_vfs, n, out); }
int Sleep(sqlite3_vfs*, int micros) { return base_vfs->xSleep(base_vfs, micros); }
int CurrentTime(sqlite3_vfs*, double* out) { return base_vfs->xCurrentTime(base_vfs, out); }
int GetLastError(sqlite3_vfs*, int n, char* out) { return base_vfs->xGetLastError(base_vfs, n, out); }
int CurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) { return base_vfs->xCurrentTimeInt64(base_vfs, out); }
int SetSystemCall(sqlite3_vfs*, const char* name, sqlite3_syscall_ptr call) {
  return base_vfs->xSetSystemCall(base_vfs, name, call);
}
sqlite3_syscall_ptr GetSystemCall(sqlite3_vfs*, const char* name) { return base_vfs->xGetSystemCall(base_vfs, name); }
const char* NextSystemCall(sqlite3_vfs*, const char* name) { return base_vfs->xNextSystemCall(base_vfs, name); }

}  // namespace

const char* GatheringVfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    base_vfs = sqlite3_vfs_find(nullptr);
    // At most version 3, the methods forwarded here; an older default VFS keeps its own version
    // (SQLite then never calls the later methods).
    gathering = {base_vfs->iVersion < 3 ? base_vfs->iVersion : 3,
                 static_cast<int>(RealOffset()) + base_vfs->szOsFile,
                 base_vfs->mxPathname,
                 nullptr,
                 "emsim-wal-gather",
                 nullptr,
                 Open, Delete, Access, FullPathname, DlOpen, DlError, DlSym, DlClose, Randomness, Sleep,
                 CurrentTime, GetLastError, CurrentTimeInt64, SetSystemCall, GetSystemCall, NextSystemCall};
    sqlite3_vfs_register(&gathering, 0);
  });
  return gathering.zName;
}

WalGatherCounts WalGatherCountsNow() {
  return {appends.load(std::memory_order_relaxed), writes.load(std::memory_order_relaxed)};
}

}  // namespace emsim::runtime
