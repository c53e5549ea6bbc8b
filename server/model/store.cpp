#include "model/store.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace emsim::model {

namespace {

size_t Records(const State& s) {
  return s.accounts.size() + s.domains.size() + s.mailboxes.size() + s.emails.size() + s.events.size() +
         s.placementTests.size() + s.deliveries.size() + s.jobs.size();
}

void Free(State old, bool trim) {
  { const State gone = std::move(old); }
#if defined(__GLIBC__)
  // glibc keeps freed memory in the malloc arena of the thread that allocated it, and a reset or a
  // load runs on whichever HTTP worker took the request: every big state freed stayed resident in
  // some arena (three resets of a 100k-mailbox fixture: 750 MiB). Hand its pages back.
  if (trim) malloc_trim(0);
#else
  (void)trim;
#endif
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
  discarder_ = std::thread([state = std::move(old)]() mutable { Free(std::move(state), true); });
}

}  // namespace emsim::model
