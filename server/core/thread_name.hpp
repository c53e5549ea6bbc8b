#pragma once
// Threads named as `top -H`, `ps -L`, gdb and perf show them. emsim runs a durable writer, a
// checkpointer, a scheduler and a thread per connection; a profile or a stuck process is read by
// these names instead of a column of "emsim". Linux keeps 15 bytes of a name.
#include <pthread.h>

#include <thread>
#include <utility>

namespace emsim::core {

// A thread that takes `name` and runs `f`.
template <class F>
std::thread NamedThread(const char* name, F&& f) {
  return std::thread([name, f = std::forward<F>(f)]() mutable {
    pthread_setname_np(pthread_self(), name);
    f();
  });
}

}  // namespace emsim::core
