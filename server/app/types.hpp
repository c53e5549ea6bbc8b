#pragma once
// What the pipeline hands a handler and what a handler hands back. No httplib here: handlers
// translate between these and the model (STYLE.md habit 2).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "app/services.hpp"
#include "http/message.hpp"
#include "model/auth.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "model/state.hpp"
#include "model/tenants.hpp"
#include "runtime/clock.hpp"

namespace emsim::app {

using http::Headers;
using http::RawRequest;
using http::Response;

struct Request {
  std::string method, path, requestId, operationId;
  std::string accountId;  // the caller's account once its API key is accepted ("" before, or on /_sim)
  // Wall time the pipeline took it up: the request log line's duration (the simulated clock may
  // stand still or jump).
  std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();
  std::map<std::string, std::string> params;  // path parameters (":id")
  json query = json::object();                // query string, values as strings
  json body;                                  // parsed JSON body; null when there was none
  bool hasBody = false;
  bool canDefer = false;  // the connection can send the answer later (http::RawRequest::canDefer)
  // The answer is sent later, once its change is on disk: journaled as pending (runtime::Journal),
  // and the ticket of its journal entry kept for the gate that sends it (none: not journaled).
  bool answerDeferred = false;
  std::optional<std::uint64_t> journalTicket;
  // PUT /_sim/state's body read straight into records (model::SplitStateText) instead of `body`:
  // its document would be ~6 times the text. Mutable: the handler moves the records out.
  mutable std::optional<model::StateText> stateText;
  std::string rawBody;
  Headers headers;                    // names lower-cased
  std::optional<model::Fault> fault;  // the /_sim/faults fault this request met, if any
  // The header's value, "" when absent; a reference, not a copy (an API key is longer than a
  // short string's inline room, so each copy was an allocation: measured on every request).
  const std::string& Header(std::string_view lower_name) const {
    static const std::string kNone;
    auto it = headers.find(lower_name);
    return it == headers.end() ? kNone : it->second;
  }
  std::string Query(const std::string& key, std::string def = "") const {
    return query.contains(key) && query[key].is_string() ? query[key].get<std::string>() : def;
  }
};

using Reply = model::Result<Response>;

// What a handler works with. A handler reaches the state only through Read and Write here, which
// run in the request's transaction when the router opened one (router.cpp, "handler"):
//  - a write route's WriteTxn: authentication and every Read before the first Write see the state
//    that Write changes; that Write commits the transaction when it returns, so what the handler
//    does after its change (shaping the answer) holds up no other request;
//  - a read route's ReadTxn (GET, or an operation marked read-only): held until the handler
//    returns; a Write there is a bug, refused with a logic_error (a 500 naming the operation).
// Without one (/_sim routes: they reset, load, or wait for the scheduler's jobs, which write),
// and after a write route's commit, each call is a transaction of its own.
struct Ctx {
  app::Services& svc;
  const Request& req;
  model::Caller caller{};
  model::Millis now = 0;
  std::optional<runtime::Store::ReadTxn> readTxn{};
  std::optional<runtime::Store::WriteTxn> writeTxn{};
  // The clock the request works on: "" the instance clock, else the id of the tenant (with a
  // clock of its own) whose key it carries; `now` is that clock's. What a Write schedules is due
  // on it (model::State::jobClock).
  std::string clock{};

  template <class F>
  auto Read(F&& f) {
    if (writeTxn && writeTxn->open()) return f(static_cast<const model::State&>(writeTxn->state()));
    if (readTxn && readTxn->open()) return f(readTxn->state());
    return svc.store.Read(std::forward<F>(f));
  }
  // Runs `step` (const model::State& -> how much is left to do) in read transactions of its own
  // (runtime::Store::ReadStep: one step at a time, after any waiting write) until it answers 0, the
  // request's read transaction let go meanwhile and opened again after: a long preparation (a big
  // workspace's first search building its index, model::WorkspaceTextSearch::CatchUp) then holds
  // writes up for a step at a time, not for its whole length. What was authenticated stays as it
  // was; when steps were taken, the handler's next Read sees the state as it is then. In a write
  // transaction, which cannot be let go, it does nothing: the work is left to the handler's own
  // call. When steps stop making progress (records added faster than a step takes them, or the work
  // begun again: a record renamed), a few are allowed, then the handler's call does the rest.
  template <class F>
  void ReadInSteps(F&& step) {
    if (writeTxn && writeTxn->open()) return;
    const bool held = readTxn && readTxn->open();
    // The first step in the request's own transaction: with nothing to do (an index up to date, a
    // needle it does not serve), the request reads one state from its authentication on, as before.
    if (held) {
      if (step(readTxn->state()) == 0) return;
      readTxn.reset();
    }
    constexpr int kStalledSteps = 4;
    size_t before = SIZE_MAX;
    for (int stalled = 0; stalled < kStalledSteps;) {
      const size_t left = svc.store.ReadStep(step);
      if (left == 0) break;
      if (left >= before) ++stalled;
      before = left;
    }
    if (held) readTxn.emplace(svc.store.BeginRead());
  }
  template <class F>
  auto Write(F&& f) {
    if (readTxn && readTxn->open())
      throw std::logic_error("operation " + req.operationId + " is marked read-only but writes to the state");
    if (writeTxn && writeTxn->open()) {
      struct CommitOnReturn {  // also when `f` throws: the lock is never left held
        runtime::Store::WriteTxn& txn;
        ~CommitOnReturn() { txn.Commit(); }
      } commit{*writeTxn};
      writeTxn->state().jobClock = clock;
      return f(writeTxn->state());
    }
    return svc.store.Write([&](model::State& s) {
      s.jobClock = clock;
      return f(s);
    });
  }
  // Makes the rest of the request work on `account_id`'s clock when that is a tenant's own
  // (model/tenants.hpp): `now` becomes its now and, in a write, what is scheduled is due on it.
  // For /_sim routes that name an account in their body or by a record rather than by key.
  void UseClockOf(const model::State& s, const std::string& account_id) {
    if (const model::Tenant* t = model::OwnClockTenant(s, account_id)) {
      clock = t->id;
      now = model::OwnClockNow(*t, runtime::Clock::WallNow());
    }
  }
  void UseClockOf(model::State& s, const std::string& account_id) {
    UseClockOf(static_cast<const model::State&>(s), account_id);
    s.jobClock = clock;
  }
  // Ends the request's transaction, if one is still open (the router, once the handler returned).
  void EndTxn() {
    readTxn.reset();
    writeTxn.reset();
  }
};

using Handler = Reply (*)(Ctx&);

// The spec's envelope (Part 4 intro): {status, message, data}, status mirroring HTTP.
inline Response Envelope(std::string message, json data, int status = 200) {
  return Response{.status = status,
                  .body = json{{"status", status}, {"message", std::move(message)}, {"data", std::move(data)}}};
}
inline Response Json(json body, int status = 200) {
  return Response{.status = status, .body = std::move(body)};
}

}  // namespace emsim::app
