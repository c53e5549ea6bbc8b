#pragma once
// The one store (STYLE.md habit 3): a State behind a reader/writer lock, a baseline to reset to,
// and whole-state dump/load. Every change to the world happens in a write transaction, so
// concurrent requests never lose an update: a wallet debit and its balance check happen under one
// lock.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "model/state.hpp"
#include "runtime/persist.hpp"
#include "core/thread_name.hpp"

namespace emsim::runtime {

using model::DumpState;
using model::kNoJobDue;
using model::LoadState;
using model::Millis;
using model::State;

// Hands the pages of freed memory back to the system: after start-up (the fixture text, its parse
// tree and the schema files are gone) and after a big state is freed.
void ReturnFreedPages();

class Store {
 public:
  // What Reset returns to is the state the store was created with (the loaded fixtures). Either
  // the store keeps a copy of it, or, for a state a recipe rebuilds exactly (a fixture's
  // `generate:` mapping, fixture/fixture_gen.hpp), `rebuild` makes it again when it is needed: a
  // 100k-mailbox fixture is then held once, not twice (measured: 350 -> 190 MiB resident), at the
  // price of a slower reset (the rebuild, ~0.35 s at 100k, against ~0.1 s for copying in place).
  using Rebuild = std::function<State()>;

  // Without `rebuild`, the copy is made on a background thread so a large fixture starts serving
  // reads without waiting for it. Nothing can change the state before the copy is done: a write
  // transaction, Reset and Load wait for it. `initial`'s indexes must be current (LoadState and
  // the fixture loader keep them so); they are copied, or rebuilt, with the state.
  explicit Store(State initial, Rebuild rebuild = {}) : state_(std::move(initial)), rebuild_(std::move(rebuild)) {
    if (rebuild_) {
      baseline_ready_ = true;
      return;
    }
    copier_ = core::NamedThread("state-baseline", [this] {
      auto copy = std::make_unique<State>(state_);  // state_ cannot change until baseline_ready_
      std::lock_guard lock(baseline_mu_);
      baseline_ = std::move(copy);
      baseline_ready_ = true;
      baseline_cv_.notify_all();
    });
  }
  // A store whose current state is not the one Reset returns to: a world recovered from a data
  // directory (--data-dir) over the fixtures it was first made from.
  Store(State current, State baseline)
      : state_(std::move(current)), baseline_(std::make_unique<State>(std::move(baseline))), baseline_ready_(true) {}
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // ---- transactions ---------------------------------------------------------------------------
  // The store's lock is taken only here, by a transaction: a ReadTxn holds it shared, a WriteTxn
  // exclusive, each from its Begin until it ends (End/Commit, or its destructor). Whoever opens
  // one passes it on to the code that works in it (the router hands a request's to its handler
  // through app::Ctx), so the lock is always visible where it is used. The lock is not
  // recursive: a thread that opens a second transaction while it holds a write transaction gets
  // a logic_error (a 500 naming it), not a deadlock.
  class ReadTxn {
   public:
    ReadTxn(ReadTxn&&) noexcept = default;
    ReadTxn& operator=(ReadTxn&&) = delete;
    const State& state() const { return store_->state_; }
    bool open() const { return lock_.owns_lock(); }
    void End() {
      if (lock_.owns_lock()) lock_.unlock();
    }

   private:
    friend class Store;
    explicit ReadTxn(const Store& store) : store_(&store), lock_(store.mu_) {}
    const Store* store_;
    std::shared_lock<std::shared_mutex> lock_;
  };

  class WriteTxn {
   public:
    WriteTxn(WriteTxn&&) noexcept = default;
    WriteTxn& operator=(WriteTxn&&) = delete;
    ~WriteTxn() { Commit(); }
    State& state() { return store_->state_; }
    bool open() const { return lock_.owns_lock(); }
    // Ends the transaction: wakes the scheduler if it scheduled a job (still under the lock, so
    // the wake-up is ordered with the change), then releases the lock. Nothing to roll back: a
    // model function that refuses its input changes nothing (model/state.hpp).
    void Commit() {
      if (!lock_.owns_lock()) return;
      store_->ReportScheduled();
      store_->state_.TrimLogs(store_->keep_logs_);
      // Queued in commit order, under the lock; the answer waits for it in AwaitDurable.
      if (store_->persister_) store_->persister_->Collect(store_->state_);
      store_->writer_.store(std::thread::id(), std::memory_order_relaxed);
      lock_.unlock();
    }

   private:
    friend class Store;
    explicit WriteTxn(Store& store) : store_(&store), lock_(store.LockForWrite()) {
      store.writer_.store(std::this_thread::get_id(), std::memory_order_relaxed);
      store.state_.earliestNewJobDue = kNoJobDue;
      store.state_.jobClock.clear();  // the instance clock unless the writer says whose
      store.state_.logsRewritten = false;
      if (store.persister_) store.persister_->Mark(store.state_);
    }
    Store* store_;
    std::unique_lock<std::shared_mutex> lock_;
  };

  ReadTxn BeginRead() const {
    RefuseNested("BeginRead");
    return ReadTxn(*this);
  }
  WriteTxn BeginWrite() {
    RefuseNested("BeginWrite");
    AwaitBaseline();
    return WriteTxn(*this);
  }

  // A transaction of its own around `f`.
  template <class F>
  auto Read(F&& f) const {
    const ReadTxn txn = BeginRead();
    return f(txn.state());
  }
  // The same for one step of a long piece of work done in read transactions, one per step (a
  // search index built by a search's catch-up, app::Ctx::ReadInSteps, or ahead, SearchWarmer).
  // The lock lets a reader in while a writer waits, so two such workers whose steps overlapped
  // held it between them for as long as both ran, and a write waited for all of it (1.4 s at a
  // million mailboxes, a first search beside the warm-up). Here one step runs at a time, and a
  // step begins once no write is waiting (giving up on that after `defer`, so a steady stream of
  // writes cannot stop the work): a write waits for at most about one step.
  template <class F>
  auto ReadStep(F&& f, std::chrono::milliseconds defer = std::chrono::milliseconds(1)) const {
    RefuseNested("ReadStep");
    std::lock_guard one_at_a_time(steps_mu_);
    const auto give_up = std::chrono::steady_clock::now() + defer;
    while (writers_waiting_.load(std::memory_order_relaxed) > 0 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
    return Read(std::forward<F>(f));
  }
  template <class F>
  auto Write(F&& f) {
    WriteTxn txn = BeginWrite();
    return f(txn.state());
  }

  // The scheduler's one wake-up: called when a write transaction that scheduled a job commits,
  // with the earliest due time it scheduled, and after Reset and Load with kNoJobDue's opposite
  // (INT64_MIN: look again at everything). It runs with the write lock held, so it must only
  // signal, never lock the store. Set once, before the store is used by more than one thread.
  void SetJobsObserver(std::function<void(Millis)> observer) { jobs_observer_ = std::move(observer); }
  // Called after Reset and Load replaced the state, outside the lock: a new world, whose search
  // caches start empty (SearchWarmer builds them again). Set once, before the store is used by
  // more than one thread.
  void SetReplacedObserver(std::function<void()> observer) { replaced_observer_ = std::move(observer); }

  // Retention: every write transaction, reset and load ends with each log (events, deliveries,
  // notifications, wallet movements) cut to its newest `keep` entries; 0 keeps everything. Set once, before the
  // store is used by more than one thread.
  // The first cut is a write transaction like any other, so a durable copy learns of it.
  void SetLogRetention(size_t keep) {
    keep_logs_ = keep;
    Write([](State&) {});
  }

  // A write transaction with the loaded fixtures at hand (POST /_sim/tenants clones from them).
  template <class F>
  auto WriteWithBaseline(F&& f) {
    RefuseNested("WriteWithBaseline");
    AwaitBaseline();
    if (rebuild_) {
      // Rebuilt before taking the lock (other requests go on meanwhile); freed after releasing it.
      struct Rebuilt {
        Store& store;
        State state;
        ~Rebuilt() { store.Discard(std::move(state)); }
      } fixture{*this, rebuild_()};
      WriteTxn txn = BeginWrite();
      return f(txn.state(), static_cast<const State&>(fixture.state));
    }
    WriteTxn txn = BeginWrite();
    return f(txn.state(), static_cast<const State&>(*baseline_));
  }

  // ---- durable state (--data-dir) ----------------------------------------------------------------
  // From now on every write transaction, reset and load is queued to `p`, which must outlive the
  // store. Set once, before the store is used by more than one thread.
  // `write_whole`: queue the whole state first (a new data directory).
  void Persist(Persister& p, bool write_whole) {
    AwaitBaseline();  // the baseline copy reads the state this changes
    const auto lock = LockForWrite();
    Persister::Track(state_);
    persister_ = &p;
    if (write_whole) p.CollectAll(state_);
  }
  // Returns once everything changed so far is on disk (no-op in memory). The router calls it
  // before answering a request that may have changed something: an answer means durable.
  void AwaitDurable() {
    if (persister_) persister_->Sync();
  }
  // The same without waiting: what everything changed so far is on disk with (none in memory),
  // and `done(true)` once it is, done(false) if it never will be (Persister::OnDurable).
  std::optional<std::uint64_t> DurableTicket() {
    if (!persister_) return std::nullopt;
    return persister_->Ticket();
  }
  void OnDurable(std::uint64_t ticket, std::function<void(bool)> done) { persister_->OnDurable(ticket, std::move(done)); }
  // Whether the disk has refused a write (from then on every write is refused: Persister::Sync).
  bool DurableFailed() const { return persister_ && persister_->Failed(); }
  // The data file and its writer's figures (GET /_sim/health); none in memory.
  struct DurableStatus {
    std::string file;
    Durability durability;
    Persister::Stats stats;
  };
  std::optional<DurableStatus> Durable() const {
    if (!persister_) return std::nullopt;
    return DurableStatus{persister_->path(), persister_->durability(), persister_->stats()};
  }

  // Back to the state the store was created with (the loaded fixtures).
  void Reset() {
    RefuseNested("Reset");
    AwaitBaseline();
    if (rebuild_) {
      Replace(rebuild_());  // rebuilt before taking the lock
      return;
    }
    {
      const auto lock = LockForWrite();
      state_ = *baseline_;  // copy-assigned in place: the records' buffers are reused, nothing is freed
      state_.TrimLogs(keep_logs_);
      ++generation_;
      PersistAll();
    }
    Replaced();
  }

  json Dump() const {
    const ReadTxn txn = BeginRead();
    return DumpState(txn.state());
  }
  // Dump().dump() after `edit`, without the document of the large lists (model::DumpStateTo),
  // written to `out` (held in memory up to its limit, then in a temporary file).
  void DumpTo(const std::function<void(json&)>& edit, core::SpillText& out) const {
    const ReadTxn txn = BeginRead();
    DumpStateTo(txn.state(), edit, out);
  }

  // Replaces the whole state; throws (leaving the state as it was) when `j` is not a valid dump.
  void Load(const json& j) {
    RefuseNested("Load");  // before the work of loading
    Load(LoadState(j));
  }
  // The same with a state already loaded and checked (model::LoadSplitState).
  void Load(State next) {
    RefuseNested("Load");
    AwaitBaseline();
    Replace(std::move(next));
  }

  // Write transactions waiting for the lock (tests).
  int WritesWaiting() const { return writers_waiting_.load(); }

  // Counts Reset() and Load(): work begun on one state (a webhook attempt in flight) compares it
  // before writing its result, so it never lands in the state that replaced it.
  std::uint64_t generation() const { return generation_.load(); }

 private:
  // A programming error made loud (a 500 naming it) instead of a deadlock: this thread already
  // holds the write lock, which is not recursive.
  void RefuseNested(const char* what) const {
    if (writer_.load(std::memory_order_relaxed) == std::this_thread::get_id())
      throw std::logic_error(std::string("Store::") + what + " inside a write transaction of the same thread");
  }

  void Replace(State next) {
    {
      const auto lock = LockForWrite();
      std::swap(state_, next);
      state_.TrimLogs(keep_logs_);
      ++generation_;
      PersistAll();
    }
    Replaced();
    Discard(std::move(next));  // the old state, outside the lock
  }
  // After Reset or Load, outside the lock: the scheduler looks again at every job, the observer
  // learns of the new world.
  void Replaced() {
    Wake(INT64_MIN);
    if (replaced_observer_) replaced_observer_();
  }

  // The whole state replaced (reset, load): written whole, in order with the transactions; the
  // lock is held.
  void PersistAll() {
    if (!persister_) return;
    Persister::Track(state_);
    persister_->CollectAll(state_);
  }

  // Reports the earliest job a write transaction scheduled (State::earliestNewJobDue, cleared when
  // the transaction began); its lock is held.
  void ReportScheduled() {
    const Millis due = state_.earliestNewJobDue;
    if (due == kNoJobDue) return;
    state_.earliestNewJobDue = kNoJobDue;
    Wake(due);
  }
  void Wake(Millis due) {
    if (jobs_observer_) jobs_observer_(due);
  }

  // Frees a state that is no longer used: a small one at once, a big one (a 100k-mailbox state
  // takes ~0.25 s to free) on a background thread, so the request that replaced it need not wait.
  void Discard(State old);  // store.cpp

  void AwaitBaseline() {
    if (baseline_ready_.load(std::memory_order_acquire)) return;
    std::unique_lock lock(baseline_mu_);
    baseline_cv_.wait(lock, [this] { return baseline_ready_.load(); });
  }

  mutable std::shared_mutex mu_;
  // Writes waiting for mu_ (ReadStep defers to them; every exclusive lock is taken through
  // LockForWrite, so a reset or a load counts too), and the lock that runs ReadStep's steps one
  // at a time.
  std::atomic<int> writers_waiting_{0};
  mutable std::mutex steps_mu_;
  std::unique_lock<std::shared_mutex> LockForWrite() {
    writers_waiting_.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock lock(mu_);
    writers_waiting_.fetch_sub(1, std::memory_order_relaxed);
    return lock;
  }
  // The thread holding mu_ exclusively through a WriteTxn, if any: only to refuse a nested
  // transaction loudly (RefuseNested); nothing else depends on it.
  std::atomic<std::thread::id> writer_{};
  std::atomic<std::uint64_t> generation_{0};
  State state_;
  const Rebuild rebuild_;
  std::unique_ptr<State> baseline_;  // the copy kept when there is no rebuild_
  std::atomic<bool> baseline_ready_{false};
  std::mutex baseline_mu_;
  std::condition_variable baseline_cv_;
  std::thread copier_;
  std::mutex discard_mu_;
  std::thread discarder_;  // the one freeing a big state, if any
  std::function<void(Millis)> jobs_observer_;
  std::function<void()> replaced_observer_;
  Persister* persister_ = nullptr;  // --data-dir; null in memory
  size_t keep_logs_ = 0;            // SetLogRetention
};

}  // namespace emsim::runtime
