#pragma once
// The whole simulated world in one value. Records carry the spec's field names (Part 2) so
// that the API layer, the state dump and the fixtures all speak the same vocabulary. Timestamps
// are Millis (Unix ms, simulated clock); money is integer cents.
//
// State has no lock: runtime::Store owns one State and guards it. Functions that change a State
// live next to the resource they concern (model/<resource>.cpp) and take `now` explicitly.
#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <deque>
#include <functional>
#include <vector>

#include "model/ids.hpp"
#include "model/text_search.hpp"
#include "core/compact_string.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_out.hpp"
#include "core/json_read.hpp"
#include "model/money.hpp"
#include "model/statuses.hpp"
#include "model/stepped_map.hpp"
#include "model/table.hpp"
#include "core/time.hpp"

namespace emsim::core {
class SpillText;
}

namespace emsim::model {

using core::CompactString;

struct User {
  std::string id, email, firstName, lastName;
};

// Auto recharge of the wallet, from the public reference, not the spec
// (https://docs.zapmail.ai/enable-auto-recharge-13490713e0): `threshold` and
// `minimumRechargeAmount` default to $20 and $50 there.
struct AutoRecharge {
  bool enabled = false;
  Cents thresholdCents = 2000;
  Cents amountCents = 5000;
  bool operator==(const AutoRecharge&) const = default;
};

struct Account {
  std::string id;
  std::string apiKey;
  User user;
  Cents walletCents = 0;  // DESIGN.md: the wallet belongs to the account
  AutoRecharge autoRecharge;
};

struct BillingDetails {
  std::string id, userId, firstName, lastName, workspaceId, company, addressLineOne;
  std::optional<std::string> addressLineTwo, addressLineThree;
  std::string city, state, country, postalCode, phoneCc, phone;
  std::string languagePreference = "en";
};

// An invitation to join a workspace. Part 4.11 names workspace invitations without shapes, so
// emsim keeps only what its workspace.invitations event needs (README "emsim trigger").
struct WorkspaceInvitation {
  std::string id, email;
  std::string status = "PENDING";
  Millis createdAt = 0;
};

struct Workspace {
  std::string id;
  std::string accountId;
  std::string name;
  bool isDefault = false;
  std::optional<BillingDetails> billingDetails;
  Millis createdAt = 0;
  std::vector<WorkspaceInvitation> invitations;
};

struct DnsState {
  bool spf = false, dmarc = false, dkim = false, mx = false;
};

struct Domain {
  std::string id, accountId, workspaceId, domain;
  DomainStatus status = DomainStatus::kPending;
  Millis createdAt = 0, updatedAt = 0;
  std::optional<std::string> forwardTo;
  bool forwardToAddedOnReseller = false;
  std::optional<std::string> dmarcEmail;
  bool dmarcEmailAddedToReseller = false;
  std::optional<std::string> forwardingEmail;
  bool forwardingEmailAdded = false;
  std::optional<std::string> catchAllEmail;
  bool catchAllEmailAdded = false;
  std::optional<std::vector<std::string>> nameServers;
  std::string purchaseType = "REGISTERED";
  std::string serviceProvider = "GOOGLE";
  Millis registeredOn = 0, expireOn = 0;
  bool isWarmedUp = false;
  int healthScore = 0;
  std::optional<std::string> healthErrorMessage;
  std::string healthLabel = "Poor";
  std::vector<std::string> tags;
  DnsState dns;
};

struct Mailbox {
  std::string id, accountId, workspaceId, domainId;
  std::string username, firstName, lastName;
  MailboxStatus status = MailboxStatus::kActive;
  std::optional<std::string> profilePicture;
  Millis assignedOn = 0, expireOn = 0, createdAt = 0;
  // Marked by PUT /v2/mailboxes/scheduled-removal (from the public reference, not the spec).
  bool removeOnNextRenewal = false;
};

struct Subscription {
  std::string id, accountId, subscriptionId;
  SubscriptionStatus subscriptionStatus = SubscriptionStatus::kActive;
  std::string plan;
  std::string planKey;
  std::int64_t price = 0;  // whole dollars, as Part 2 shows an integer
  std::int64_t totalMailboxQuantity = 0;
  Millis periodStart = 0, periodEnd = 0, subscriptionCreationDate = 0;
  bool planUpgradeCancelPossible = true;
  std::optional<std::string> paymentFailureMessage;
  std::string invoiceDetails;
  std::int64_t placementCredits = 0;  // gap decision: MONTHLY placement credits per subscription
};

struct DnsShieldSubscription {
  std::string id, accountId, subscriptionId;
  std::string planType = "STARTER";
  std::int64_t totalSlots = 0, totalUsedSlots = 0;
  SubscriptionStatus status = SubscriptionStatus::kActive;  // the statuses of Part 2's subscriptions
};

// An invoice emsim issues for a charge: placement tests (Part 4.7 `invoice`) and DNS shield
// upgrades (Part 4.8 `invoiceUrl`). Readable at GET /_sim/invoices/<id>, the invoiceUrl.
// "USD", made once: each invoice copies it instead of looking the text up in the pool.
inline const CompactString& UsdCurrency() {
  static const CompactString usd("USD");
  return usd;
}

// The records a placement purchase adds (an invoice, a cart, a test per mailbox) keep their ids and
// repeated values as CompactString (16 bytes; core/compact_string.hpp): a soak of purchases keeps
// millions of them.
struct Invoice {
  CompactString id, accountId;
  std::string description;
  Cents amountCents = 0;
  CompactString currency = UsdCurrency();
  InvoiceStatus status = InvoiceStatus::kOpen;
  PaidWith paidWith = PaidWith::kUnpaid;
  Millis createdAt = 0;
  std::optional<Millis> paidAt;
};

// MONTHLY placement credits taken from one subscription (by record id) for one purchase.
struct CreditUse {
  CompactString subscriptionId;
  std::int64_t credits = 0;
};

// One placement_tests.purchase call (Part 4.7 `cartOrderId`): what was bought and how it was paid.
struct PlacementCart {
  CompactString id, accountId, workspaceId;  // id is the cartOrderId
  std::string testName;
  CompactString placementType;  // MONTHLY | ONE_TIME
  Cents totalCostCents = 0;
  CompactString invoiceId;
  CartStatus status = CartStatus::kPaid;
  bool walletUsed = false, checkoutSession = false;
  std::vector<CreditUse> creditsUsed;  // MONTHLY only
  std::vector<CompactString> orderIds;
  Millis createdAt = 0;
  std::optional<Millis> paidAt;
};

// A placement test order, one per mailbox (Part 2: orderId, mailboxEmail, status).
struct PlacementTest {
  CompactString id, accountId, workspaceId, cartOrderId;  // id is the orderId
  CompactString mailboxId, mailboxEmail;
  PlacementTestStatus status = PlacementTestStatus::kPending;
  Millis createdAt = 0, updatedAt = 0;
};

struct CatalogueEntry {
  std::string domainName;
  Cents domainPriceCents = 0, renewPriceCents = 0;
};

// A domain purchase waiting for (or done with) payment (domains.buy). The payment link of
// Part 4.4 points at /_sim/checkout/<id>; completing it there stands in for the user paying.
// A wallet purchase is recorded as an already PAID checkout, so every purchase has a receipt.
inline constexpr const char* kCheckoutForDomain = "domain";
inline constexpr const char* kCheckoutForWallet = "wallet_topup";

struct Checkout {
  std::string id, accountId, workspaceId;
  // What completing it delivers: kCheckoutForDomain (domains.buy) or kCheckoutForWallet
  // (wallet.add_balance: the wallet is credited amountCents; domainName stays empty).
  std::string purpose = kCheckoutForDomain;
  std::string domainName;
  std::int64_t years = 1;
  Cents amountCents = 0;             // domainPrice x years at the time of the request
  CheckoutStatus status = CheckoutStatus::kPending;
  PaidWith paidWith = PaidWith::kUnpaid;  // kWallet or kCheckout once paid
  std::optional<std::string> domainId;  // the domain created once paid
  Millis createdAt = 0;
  std::optional<Millis> paidAt;
};

struct Plan {
  std::string key, plan;
  std::int64_t price = 0, totalMailboxQuantity = 0, placementCredits = 0;
};

struct Address {
  std::string name, address;
};

struct Email {
  std::string id, accountId, workspaceId;
  std::string account, threadId, messageId, subject, snippet;
  Millis date = 0;
  std::vector<Address> from, to;
  std::vector<std::string> cc;
  std::int64_t size = 0;
  std::vector<std::string> labels;
  std::string folderPath;
  bool isRead = false, isStarred = false, hasAttachments = false;
};

// What one app of an export received when the export job ran (Part 4.5; the record's fields
// are not shown by the spec, so emsim keeps what a test needs to check the effect).
struct ExportAppResult {
  std::string app;
  ExportStatus status = ExportStatus::kCompleted;  // COMPLETED | FAILED
  std::int64_t rows = 0;                     // mailboxes written (CSV) or sent (third-party app)
  std::optional<std::string> accountEmail;   // third-party account the mailboxes were sent to
  std::vector<std::string> sentMailboxes;    // addresses sent to a third-party app
  std::optional<std::string> error;          // why this app failed
};

// An export of mailboxes (Part 4.5). The selection is fixed when the request is accepted; the
// job (kind "exports.run") fills `results` and, for MANUAL, `csv`. STARTED -> COMPLETED | FAILED.
struct MailboxExport {
  std::string id, accountId, workspaceId;
  std::vector<std::string> apps;
  std::vector<std::string> mailboxIds;
  json filters = json::object();             // the request's selection, as sent
  ExportStatus status = ExportStatus::kStarted;
  Millis createdAt = 0, completedAt = 0;     // completedAt 0: not finished
  std::optional<std::string> failureReason;
  Millis reconnectedAt = 0;                  // credentials fixed after a failure (export.reconnected)
  std::vector<ExportAppResult> results;
  std::optional<std::string> csv;            // MANUAL only, once completed
};

// Credentials of a third-party account used by exports (Part 4.5 update-third-party-account),
// one per (account, app, email). The password itself is never kept: only a SHA-256 fingerprint
// computed by the API layer, so dumps, journals and logs never hold it.
struct ThirdPartyAccount {
  std::string id, accountId, app, email;
  std::string passwordFingerprint;  // "sha256:<hex>"
  Millis createdAt = 0, updatedAt = 0;
};

// An account made by POST /_sim/tenants: `id` is the account's id; `templateId` the fixture
// account it was cloned from; `tag` the short text that makes the clone's names unique.
//
// Its clock: `clock` is "shared" (the instance clock, as every fixture account) or "own" (a clock
// of its own, so advancing it moves only this tenant's jobs). An own clock keeps its mode and,
// in manual mode, its now (`clockNow`); in real mode, its offset from wall time (`clockOffset`:
// now = wall + offset, so it keeps running while emsim is down, as the instance's real clock
// does). `clockStartMs`/`clockStartMode` are what it started as (a tenant reset goes back to
// them); `idsCounter` is the id generator's counter when its records were cloned, so a reset
// clones them again with the same ids.
struct Tenant {
  std::string id, templateId, tag;
  Millis createdAt = 0;
  std::string clock = "shared";
  std::string clockMode;  // "real" | "manual" (own clocks only)
  Millis clockNow = 0, clockOffset = 0, clockStartMs = 0;
  std::string clockStartMode;
  std::uint64_t idsCounter = 0;
  bool OwnClock() const { return clock == "own"; }
};

// A JSON value kept as its compact text, the text nlohmann's dump() makes of it; a dump shows and a
// load takes the value itself, and a data dir's row holds the text as it stands. For values the
// state keeps but does not look inside until later: a job's arguments (read when it runs) and an
// event's data (read when delivered or listed).
//
// Why text: a placement purchase schedules a job per cart, and under a manual clock jobs stay
// until the clock moves. As a json object its two arguments were six allocations and ~320 bytes
// of state per purchase, and building them ~1.2k instructions under the write lock; as text they
// are one allocation of ~80 bytes. An event's data as a json object took ~4.1 KB per retained
// event (placement_test.status_changed, 640 bytes of text), as text ~0.9 KB: with the default
// retention of 100,000 events, ~400 MB against ~90 MB.
class JsonText {
 public:
  JsonText() : text_("{}") {}
  // dump()'s bytes, ~4 times cheaper. Kept in an allocation of their size: DumpJson reserves 1 KB
  // for an answer, and every pending job and retained event holding that doubled the memory a
  // mailbox assignment keeps (1.2 -> 2.4 KB).
  explicit JsonText(const json& value) : text_(core::DumpJson(value)) { text_.shrink_to_fit(); }
  // `compact` must be what json::dump() makes of the value (the placement job writes its own).
  static JsonText FromText(std::string compact) {
    JsonText a;
    a.text_ = std::move(compact);
    a.text_.shrink_to_fit();
    return a;
  }
  json Parse() const { return json::parse(text_); }
  // json::value on the parsed object; callers reading several should Parse() once.
  std::string value(const char* key, const char* fallback) const { return Parse().value(key, fallback); }
  std::int64_t value(const char* key, std::int64_t fallback) const { return Parse().value(key, fallback); }
  const std::string& text() const { return text_; }
  bool operator==(const JsonText& other) const = default;

 private:
  std::string text_;
};
inline void to_json(json& j, const JsonText& a) { j = a.Parse(); }
inline void from_json(const json& j, JsonText& a) { a = JsonText(j); }
using JobArgs = JsonText;

// Part 6 envelope plus who owns it. `created` is Unix seconds of simulated time.
struct Event {
  std::string id, type, accountId;
  Millis createdMs = 0;
  std::string apiVersion = "2026-07-01";
  JsonText data;  // an object
};

// ---- Webhooks (Part 4.10, Part 6) ------------------------------------------------------------

// Part 2 "Webhook endpoint" plus what delivery needs. The secret is stored (deliveries are signed
// with it) but the API returns it only once, at creation.
struct WebhookEndpoint {
  std::string id, accountId, url;
  std::vector<std::string> enabledEvents;
  WebhookEndpointStatus status = WebhookEndpointStatus::kActive;
  std::string secret;  // whsec_...
  std::int64_t consecutiveFailures = 0;  // Part 3: 20 in a row -> disabled
  Millis createdAt = 0, updatedAt = 0;
  std::optional<Millis> disabledAt;
  std::optional<std::string> disabledReason;
};

// One delivery attempt (GET /_sim/deliveries); its status says what became of it. Times are simulated; durationMs
// is the real time the HTTP exchange took.
struct DeliveryAttempt {
  std::string id;  // "dlv_" + the seq of the job that carried it
  std::uint64_t jobSeq = 0;
  std::string eventId, eventType, endpointId, accountId, url;
  std::int64_t attempt = 1;  // 1..8
  DeliveryStatus status = DeliveryStatus::kScheduled;
  Millis scheduledAt = 0;
  std::optional<Millis> sentAt;      // simulated: the time the attempt was due and made at
  std::optional<Millis> sentAtWall;  // the wall-clock time of the HTTP call
  std::optional<std::int64_t> responseStatus;
  std::optional<std::string> error;
  std::optional<std::string> responseBody;  // first bytes only
  std::optional<std::int64_t> durationMs;
  std::optional<std::int64_t> signatureTimestamp;  // the `t` that was signed
  std::optional<Millis> nextAttemptAt;
  std::int64_t consecutiveFailures = 0;  // the endpoint's counter after this attempt
  // Delivery faults (model/faults.hpp) that shaped this attempt: [{fault, kind, ...}]; null (no
  // allocation: most attempts have none) for an attempt made as Part 6 says.
  json injected;
};

// Something emsim would have told the account owner (Part 3: "the owner is notified by email").
struct Notification {
  std::string id, accountId;
  std::string channel = "email";
  std::string to, subject, message;
  json details = json::object();
  Millis createdAt = 0;
};

// One change of an account's wallet (GET /_sim/wallet/movements), recorded with the change in the
// same write transaction: the balance after it, so a reader can check the chain
// (balance before = balanceCents - amountCents = the previous movement's balanceCents).
struct WalletMovement {
  std::string id, accountId;
  Cents amountCents = 0;   // negative: a debit
  Cents balanceCents = 0;  // the wallet after the movement
  std::string reason;      // "set" (PUT /_sim/wallet), "domain_purchase", "placement_tests", "wallet_topup", "auto_recharge"
  std::string reference;   // what was paid: a checkout id (domain) or a cart id (placement tests)
  Millis createdAt = 0;
};

// Built-in webhook receiver (/_sim/sinks): answers by its behaviour script, records requests.
struct SinkBehaviour {
  std::int64_t status = 200;      // answer once the first failFirst requests are over
  std::int64_t failFirst = 0;     // the first N requests are answered with failStatus
  std::int64_t failStatus = 500;
  std::int64_t delayMs = 0;       // wait (real time) before answering
  std::optional<std::string> redirectTo;  // answer redirectStatus with this Location
  std::int64_t redirectStatus = 302;
  bool closeConnection = false;   // close the connection without answering
  std::string body = "{\"received\":true}";
  // What the sink does with an event it accepts (model/sinks.hpp): "none" records only; "naive"
  // applies every delivery it answers 2xx; "idempotent" is the receiver Part 6 asks for.
  std::string receiver = "none";
  std::int64_t toleranceSeconds = 300;  // Part 6: recommended signature tolerance, 5 minutes
};

// What a receiving sink made of the events it applied: the last state of each object.
struct SinkObject {
  std::string eventId, eventType;
  std::int64_t created = 0;  // the event's `created` (Unix seconds)
  std::optional<std::string> status;
};
struct SinkProcessing {
  std::vector<std::string> applied;  // event ids, in the order applied (a naive receiver repeats)
  std::map<std::string, SinkObject> objects;  // by the id of <resource>Details
  std::set<std::string> seen;  // event ids an idempotent receiver has taken
  std::int64_t duplicatesIgnored = 0, olderIgnored = 0, staleRejected = 0, badSignatureRejected = 0,
               staleAccepted = 0;
};

struct SinkRequest {
  std::int64_t number = 0;  // 1-based, per sink
  Millis receivedAt = 0;    // simulated
  std::string method, path;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string body;                            // raw, as received
  std::optional<bool> signatureValid;          // null: no endpoint has this sink's URL
  std::string signatureCheck;                  // why (or why not)
  std::optional<std::string> endpointId;       // whose secret verified it
  std::string answer;                          // "status 500", "redirect 302 -> X", "closed"
  std::optional<std::int64_t> answeredStatus;
};

struct Sink {
  std::string id, name;
  SinkBehaviour behaviour;
  std::int64_t received = 0;
  std::vector<SinkRequest> requests;
  Millis createdAt = 0;
  SinkProcessing processing;
};

// Delayed work is data, so pending work survives a state dump/load and a reset clears it.
// The scheduler (runtime/scheduler) runs jobs in (dueMs, seq) order, each at its due time.
//
// A job stays in State::jobs until the write that records its outcome removes it: a job whose
// work happens outside the lock (a webhook attempt on the wire) is only marked `running`
// meanwhile. So a dump taken while it is in flight still holds it (Part 6: at-least-once), and
// nothing can run it a second time while it is in flight (the scheduler skips running jobs).
struct Job {
  std::uint64_t seq = 0;
  Millis dueMs = 0;
  std::string kind;  // e.g. "domains.apply_dmarc"; a runner is registered per kind
  JobArgs args;
  bool running = false;  // taken by the scheduler, outcome not yet recorded; never dumped
  // The clock it is due on: "" the instance clock; else the id of a tenant with a clock of its
  // own (model/tenants.hpp), whose `dueMs` is in that clock's time.
  std::string clock;
};
using JobKey = std::pair<Millis, std::uint64_t>;  // (dueMs, seq): a job's place in State::jobs
inline constexpr Millis kNoJobDue = INT64_MAX;

// An injected fault (/_sim/faults); the rules are in model/faults.hpp.
inline constexpr const char* kFaultTargetRequest = "request";
inline constexpr const char* kFaultTargetDelivery = "delivery";
inline constexpr Millis kMaxFaultDelayMs = 60 * kSecond;
// Holds and signature ages of delivery faults run on the simulated clock: up to 30 days.
inline constexpr Millis kMaxFaultHoldMs = 30 * kDay;

struct Fault {
  std::string id;  // "flt_<n>": a sequence of its own, so faults never shift the seeded ids
  std::string target = kFaultTargetRequest;
  std::string method = "*";  // HTTP method, or "*" for any
  std::string path;          // exact path, or a prefix when it ends in "*"
  std::optional<std::string> apiKey;  // only requests with this x-auth-service (parallel tests)
  std::optional<int> status;
  bool hasBody = false;  // `body` replaces the answer (null is a body too)
  json body;
  json patch = json::array();  // RFC 6902 operations
  Millis delayMs = 0;
  bool corruptSignature = false;
  // Delivery faults of at-least-once (model/faults.hpp): on the simulated clock, not wall time.
  bool duplicate = false;           // send the event a second time (same id) right after
  bool dropAfterResponse = false;   // the receiver answered, emsim "lost" the answer: a retry follows
  Millis staleBy = 0;               // sign with a `t` this far in the past
  Millis delayBy = 0;               // hold the attempt back this long
  bool reorder = false;             // hold the attempt until the endpoint's next delivery is sent
  Millis holdFor = 5 * kMinute;     // reorder: the longest hold when no later delivery comes
  double probability = 1.0;         // each match is affected with this chance (the run's seed)
  std::int64_t times = 1;  // matching requests it affects; 0 = until deleted
  std::int64_t hits = 0;
  std::int64_t seen = 0;   // matches considered (with probability < 1, some pass unaffected)
  Millis createdAt = 0;

  bool operator==(const Fault&) const = default;
  bool Active() const { return times == 0 || hits < times; }
  // A delivery fault that holds an attempt back (taken when the attempt falls due, before sending).
  bool Holds() const { return delayBy > 0 || reorder; }
  // True when the handler must not run: the whole answer comes from the fault.
  bool ReplacesAnswer() const { return target == kFaultTargetRequest && (hasBody || (status && patch.empty())); }
};

// An empty id list, for an index lookup that finds nothing.
template <class List = IdList>
const List& NoIds() {
  static const List kNone;
  return kNone;
}
// The ids a State index (an unordered_map or a SteppedMap of id lists) holds under `key`, or none.
template <class Index>
const auto& IdsOf(const Index& index, const std::string& key) {
  if constexpr (requires { index.Find(key); }) {
    const auto* ids = index.Find(key);
    using List = std::remove_cvref_t<decltype(*ids)>;
    return ids ? *ids : NoIds<List>();
  } else {
    auto it = index.find(key);
    return it == index.end() ? NoIds<typename Index::mapped_type>() : it->second;
  }
}

struct State {
  IdGenerator ids;
  // seconds, from the fixture; see TimingMs(). std::less<>: a purchase looks two up by literal name.
  std::map<std::string, std::int64_t, std::less<>> timings;

  Table<Account> accounts;
  Table<Workspace> workspaces;
  Table<Domain> domains;
  Table<Mailbox> mailboxes;
  Table<Subscription> subscriptions;
  Table<DnsShieldSubscription> dnsShield;
  Table<Email> emails;
  Table<Invoice> invoices;
  Table<PlacementCart> placementCarts;
  Table<PlacementTest> placementTests;
  Table<MailboxExport> exports;
  Table<ThirdPartyAccount> thirdPartyAccounts;
  Table<Tenant> tenants;
  std::vector<CatalogueEntry> catalogue;
  std::vector<Plan> plans;
  Table<Checkout> checkouts;

  // The logs (events, deliveries, notifications, wallet movements) are deques: retention (TrimLogs) drops
  // their oldest entries one at a time without moving the rest.
  std::deque<Event> events;
  std::map<JobKey, Job> jobs;
  std::uint64_t nextJobSeq = 1;
  // Removes a job (its run is over, or it will never run). Every removal goes through here so a
  // durable copy (runtime/persist.hpp) learns of it; it returns the next job, as map::erase does.
  std::map<JobKey, Job>::iterator EraseJob(std::map<JobKey, Job>::iterator it);
  void EraseJob(const JobKey& key);
  // Change notes for a durable copy, kept only while trackJobs is on: the keys of the jobs
  // scheduled and removed since the copy last took them (runtime/persist.hpp). Not state.
  bool trackJobs = false;
  std::vector<JobKey> jobsScheduled, jobsErased;
  // The earliest due time scheduled since the store last cleared it (kNoJobDue: none). Not state:
  // the store reads it after each write to wake the scheduler only when a write scheduled work
  // due before what it already waits for (runtime/store.hpp).
  Millis earliestNewJobDue = kNoJobDue;
  // The clock the jobs scheduled by the write in progress are due on ("" the instance clock; a
  // tenant's id when the write is that tenant's request or job). Not state: the store clears it
  // when a write begins; the router and the scheduler set it.
  std::string jobClock;
  // Set by a write that removed entries from the middle of a log (a tenant deleted or reset): a
  // durable copy then writes the logs whole (runtime/persist). Not state; the copy clears it.
  bool logsRewritten = false;
  // Marks a waiting job as taken by the scheduler (Job::running), keeping the index below.
  void MarkJobRunning(Job& job);
  // A job read back (a state document, a data dir's row) put in `jobs` at its key; a repeated key
  // keeps the first, as std::map::emplace does. Tried at the end first: jobs are read in seq order,
  // which is mostly due order too (a million pending jobs, each placed without a search).
  void LoadJob(Job&& job) { jobs.emplace_hint(jobs.end(), JobKey{job.dueMs, job.seq}, std::move(job)); }

  // ---- clocks' waiting jobs (derived, never dumped) ----------------------------------------------
  // The keys of the jobs not running, per clock ("" the instance clock): the scheduler starts a
  // clock's due jobs from the front of its set, O(log n) per job whatever the other clocks hold.
  std::unordered_map<std::string, std::set<JobKey>> waitingJobs;
  // Own clocks with a waiting job, by when it falls due in wall-clock terms: a real-mode clock's
  // earliest due minus its offset; a manual-mode clock is here only when its earliest job is
  // due (key INT64_MIN: start at once), since it never moves by itself. The scheduler's loop
  // looks at the front only (O(log n) per change with 10,000 clocks).
  std::set<std::pair<Millis, std::string>> ownClockQueue;
  std::unordered_map<std::string, Millis> ownClockQueued;  // clock -> its key in ownClockQueue
  // Recomputes `clock`'s place in ownClockQueue (after a job of it came or went, or it moved);
  // wakes the scheduler (earliestNewJobDue) when the clock falls due earlier than before.
  void RequeueClock(const std::string& clock);
  // Schedules on a given clock (ScheduleArgs schedules on jobClock).
  std::uint64_t ScheduleOn(std::string clock, Millis due, std::string kind, JobArgs args);

  Table<WebhookEndpoint> webhookEndpoints;
  std::deque<DeliveryAttempt> deliveries;
  std::deque<Notification> notifications;
  std::deque<WalletMovement> walletMovements;
  // How many of each log's oldest entries retention has dropped so far: an entry's position in
  // the whole history is this plus its index (the durable copy keys rows by it), and notification
  // and movement ids go on counting from it. JSON {events, deliveries, notifications,
  // walletMovements}, in the state document and the data dir's meta alike.
  struct Trimmed {
    std::uint64_t events = 0, deliveries = 0, notifications = 0, walletMovements = 0;
    bool operator==(const Trimmed&) const = default;
  } trimmed;
  Table<Sink> sinks;
  std::vector<Fault> faults;  // /_sim/faults, in creation order (the first match wins)
  std::uint64_t nextFaultSeq = 1;

  // ---- derived indexes (never dumped) ----------------------------------------------------------
  // Rebuilt by RebuildIndexes (fixture load, state load) and kept current by the mutators below,
  // so a list answers in time proportional to its page, not to the whole state (list
  // latency at 100k mailboxes within 2x of 1k). Change these records ONLY through AddAccount,
  // AddDomain, RemoveDomain, AddMailbox, SetMailboxStatus, RenameMailbox, AddWebhookEndpoint and
  // SetWebhookEndpointUrl;
  // IndexProblems() (checked by every HTTP test when its TestServer ends) catches a change that
  // bypassed them. Id vectors are in creation order.
  std::unordered_map<std::string, std::string> accountByApiKey;                         // key -> account id
  std::unordered_map<std::string, IdList> mailboxesByDomain;          // domain id -> mailbox ids
  std::unordered_map<std::string, IdList> domainsByWorkspace;         // workspace id -> domain ids
  // Lower-cased domain name -> how many domains have it: whether a name is taken (domains.buy,
  // domains.available, a checkout's completion) was a scan of every domain, which made a soak of
  // domain purchases slow down with each one (3,400/s at 7k domains, 120/s at 22k).
  // Stepped (model/stepped_map.hpp), as mailboxesByName: a rehash of millions of entries under the
  // write lock was a p99 of hundreds of ms.
  SteppedMap<std::int64_t> domainsByName;
  std::unordered_map<std::string, IdList> mailboxesByWorkspace;       // workspace id -> mailbox ids
  // MailboxNameKey(domain id, username) -> the ids of the mailboxes with that username (lower-cased)
  // on that domain: a username is unique per domain whatever its case, and mailboxes.assign and
  // mailboxes.update ask here instead of reading every mailbox of the domain (a soak assigning
  // mailboxes on one domain slowed from 2,800/s to 170/s by its 14,000th).
  SteppedMap<std::vector<std::string>> mailboxesByName;
  std::unordered_map<std::string, std::int64_t> activeMailboxesByWorkspace;             // status ACTIVE
  // The mailbox and domain lists' `contains` filters: trigrams of the workspaces searched (caches,
  // built by the searches themselves; model/text_search.hpp). Writers that change a mailbox's
  // address or name, or remove a workspace's mailboxes or domains, forget its entry; a copy of the
  // state starts empty.
  WorkspaceTextSearch mailboxSearch = MakeMailboxSearch();
  WorkspaceTextSearch domainSearch = MakeDomainSearch();
  // The mailbox search's order (Part 4.9: newest first) and its index over what a term matches,
  // whose positions are in that order; what adds or removes emails clears both (ForgetEmailOrder).
  EmailOrder emailOrder;
  WorkspaceTextSearch emailSearch = MakeEmailSearch();
  void ForgetEmailOrder() {
    emailOrder.Clear();
    emailSearch.Clear();
  }
  std::unordered_map<std::string, size_t> eventIndex;                                   // event id -> position in events
  // Endpoint URL path (no query) -> endpoint ids: a sink finds the endpoints that deliver to it
  // without parsing every endpoint's URL per request (8,000 receives x 1,000 endpoints).
  std::unordered_map<std::string, std::vector<std::string>> webhookEndpointsByPath;

  void RebuildIndexes();
  Account& AddAccount(Account a);
  Domain& AddDomain(Domain d);
  Mailbox& AddMailbox(Mailbox m);
  // m.username = username, keeping mailboxesByName current.
  void RenameMailbox(Mailbox& m, std::string username);
  static std::string MailboxNameKey(std::string_view domain_id, std::string_view username);
  // Removes a domain that holds no mailbox (domains.remove_unused), keeping the indexes current.
  void RemoveDomain(const std::string& domain_id);
  // A domain about to be erased other than by RemoveDomain (a tenant's deletion): its name no
  // longer counts as taken.
  void UnindexDomainName(const std::string& name);
  void SetMailboxStatus(Mailbox& m, MailboxStatus status);
  WebhookEndpoint& AddWebhookEndpoint(WebhookEndpoint e);
  void SetWebhookEndpointUrl(WebhookEndpoint& e, std::string url);
  void IndexWebhookEndpoint(const WebhookEndpoint& e);  // adds e to webhookEndpointsByPath
  void IndexWebhookEndpointsByPath();                  // rebuilds webhookEndpointsByPath

  // A delay from the fixture's `timings` (seconds), or the default.
  Millis TimingMs(std::string_view key, Millis default_ms) const;

  // Schedules delayed work; answers the job's seq.
  std::uint64_t Schedule(Millis due, std::string kind, const json& args) {
    return ScheduleArgs(due, std::move(kind), JobArgs(args));
  }
  // The same with the arguments already in their text form (the placement purchase's hot path).
  // Both schedule on `jobClock`.
  std::uint64_t ScheduleArgs(Millis due, std::string kind, JobArgs args) {
    return ScheduleOn(jobClock, due, std::move(kind), std::move(args));
  }

  // Records an event in the outbox (Part 6 envelope) and fans it out: one "webhooks.deliver" job,
  // due now, per active endpoint of the account subscribed to the type (model/webhooks.hpp).
  // Sending, signing and retrying are the events layer's business (server/events/).
  Event& Emit(std::string type, std::string account_id, json data, Millis now);
  const Event* FindEvent(const std::string& id) const;

  // Records a message to an account's owner (GET /_sim/notifications).
  Notification& Notify(const std::string& account_id, std::string subject, std::string message, json details,
                       Millis now);

  // Retention (emsim serve --retain-events): keeps the newest `keep` entries of each log (wallet
  // movements too: the oldest kept one still tells the balance before it) and drops
  // the rest, oldest first; 0 keeps everything. A delivery still pending for a dropped event is
  // recorded as dropped when its time comes (model/webhooks.cpp), never sent without its event.
  void TrimLogs(size_t keep);
};

// "" when every derived index matches a fresh rebuild; else what differs (tests call this).
std::string IndexProblems(const State& s);

// Whole-state dump/load (GET|PUT /_sim/state). Load throws std::exception with a message that
// names the part that is wrong; callers keep the old state when it does.
json DumpState(const State& s);
// The text DumpState(s).dump() is, after `edit` changed the document (masked secrets, added the
// clock), without the document of the lists a world grows in (records, events, jobs, logs): they
// are written from the records (AppendRecordJson). `edit` sees each of those lists, when it has
// entries, as null, and must leave it so. A dump of a million placement purchases was a ~12 GB
// document for ~2 GB of text.
std::string DumpStateText(const State& s, const std::function<void(json&)>& edit = {});
// The same text written to `out`, which moves it to a temporary file once it outgrows its limit:
// the text of a large world is larger than the world (GET /_sim/state).
void DumpStateTo(const State& s, const std::function<void(json&)>& edit, core::SpillText& out);
// A state document's text (JSON) loaded as LoadState(the parsed text) loads it, with the same
// errors, but without the document of the growing lists: their records are read straight from the
// text (ReadRecordText), as a data dir's start reads its rows. Whatever that reading does not take
// exactly as the document would (a repeated or escaped key, an unknown member, a damaged record)
// goes through the document. The lists' items and values are then not counted against the
// document's limits (kStateJsonLimits): a file or body of millions of records loads within its
// byte limit (--max-state-bytes), in about the memory the world takes.
struct StateText {
  State lists;      // the growing lists, read from the text (direct); else empty
  json rest;        // the document of the other members (the clock, the secrets' tables); else the whole
  bool direct = false;
};
// The text in parts, or the error ParseJsonLimited(text, kStateJsonLimits, what) gives.
Result<StateText> SplitStateText(std::string_view text, std::string_view what);
// LoadState(parts.rest) with parts.lists (moved out), throwing what the whole document's load
// throws. `text` is what was split.
State LoadSplitState(StateText& parts, std::string_view text);
// Both, for `emsim serve --state`: throws std::invalid_argument (the parse error's message, then
// LoadState's).
struct LoadedStateText {
  State state;
  json rest;
  bool direct = false;  // the lists were read from the text, not through the document
};
LoadedStateText LoadStateText(std::string_view text);
// `lists`: records already read by the caller (a data dir's rows, ReadRecordText), each table
// or list left out of `j`; they are checked with the rest exactly as if `j` had held them.
State LoadState(const json& j, State lists = State());

// Per-record JSON for dumps (field names as in Part 2; times as Unix ms). AppendRecordJson
// appends the text core::DumpJson(json(v)) gives, byte for byte, without building the document:
// a durable write transaction (runtime/persist.hpp) writes every record it changed, under the
// store's lock, and the document's allocations were most of that.
//
// ReadRecordJson is the way back for a durable start: it fills a record from its text as
// from_json on the parsed text would, without the document (which was most of a restart). It
// answers false, leaving the record as it was, where it does not read the text exactly as
// from_json would (an unknown or repeated member, a type from_json would convert, text the
// strict parser refuses, ...): the caller then parses the text and uses from_json, which decides
// or says what is wrong. Members of kinds it has no reader for (json, maps, doubles, job
// arguments) are parsed alone (ParseJsonLimited) and taken by their from_json.
#define EMSIM_DECLARE_JSON(T)                             \
  void to_json(json& j, const T& v);                      \
  void from_json(const json& j, T& v);                    \
  void AppendRecordJson(std::string& out, const T& v);    \
  bool ReadRecordJson(core::JsonCursor& in, T& v);
EMSIM_DECLARE_JSON(User)
EMSIM_DECLARE_JSON(AutoRecharge)
EMSIM_DECLARE_JSON(Account)
EMSIM_DECLARE_JSON(BillingDetails)
EMSIM_DECLARE_JSON(Workspace)
EMSIM_DECLARE_JSON(DnsState)
EMSIM_DECLARE_JSON(Domain)
EMSIM_DECLARE_JSON(Mailbox)
EMSIM_DECLARE_JSON(Subscription)
EMSIM_DECLARE_JSON(DnsShieldSubscription)
EMSIM_DECLARE_JSON(Invoice)
EMSIM_DECLARE_JSON(CreditUse)
EMSIM_DECLARE_JSON(PlacementCart)
EMSIM_DECLARE_JSON(PlacementTest)
EMSIM_DECLARE_JSON(CatalogueEntry)
EMSIM_DECLARE_JSON(Plan)
EMSIM_DECLARE_JSON(Checkout)
EMSIM_DECLARE_JSON(Address)
EMSIM_DECLARE_JSON(Email)
EMSIM_DECLARE_JSON(ExportAppResult)
EMSIM_DECLARE_JSON(MailboxExport)
EMSIM_DECLARE_JSON(ThirdPartyAccount)
EMSIM_DECLARE_JSON(Tenant)
EMSIM_DECLARE_JSON(Event)
EMSIM_DECLARE_JSON(Job)
EMSIM_DECLARE_JSON(WebhookEndpoint)
EMSIM_DECLARE_JSON(DeliveryAttempt)
EMSIM_DECLARE_JSON(Notification)
EMSIM_DECLARE_JSON(WalletMovement)
EMSIM_DECLARE_JSON(State::Trimmed)
EMSIM_DECLARE_JSON(SinkBehaviour)
EMSIM_DECLARE_JSON(SinkRequest)
EMSIM_DECLARE_JSON(Sink)
EMSIM_DECLARE_JSON(Fault)

// Below this size a record's text cannot pass any limit of kStateJsonLimits (a string of 1 MiB,
// 10M items, 50M values, 96 levels: ReadRecordJson reads fixed shapes and skips at most 90), so
// reading it here never accepts what the document's parser would refuse.
inline constexpr size_t kRecordTextReadLimit = 1024 * 1024;

// One record's whole text (a data dir's row) read into `out`, which must be default-made (the
// record is filled in place: a start reads millions); or false as ReadRecordJson answers (also for
// text over 1 MiB, which the document's limits judge: kStateJsonLimits), `out` then partly filled.
template <class T>
bool ReadRecordText(std::string_view text, T& out) {
  if (text.size() > kRecordTextReadLimit) return false;
  core::JsonCursor in(text);
  return ReadRecordJson(in, out) && in.AtEnd();
}

}  // namespace emsim::model
