#include "runtime/store.hpp"
#include "core/thread_name.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// jemalloc's control entry point when emsim links jemalloc (the server binary does; tests do not):
// declared weak, so it is null under glibc malloc.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace emsim::runtime {

namespace {

size_t Records(const State& s) {
  return s.accounts.size() + s.domains.size() + s.mailboxes.size() + s.emails.size() + s.events.size() +
         s.placementTests.size() + s.deliveries.size() + s.jobs.size();
}

}  // namespace

// Either allocator keeps freed pages otherwise: glibc in the arena of the thread that allocated them
// (a reset runs on whichever HTTP worker took the request: three resets of a 100k-mailbox fixture
// left 750 MiB resident), jemalloc for its decay time (~10 s; 640 MiB right after six resets).
void ReturnFreedPages() {
  if (mallctl != nullptr) {
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // 4096: MALLCTL_ARENAS_ALL
    return;
  }
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

namespace {

void Free(State old, bool return_pages) {
  { const State gone = std::move(old); }
  if (return_pages) ReturnFreedPages();
}

}  // namespace

Store::~Store() {
  if (copier_.joinable()) copier_.join();
  std::lock_guard lock(discard_mu_);
  if (discarder_.joinable()) discarder_.join();
}

void Store::Discard(State old) {
  if (Records(old) < 20000) {
    Free(std::move(old), false);
    return;
  }
  std::lock_guard lock(discard_mu_);
  if (discarder_.joinable()) discarder_.join();  // one at a time: memory is what this is about
  discarder_ = core::NamedThread("state-free", [state = std::move(old)]() mutable { Free(std::move(state), true); });
}

}  // namespace emsim::runtime
