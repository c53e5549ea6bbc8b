#pragma once
// The request journal (GET /_sim/requests): a bounded, thread-safe ring of the latest requests.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/time.hpp"

namespace emsim::runtime {

// What the request pipeline records of one request. Kept as plain fields and turned into the
// journal's JSON record only when someone lists the journal: building a JSON object (and
// formatting the time) on every request cost more than some handlers.
struct JournalEntry {
  std::string id;
  model::Millis time = 0;
  std::string method, path;
  json query;                  // null = none (listed as {}); null by default, as it is always moved in
  std::string operationId;     // "" = no route matched (listed as null)
  std::string accountId;       // the caller's account once its API key was accepted ("" = listed as null)
  // The request's headers (names lower-cased); listed with the secret ones masked
  // (x-auth-service, authorization, cookie) unless asked for secrets.
  std::vector<std::pair<std::string, std::string>> headers;
  int status = 0;
  bool hasBody = false;
  // The JSON body as the client sent it (hasBody: it parsed), parsed again only when listed, with
  // passwords redacted. Text, not the parsed document: the request's text is moved in for free,
  // and the entry a new one replaces is freed in one piece, not node by node through memory last
  // touched thousands of requests ago.
  std::string body;
  std::string rawBody;         // first 4 KiB of a body that is not JSON
  json validationErrors;       // null = none (or, see below, those of `response`)
  // An error answer (status >= 400) as the JSON text that was sent; "" = none. Text, not a
  // document: the answer is serialized for the client anyway, and copying its document (and its
  // field errors a second time) into the journal was a tenth of the 400 path.
  std::string response;
  bool validationErrorsInResponse = false;  // the field errors are `response`'s "errors"
  std::string faultId;         // the /_sim/faults fault the request met ("" = none)
  std::string faultError;      // why that fault's patch did not apply ("" = it did)
  // An answer not sent yet: a durable one, which goes out once its change is on disk. Neither
  // listed nor counted until then (Journal::Settle, or Replace when the disk refused it), so the
  // journal never shows a client's request before the client has its answer.
  bool pending = false;
};

// What GET /_sim/requests filters by and POST /_sim/requests/count counts (WireMock's verify):
// every field given must match; an absent one matches anything.
struct RequestPattern {
  std::optional<std::string> method, path, pathPrefix, operationId, accountId;
  std::optional<int> status;
  std::optional<model::Millis> since;  // journaled at or after (simulated time, as `time` is listed)
  std::vector<std::pair<std::string, std::string>> headers;  // name (any case) -> exact value
  json body;  // null: any; else the request's JSON body must contain it (objects: these keys, at any depth)
};
// Why a journal record does not match: one reason per criterion it fails ("status: 400, not 201");
// empty when it matches.
std::vector<std::string> Mismatches(const json& record, const RequestPattern& pattern);

class Journal {
 public:
  explicit Journal(size_t capacity);

  // Answers the entry's ticket, for Settle and Replace.
  std::uint64_t Add(JournalEntry&& entry);
  // Newest last, those matching `pattern`; limit keeps the newest N. With `secrets` false, the
  // bodies, answers and headers listed have their secrets masked (model::MaskSecretValues), as
  // GET /_sim/state does without ?secrets=true.
  json List(const RequestPattern& pattern, size_t limit, bool secrets = false) const;
  // {count, nearMisses}: how many journaled requests match; when none does, the (up to) three
  // that come closest (fewest mismatches, newest first), each with its reasons.
  json Count(const RequestPattern& pattern) const;
  void Clear();
  // A pending entry's answer went out as journaled: from now on it is listed and counted.
  void Settle(std::uint64_t ticket);
  // A pending entry's answer was replaced (a durable answer whose change the data file refused):
  // its status and error text become these, and it is listed. False when it is no longer kept.
  bool Replace(std::uint64_t ticket, int status, std::string response);
  // Forgets the entries of one account's requests (a tenant deleted); answers how many.
  size_t EraseAccount(const std::string& account_id);
  size_t size() const;

 private:
  using Item = JournalEntry;
  std::uint64_t Put(Item&& item);
  // Calls f with the entry of `ticket` under its stripe's lock; false when it is no longer kept.
  template <class F>
  bool WithEntry(std::uint64_t ticket, F&& f);
  // Every journaled record, oldest first, as listed (secrets not yet masked).
  std::vector<json> Records() const;

  // Striped: a request takes a ticket (one atomic add) and puts its entry in stripe ticket %
  // stripes, each stripe a small ring with its own lock. One lock for the whole journal put every
  // request of every connection through one critical section; when the thread holding it was
  // preempted (32 connections on 2 cores), every other request queued behind it, and the GET p99
  // went from ~2.4 ms to ~4.3 ms. Two requests now meet on a lock only when their
  // tickets are `stripes` apart and one is preempted in its few instructions of swap.
  struct alignas(64) Stripe {  // a cache line of its own: neighbouring tickets take neighbouring stripes
    mutable std::mutex mu;
    std::vector<std::pair<std::uint64_t, Item>> ring;  // (ticket, entry); grows to per_stripe_
    size_t next = 0;                                   // the oldest slot once the ring is full
  };
  static constexpr size_t kMaxStripes = 256;

  size_t capacity_;
  std::vector<Stripe> stripes_;  // min(capacity_, kMaxStripes) of them
  size_t per_stripe_;            // ceil(capacity_ / stripes): the newest capacity_ tickets always fit
  std::atomic<std::uint64_t> tickets_{0};
};

// The journal record of an entry: {id, time, method, path, query, operationId, status, body |
// rawBody, validationErrors?, response?, faultId?, faultError?}.
json ToJson(const JournalEntry& e);

// Replaces the value of every "password" key, at any depth, so secrets never reach the journal,
// the logs or a dump (Part 4.5 third-party credentials).
json Redact(const json& value);
// A body that was not valid JSON is journaled raw, unless it mentions a password anywhere: then
// only a placeholder is kept (Part 4.5 credentials are never journaled in clear).
std::string RedactRawBody(const std::string& raw);

}  // namespace emsim::runtime
