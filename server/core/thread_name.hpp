#pragma once
// Names the calling thread, as `top -H`, `ps -L`, gdb and perf show it. emsim runs a durable
// writer, a checkpointer, a scheduler and a thread per connection; a profile or a stuck process
// is read by these names instead of a column of "emsim". Linux keeps 15 bytes of a name.
#include <pthread.h>

namespace emsim::core {

inline void NameThisThread(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace emsim::core
