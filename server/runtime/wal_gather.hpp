#pragma once
// A SQLite VFS that gathers a commit's WAL writes into one write.
//
// SQLite appends each WAL frame as two writes (its 24-byte header, then the page), so a commit of
// ten pages is twenty pwrite calls, and on a machine where a system call is dear they were a fifth
// of the durable writer's time. SQLite has no setting for it; a VFS is its own way to change how
// a file is written. This one passes everything to the default VFS, except that a WAL file's
// appends are kept in memory until the commit's last frame (the frame whose header carries the
// database size: the commit record of the WAL format, sqlite.org/fileformat2.html#walformat) and
// then written as one. Anything else done to the WAL (a read, a sync, a truncate, its size, a
// write elsewhere, closing it) writes what is kept first.
//
// Why nothing acknowledged can be lost: a commit exists for readers and for recovery only once
// its frames are in the file. Its frames are written before the commit's last xWrite returns,
// which is before SQLite publishes the new WAL end in the shared index, so no other connection can
// look for a frame that is still in memory; a process killed with frames in memory leaves a WAL
// without that commit record, which recovery drops as it drops any torn tail. A failed write is
// that xWrite's error, as a failed frame write always was. With synchronous=FULL the sync follows
// as before, after the frames are written.
#include <cstdint>

namespace emsim::runtime {

// The VFS's name for sqlite3_open_v2, registered (not as the default) on the first call.
const char* GatheringVfs();

// What the VFS has done in this process, for tests and benchmarks: WAL appends taken in, and
// writes made of them.
struct WalGatherCounts {
  std::uint64_t appends = 0;
  std::uint64_t writes = 0;
};
WalGatherCounts WalGatherCountsNow();

}  // namespace emsim::runtime
