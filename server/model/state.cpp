#include "model/state.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <cstring>
#include <set>
#include <span>
#include <stdexcept>
#include <type_traits>

#include "core/json_limits.hpp"
#include "core/spill_text.hpp"
#include "core/json_out.hpp"
#include "core/text.hpp"
#include "model/webhooks.hpp"

namespace emsim::model {
namespace {

// ---- a record's JSON text without its document (AppendRecordJson) ------------------------------
// The same bytes as core::DumpJson(json(v)): members in the order nlohmann's object keeps them
// (sorted byte-wise), each written as its to_json would make it. Strings, integers, booleans,
// enums with names, optionals, vectors, nested records and job arguments are written directly;
// anything else (doubles, maps, sets) goes through its json, so it cannot differ.
template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;
template <class T>
inline constexpr bool kIsVector = false;
template <class T, class A>
inline constexpr bool kIsVector<std::vector<T, A>> = true;

template <class T>
void AppendMember(std::string& out, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    core::AppendJsonString(out, v);
  } else if constexpr (std::is_same_v<T, CompactString>) {
    CompactString::Buffer buf;
    core::AppendJsonString(out, v.View(buf));
  } else if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  } else if constexpr (std::is_enum_v<T> && requires { EnumNames(T{}); }) {
    core::AppendJsonString(out, core::NameOf(v));  // EMSIM_ENUM_JSON's to_json: the name
  } else if constexpr (std::is_same_v<T, JsonText>) {
    out += v.text();  // already what dump() makes of it
  } else if constexpr (std::is_same_v<T, json>) {
    core::AppendJson(out, v);
  } else if constexpr (kIsOptional<T>) {
    if (v) AppendMember(out, *v);
    else out += "null";
  } else if constexpr (kIsVector<T> && !std::is_same_v<T, std::vector<bool>>) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      AppendMember(out, v[i]);
    }
    out += ']';
  } else if constexpr (requires { AppendRecordJson(out, v); }) {
    AppendRecordJson(out, v);
  } else {
    core::AppendJson(out, json(v));
  }
}

// Whether a member holds what a default-made record holds, as EMSIM_JSON_OMITTING_DEFAULTS
// decides it (by its JSON), compared directly where the two cannot disagree: texts, numbers,
// optionals of them, and records of plain members with a defaulted ==. Building both as JSON to
// compare them was most of the cost of writing an account's row (every purchase changes its
// wallet). (Not std::equality_comparable: a std::vector claims it whatever its elements are.)
template <class T>
constexpr bool kComparesAsItsJson = std::is_arithmetic_v<T> || std::is_same_v<T, std::string> ||
                                    std::is_same_v<T, CompactString> || std::is_same_v<T, AutoRecharge>;
template <class T>
constexpr bool kComparesAsItsJson<std::optional<T>> = kComparesAsItsJson<T>;

template <class T>
bool SameAsDefault(const T& v, const T& d) {
  if constexpr (kComparesAsItsJson<T>) return v == d;
  else return json(v) == json(d);
}

template <class T>
struct TextMember {
  const char* name;
  void (*write)(std::string&, const T&);
  bool (*is_default)(const T&);  // set for the members a dump leaves out at their default
  std::string key = {};          // `,"name":`, made once (SortedMembers): written after the first member
};

template <class T>
std::vector<TextMember<T>> SortedMembers(std::vector<TextMember<T>> members, std::span<const char* const> omit) {
  std::sort(members.begin(), members.end(),
            [](const TextMember<T>& a, const TextMember<T>& b) { return std::strcmp(a.name, b.name) < 0; });
  for (auto& m : members) {
    if (std::none_of(omit.begin(), omit.end(), [&](const char* o) { return std::strcmp(o, m.name) == 0; }))
      m.is_default = nullptr;
    core::AppendJsonKey(m.key, m.name, /*comma=*/true);
  }
  return members;
}

// Every durable write transaction writes its changed records this way (the rows of --data-dir),
// under the store's lock: each key is copied from its member's text, not scanned and quoted per
// record (a placement test's nine keys were a third of its row's instructions).
template <class T>
void AppendMembers(std::string& out, const T& v, const std::vector<TextMember<T>>& members) {
  out += '{';
  bool comma = false;
  for (const auto& m : members) {
    if (m.is_default && m.is_default(v)) continue;
    out.append(m.key, comma ? 0 : 1);  // the first member's key without its comma
    comma = true;
    m.write(out, v);
  }
  out += '}';
}

// ---- a record from its JSON text without the document (ReadRecordJson) --------------------------
// What from_json does with a member (NLOHMANN_JSON_FROM_WITH_DEFAULT: j.value(name, default), that
// is at(name).get<T>() when present), done on the text where the outcome is certain; false where
// from_json would convert (a number for a bool, a float for an integer) or the text is unusual.
// Skipped values nest at most this deep; records sit at most 3 levels above one (a sink's
// requests[].headers), within kStateJsonLimits' 96.
constexpr int kSkipDepth = 90;

// json, job arguments, doubles, maps: the value's text parsed alone, taken by its from_json.
template <class T>
bool ReadThroughDocument(core::JsonCursor& in, T& v) {
  std::string_view text;
  if (!in.Skip(text, kSkipDepth)) return false;
  auto parsed = ParseJsonLimited(text, kStateJsonLimits, "member");
  if (!parsed) return false;
  try {
    v = parsed->template get<T>();
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

template <class T>
bool ReadMember(core::JsonCursor& in, T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return in.String(v);
  } else if constexpr (std::is_same_v<T, CompactString>) {
    std::string_view plain;
    if (in.PlainString(plain)) {
      v = CompactString(plain);
      return true;
    }
    thread_local std::string text;
    if (!in.String(text)) return false;
    v = CompactString(text);
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    return in.Bool(v);
  } else if constexpr (std::is_integral_v<T>) {
    // Within the type and within int64, where ParseJsonLimited keeps numbers; nlohmann would cast
    // anything else (a negative into an unsigned), which the document path decides.
    constexpr std::int64_t lo = std::is_signed_v<T> ? std::int64_t{std::numeric_limits<T>::min()} : 0;
    constexpr std::int64_t hi = std::numeric_limits<T>::max() > static_cast<std::uint64_t>(INT64_MAX)
                                    ? INT64_MAX
                                    : static_cast<std::int64_t>(std::numeric_limits<T>::max());
    std::int64_t n;
    if (!in.Integer(n, lo, hi)) return false;
    v = static_cast<T>(n);
    return true;
  } else if constexpr (std::is_enum_v<T> && requires { EnumNames(T{}); }) {
    std::string_view name;
    if (!in.PlainString(name)) return false;  // no enum name has an escape to write
    const auto e = core::ParseEnum<T>(name);  // EnumFromJson: the exact name, else refused
    if (!e) return false;
    v = *e;
    return true;
  } else if constexpr (std::is_same_v<T, JsonText>) {
    // Kept as dump()'s text (JsonText): text already in that form is taken as it stands (a
    // purchase's job: two strings), anything else made so by the document.
    std::string_view text;
    if (!in.CompactObject(text)) return ReadThroughDocument(in, v);
    v = JsonText::FromText(std::string(text));
    return true;
  } else if constexpr (kIsOptional<T>) {
    if (in.Null()) {
      v.reset();
      return true;
    }
    typename T::value_type inner{};
    if (!ReadMember(in, inner)) return false;
    v = std::move(inner);
    return true;
  } else if constexpr (kIsVector<T> && !std::is_same_v<T, std::vector<bool>>) {
    if (!in.Consume('[')) return false;
    T items;
    if (!in.Consume(']')) {
      do {
        typename T::value_type item{};
        if (!ReadMember(in, item)) return false;
        items.push_back(std::move(item));
      } while (in.Consume(','));
      if (!in.Consume(']')) return false;
    }
    v = std::move(items);
    return true;
  } else if constexpr (requires { ReadRecordJson(in, v); }) {
    return ReadRecordJson(in, v);
  } else {
    return ReadThroughDocument(in, v);
  }
}

template <class T>
struct ReadEntry {
  std::string_view name;
  bool (*read)(core::JsonCursor&, T&);
};

template <class T>
std::vector<ReadEntry<T>> SortedReadMembers(std::vector<ReadEntry<T>> members) {
  // Sorted as AppendRecordJson writes them, so a row emsim wrote finds each member where it looks first.
  std::sort(members.begin(), members.end(), [](const ReadEntry<T>& a, const ReadEntry<T>& b) { return a.name < b.name; });
  if (members.size() > 64) throw std::logic_error("ReadRecordJson: a record of more than 64 members");
  return members;
}

template <class T>
bool ReadMembers(core::JsonCursor& in, T& v, const std::vector<ReadEntry<T>>& members) {
  if (!in.Consume('{')) return false;
  if (in.Consume('}')) return true;
  std::uint64_t seen = 0;  // a member twice: the document keeps the last whole, this would merge
  size_t next = 0;
  do {
    std::string_view key;
    if (!in.Key(key)) return false;
    size_t i = next < members.size() && members[next].name == key ? next : members.size();
    if (i == members.size())
      for (size_t k = 0; k < members.size(); ++k)
        if (members[k].name == key) i = k;
    // An unknown member: from_json ignores it; the document path does the same, at its own cost.
    if (i == members.size() || (seen >> i & 1)) return false;
    seen |= std::uint64_t{1} << i;
    if (!members[i].read(in, v)) return false;
    next = i + 1;
  } while (in.Consume(','));
  return in.Consume('}');
}

}  // namespace
}  // namespace emsim::model

// One entry of a record's member table (inside AppendRecordJson, where Self is the record type).
#define EMSIM_TEXT_MEMBER(m)                                                          \
  TextMember<Self>{#m, [](std::string& o, const Self& t) { AppendMember(o, t.m); },   \
                   [](const Self& t) {                                                \
                     static const Self kDefault{};                                     \
                     return SameAsDefault(t.m, kDefault.m);                            \
                   }},
#define EMSIM_READ_MEMBER(m) ReadEntry<Self>{#m, [](core::JsonCursor& in, Self& t) { return ReadMember(in, t.m); }},
#define EMSIM_APPEND_RECORD_JSON(Type, OMIT, ...)                                                   \
  void AppendRecordJson(std::string& out, const Type& v) {                                         \
    using Self = Type;                                                                             \
    static const std::vector<TextMember<Self>> kMembers =                                          \
        SortedMembers<Self>({NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(EMSIM_TEXT_MEMBER, __VA_ARGS__))}, OMIT); \
    AppendMembers(out, v, kMembers);                                                               \
  }                                                                                                \
  bool ReadRecordJson(core::JsonCursor& in, Type& v) {                                             \
    using Self = Type;                                                                             \
    static const std::vector<ReadEntry<Self>> kMembers =                                           \
        SortedReadMembers<Self>({NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(EMSIM_READ_MEMBER, __VA_ARGS__))}); \
    return ReadMembers(in, v, kMembers);                                                           \
  }

// state.hpp declares every to_json/from_json as an ordinary function (EMSIM_DECLARE_JSON) and
// other files call them (api/control/sinks.cpp: a Sink's behaviour and requests). nlohmann's macro
// defines them `inline`, which emits no out-of-line copy unless this file happens to need one:
// a Release build failed to link once inlining changed. Same body, not inline; and the record's
// text writer beside them, from the same member list.
#undef NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT
#define NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Type, ...)                                               \
  void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {                                   \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                                     \
  }                                                                                                              \
  void from_json(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {                                 \
    Type nlohmann_json_default_obj;                                                                              \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__))                      \
  }                                                                                                              \
  EMSIM_APPEND_RECORD_JSON(Type, {}, __VA_ARGS__)

// Like NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT, but the dump leaves out the members listed in
// OMIT (an array of names) while they hold their defaults: members added for a feature dump
// nothing in a world that does not use it, so a dump written before them loads and dumps byte for
// byte the same, and a delivery, sink or fault takes no more room than it did.
#define EMSIM_JSON_OMITTING_DEFAULTS(Type, OMIT, ...)                                                \
  void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {                      \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                        \
    static const json kDefaults = [] {                                                              \
      json nlohmann_json_j;                                                                         \
      const Type nlohmann_json_t{};                                                                 \
      NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                      \
      return nlohmann_json_j;                                                                       \
    }();                                                                                            \
    for (const char* key : OMIT)                                                                    \
      if (nlohmann_json_j[key] == kDefaults[key]) nlohmann_json_j.erase(key);                       \
  }                                                                                                 \
  void from_json(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {                    \
    Type nlohmann_json_default_obj;                                                                 \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__))         \
  }                                                                                                 \
  EMSIM_APPEND_RECORD_JSON(Type, OMIT, __VA_ARGS__)

namespace emsim::model {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(User, id, email, firstName, lastName)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AutoRecharge, enabled, thresholdCents, amountCents)
// autoRecharge (wallet.auto_recharge) came later: written once it was ever changed from the defaults.
constexpr const char* kAccountOptional[] = {"autoRecharge"};
EMSIM_JSON_OMITTING_DEFAULTS(Account, kAccountOptional, id, apiKey, user, walletCents, autoRecharge)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BillingDetails, id, userId, firstName, lastName, workspaceId,
                                                company, addressLineOne, addressLineTwo, addressLineThree, city,
                                                state, country, postalCode, phoneCc, phone, languagePreference)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkspaceInvitation, id, email, status, createdAt)
// invitations (sent by POST /_sim/trigger) came later: written only when there are some.
constexpr const char* kWorkspaceOptional[] = {"invitations"};
EMSIM_JSON_OMITTING_DEFAULTS(Workspace, kWorkspaceOptional, id, accountId, name, isDefault, billingDetails, createdAt,
                             invitations)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DnsState, spf, dmarc, dkim, mx)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Domain, id, accountId, workspaceId, domain, status, createdAt,
                                                updatedAt, forwardTo, forwardToAddedOnReseller, dmarcEmail,
                                                dmarcEmailAddedToReseller, forwardingEmail, forwardingEmailAdded,
                                                catchAllEmail, catchAllEmailAdded, nameServers, purchaseType,
                                                serviceProvider, registeredOn, expireOn, isWarmedUp, healthScore,
                                                healthErrorMessage, healthLabel, tags, dns)
// removeOnNextRenewal (mailboxes.scheduled_removal) came later: written only when set.
constexpr const char* kMailboxOptional[] = {"removeOnNextRenewal"};
EMSIM_JSON_OMITTING_DEFAULTS(Mailbox, kMailboxOptional, id, accountId, workspaceId, domainId, username, firstName,
                             lastName, status, profilePicture, assignedOn, expireOn, createdAt, removeOnNextRenewal)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Subscription, id, accountId, subscriptionId, subscriptionStatus,
                                                plan, planKey, price, totalMailboxQuantity, periodStart, periodEnd,
                                                subscriptionCreationDate, planUpgradeCancelPossible,
                                                paymentFailureMessage, invoiceDetails, placementCredits)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DnsShieldSubscription, id, accountId, subscriptionId, planType,
                                                totalSlots, totalUsedSlots, status)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Invoice, id, accountId, description, amountCents, currency, status,
                                                paidWith, createdAt, paidAt)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CreditUse, subscriptionId, credits)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PlacementCart, id, accountId, workspaceId, testName, placementType,
                                                totalCostCents, invoiceId, status, walletUsed, checkoutSession,
                                                creditsUsed, orderIds, createdAt, paidAt)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PlacementTest, id, accountId, workspaceId, cartOrderId, mailboxId,
                                                mailboxEmail, status, createdAt, updatedAt)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CatalogueEntry, domainName, domainPriceCents, renewPriceCents)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Plan, key, plan, price, totalMailboxQuantity, placementCredits)
// purpose (wallet.add_balance) came later: written only for a wallet top-up.
constexpr const char* kCheckoutOptional[] = {"purpose"};
EMSIM_JSON_OMITTING_DEFAULTS(Checkout, kCheckoutOptional, id, accountId, workspaceId, purpose, domainName, years,
                             amountCents, status, paidWith, domainId, createdAt, paidAt)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Address, name, address)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Email, id, accountId, workspaceId, account, threadId, messageId,
                                                subject, snippet, date, from, to, cc, size, labels, folderPath,
                                                isRead, isStarred, hasAttachments)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ExportAppResult, app, status, rows, accountEmail, sentMailboxes,
                                                error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MailboxExport, id, accountId, workspaceId, apps, mailboxIds, filters,
                                                status, createdAt, completedAt, failureReason, reconnectedAt,
                                                results, csv)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ThirdPartyAccount, id, accountId, app, email, passwordFingerprint,
                                                createdAt, updatedAt)
// The clock members came later: a tenant of a shared clock (what every tenant was before) dumps
// as it did.
constexpr const char* kTenantOptional[] = {"clock", "clockMode", "clockNow", "clockOffset",
                                           "clockStartMs", "clockStartMode", "idsCounter"};
EMSIM_JSON_OMITTING_DEFAULTS(Tenant, kTenantOptional, id, templateId, tag, createdAt, clock, clockMode, clockNow,
                             clockOffset, clockStartMs, clockStartMode, idsCounter)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Event, id, type, accountId, createdMs, apiVersion, data)
constexpr const char* kJobOptional[] = {"clock"};  // came with tenants' own clocks
EMSIM_JSON_OMITTING_DEFAULTS(Job, kJobOptional, seq, dueMs, kind, args, clock)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WebhookEndpoint, id, accountId, url, enabledEvents, status, secret,
                                                consecutiveFailures, createdAt, updatedAt, disabledAt,
                                                disabledReason)
constexpr const char* kDeliveryOptional[] = {"injected"};
constexpr const char* kSinkBehaviourOptional[] = {"receiver", "toleranceSeconds"};
constexpr const char* kSinkOptional[] = {"processing"};
constexpr const char* kFaultOptional[] = {"duplicate", "dropAfterResponse", "staleBy", "delayBy", "reorder",
                                          "holdFor",   "probability",       "seen"};
EMSIM_JSON_OMITTING_DEFAULTS(DeliveryAttempt, kDeliveryOptional, id, jobSeq, eventId, eventType, endpointId,
                                                accountId, url, attempt, status, scheduledAt, sentAt,
                                                sentAtWall, responseStatus, error, responseBody, durationMs,
                                                signatureTimestamp, nextAttemptAt, consecutiveFailures, injected)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WalletMovement, id, accountId, amountCents, balanceCents, reason,
                                                reference, createdAt)

void to_json(json& j, const State::Trimmed& t) {
  j = {{"events", t.events}, {"deliveries", t.deliveries}, {"notifications", t.notifications},
       {"walletMovements", t.walletMovements}};
}

void AppendRecordJson(std::string& out, const State::Trimmed& t) { core::AppendJson(out, json(t)); }
bool ReadRecordJson(core::JsonCursor& in, State::Trimmed& t) { return ReadThroughDocument(in, t); }

// walletMovements may be missing: the ledger came after the other three logs.
void from_json(const json& j, State::Trimmed& t) {
  t.events = j.at("events").get<std::uint64_t>();
  t.deliveries = j.at("deliveries").get<std::uint64_t>();
  t.notifications = j.at("notifications").get<std::uint64_t>();
  t.walletMovements = j.value("walletMovements", std::uint64_t{0});
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Notification, id, accountId, channel, to, subject, message, details,
                                                createdAt)
EMSIM_JSON_OMITTING_DEFAULTS(SinkBehaviour, kSinkBehaviourOptional, status, failFirst, failStatus, delayMs, redirectTo,
                                                redirectStatus, closeConnection, body, receiver,
                                                toleranceSeconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SinkObject, eventId, eventType, created, status)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SinkProcessing, applied, objects, seen, duplicatesIgnored,
                                                olderIgnored, staleRejected, badSignatureRejected, staleAccepted)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SinkRequest, number, receivedAt, method, path, headers, body,
                                                signatureValid, signatureCheck, endpointId, answer, answeredStatus)
EMSIM_JSON_OMITTING_DEFAULTS(Sink, kSinkOptional, id, name, behaviour, received, requests, createdAt,
                                                processing)
EMSIM_JSON_OMITTING_DEFAULTS(Fault, kFaultOptional, id, target, method, path, apiKey, status, hasBody, body, patch,
                                                delayMs, corruptSignature, duplicate, dropAfterResponse, staleBy, delayBy,
                                                reorder, holdFor, probability, times, hits, seen, createdAt)

void State::RebuildIndexes() {
  accountByApiKey.clear();
  for (const auto& a : accounts) accountByApiKey[a.apiKey] = a.id;
  domainsByWorkspace.clear();
  domainsByName.clear();
  // Reserved for every entry up front: a SteppedMap that grows while it is filled moves its nodes
  // across in steps (model/stepped_map.hpp), which a bulk build has no reason to pay (it was most of
  // a 100k-mailbox restart's load time).
  domainsByName.reserve(domains.size());
  for (const auto& d : domains) {
    domainsByWorkspace[d.workspaceId].push_back(d.id);
    ++domainsByName[ToLower(d.domain)];
  }
  mailboxesByDomain.clear();
  mailboxesByName.clear();
  mailboxesByWorkspace.clear();
  activeMailboxesByWorkspace.clear();
  mailboxSearch.Clear();
  domainSearch.Clear();
  ForgetEmailOrder();
  mailboxesByName.reserve(mailboxes.size());
  mailboxesByDomain.reserve(domains.size());
  for (const auto& m : mailboxes) {
    mailboxesByDomain[m.domainId].push_back(m.id);
    mailboxesByName[MailboxNameKey(m.domainId, m.username)].push_back(m.id);
    mailboxesByWorkspace[m.workspaceId].push_back(m.id);
    if (m.status == MailboxStatus::kActive) ++activeMailboxesByWorkspace[m.workspaceId];
  }
  eventIndex.clear();
  for (size_t i = 0; i < events.size(); ++i) eventIndex[events[i].id] = trimmed.events + i;
  IndexWebhookEndpointsByPath();
  waitingJobs.clear();
  ownClockQueue.clear();
  ownClockQueued.clear();
  // In key order, so each goes at its set's end (a hint, not a search: a million pending jobs).
  std::set<JobKey>* waiting = nullptr;
  const std::string* waiting_clock = nullptr;
  for (const auto& [key, job] : jobs) {
    if (job.running) continue;
    if (!waiting || *waiting_clock != job.clock) {
      waiting = &waitingJobs[job.clock];
      waiting_clock = &job.clock;
    }
    waiting->emplace_hint(waiting->end(), key);
  }
  for (const auto& [clock, keys] : waitingJobs) RequeueClock(clock);
}

Account& State::AddAccount(Account a) {
  Account& added = accounts.Insert(std::move(a));
  accountByApiKey[added.apiKey] = added.id;
  return added;
}

Domain& State::AddDomain(Domain d) {
  Domain& added = domains.Insert(std::move(d));
  domainsByWorkspace[added.workspaceId].push_back(added.id);
  ++domainsByName[ToLower(added.domain)];
  return added;
}

void State::UnindexDomainName(const std::string& name) {
  const std::string key = ToLower(name);
  std::int64_t* count = domainsByName.Find(key);
  if (count && --*count <= 0) domainsByName.erase(key);
}

void State::RemoveDomain(const std::string& domain_id) {
  const Domain* d = domains.Find(domain_id);
  if (!d) return;
  auto& ids = domainsByWorkspace[d->workspaceId];
  std::erase(ids, domain_id);
  domainSearch.Forget(d->workspaceId);  // the positions after it moved
  UnindexDomainName(d->domain);
  mailboxesByDomain.erase(domain_id);
  domains.Erase(domain_id);
}

Mailbox& State::AddMailbox(Mailbox m) {
  Mailbox& added = mailboxes.Insert(std::move(m));
  mailboxesByDomain[added.domainId].push_back(added.id);
  mailboxesByName[MailboxNameKey(added.domainId, added.username)].push_back(added.id);
  mailboxesByWorkspace[added.workspaceId].push_back(added.id);
  if (added.status == MailboxStatus::kActive) ++activeMailboxesByWorkspace[added.workspaceId];
  return added;
}

std::string State::MailboxNameKey(std::string_view domain_id, std::string_view username) {
  std::string key(domain_id);
  key += '\n';  // in no domain id
  key += ToLower(username);
  return key;
}

void State::RenameMailbox(Mailbox& m, std::string username) {
  const std::string old_key = MailboxNameKey(m.domainId, m.username);
  if (std::vector<std::string>* ids = mailboxesByName.Find(old_key)) {
    std::erase(*ids, m.id);
    if (ids->empty()) mailboxesByName.erase(old_key);
  }
  m.username = std::move(username);
  mailboxesByName[MailboxNameKey(m.domainId, m.username)].push_back(m.id);
  mailboxSearch.Forget(m.workspaceId);  // its address (and, with mailboxes.update, its name) may differ
}

void State::SetMailboxStatus(Mailbox& m, MailboxStatus status) {
  if (m.status == MailboxStatus::kActive) --activeMailboxesByWorkspace[m.workspaceId];
  m.status = status;
  if (m.status == MailboxStatus::kActive) ++activeMailboxesByWorkspace[m.workspaceId];
}

WebhookEndpoint& State::AddWebhookEndpoint(WebhookEndpoint e) {
  WebhookEndpoint& added = webhookEndpoints.Insert(std::move(e));
  IndexWebhookEndpoint(added);
  return added;
}

void State::SetWebhookEndpointUrl(WebhookEndpoint& e, std::string url) {
  if (url == e.url) return;
  e.url = std::move(url);
  // A URL changes rarely (PATCH); rebuilding this one index keeps its lists in creation order.
  IndexWebhookEndpointsByPath();
}

void State::IndexWebhookEndpoint(const WebhookEndpoint& e) {
  if (auto path = UrlPath(e.url)) webhookEndpointsByPath[*path].push_back(e.id);
}

void State::IndexWebhookEndpointsByPath() {
  webhookEndpointsByPath.clear();
  for (const auto& e : webhookEndpoints) IndexWebhookEndpoint(e);
}

std::string IndexProblems(const State& s) {
  State fresh;
  fresh.accounts = s.accounts;
  fresh.domains = s.domains;
  fresh.mailboxes = s.mailboxes;
  fresh.webhookEndpoints = s.webhookEndpoints;
  fresh.RebuildIndexes();
  std::string out;
  // Zero counters and empty lists are the same as no entry.
  auto same_lists = [](const auto& a, const auto& b) {
    for (const auto& [k, v] : a) {
      auto it = b.find(k);
      if (v.empty() ? (it != b.end() && !it->second.empty()) : (it == b.end() || it->second != v)) return false;
    }
    for (const auto& [k, v] : b)
      if (!v.empty() && !a.count(k)) return false;
    return true;
  };
  auto same_counts = [](const auto& a, const auto& b) {
    for (const auto& [k, v] : a) {
      auto it = b.find(k);
      if (v != (it == b.end() ? 0 : it->second)) return false;
    }
    for (const auto& [k, v] : b)
      if (v != 0 && !a.count(k)) return false;
    return true;
  };
  if (s.accountByApiKey != fresh.accountByApiKey) out += "accountByApiKey; ";
  if (!same_lists(s.mailboxesByDomain, fresh.mailboxesByDomain)) out += "mailboxesByDomain; ";
  if (!same_lists(s.domainsByWorkspace, fresh.domainsByWorkspace)) out += "domainsByWorkspace; ";
  if (!same_counts(s.domainsByName.ToMap(), fresh.domainsByName.ToMap())) out += "domainsByName; ";
  if (!same_lists(s.mailboxesByWorkspace, fresh.mailboxesByWorkspace)) out += "mailboxesByWorkspace; ";
  if (!same_lists(s.mailboxesByName.ToMap(), fresh.mailboxesByName.ToMap())) out += "mailboxesByName; ";
  if (!same_counts(s.activeMailboxesByWorkspace, fresh.activeMailboxesByWorkspace)) out += "activeMailboxesByWorkspace; ";
  if (!same_lists(s.webhookEndpointsByPath, fresh.webhookEndpointsByPath)) out += "webhookEndpointsByPath; ";
  out += s.mailboxSearch.Problems(s);
  out += s.domainSearch.Problems(s);
  out += s.emailOrder.Problems(s);
  out += s.emailSearch.Problems(s);
  return out.empty() ? out : "stale indexes: " + out;
}

Millis State::TimingMs(std::string_view key, Millis default_ms) const {
  auto it = timings.find(key);
  return it == timings.end() ? default_ms : it->second * kSecond;
}

std::uint64_t State::ScheduleOn(std::string clock, Millis due, std::string kind, JobArgs args) {
  const std::uint64_t seq = nextJobSeq++;
  // Hinted at the end: a job is usually due after every job already waiting (seq only grows), and
  // then the insert does not walk down the tree. Under a manual clock nothing runs until the clock
  // moves, so a purchase load keeps hundreds of thousands of jobs, and the walk's cache misses
  // were a visible share of the MONTHLY purchase. A wrong hint costs a normal insert.
  const JobKey key{due, seq};
  auto& waiting = waitingJobs[clock];
  waiting.emplace_hint(waiting.end(), key);
  auto it = jobs.emplace_hint(jobs.end(), key, Job{seq, due, std::move(kind), std::move(args), false, std::move(clock)});
  if (it->second.clock.empty()) {
    if (due < earliestNewJobDue) earliestNewJobDue = due;
  } else {
    RequeueClock(it->second.clock);
  }
  if (trackJobs) jobsScheduled.emplace_back(due, seq);
  return seq;
}

namespace {
void ForgetWaiting(State& s, const Job& job, const JobKey& key) {
  auto w = s.waitingJobs.find(job.clock);
  if (w == s.waitingJobs.end()) return;
  w->second.erase(key);
  if (w->second.empty() && !job.clock.empty()) s.waitingJobs.erase(w);
  if (!job.clock.empty()) s.RequeueClock(job.clock);
}
}  // namespace

void State::MarkJobRunning(Job& job) {
  job.running = true;
  ForgetWaiting(*this, job, {job.dueMs, job.seq});
}

void State::RequeueClock(const std::string& clock) {
  if (clock.empty()) return;
  Millis key = kNoJobDue;  // kNoJobDue: not queued
  const Tenant* t = tenants.Find(clock);
  auto w = waitingJobs.find(clock);
  if (t && w != waitingJobs.end() && !w->second.empty()) {
    const Millis due = w->second.begin()->first;
    if (t->clockMode == "manual") key = due <= t->clockNow ? INT64_MIN : kNoJobDue;
    else key = due - t->clockOffset;
  }
  auto q = ownClockQueued.find(clock);
  const Millis before = q == ownClockQueued.end() ? kNoJobDue : q->second;
  if (key == before) return;
  if (q != ownClockQueued.end()) {
    ownClockQueue.erase({before, clock});
    ownClockQueued.erase(q);
  }
  if (key == kNoJobDue) return;
  ownClockQueue.emplace(key, clock);
  ownClockQueued.emplace(clock, key);
  // Due earlier than the scheduler knew: wake it (it compares own clocks in wall terms, so any
  // earlier key is news to it).
  if (key < before) earliestNewJobDue = INT64_MIN;
}

std::map<JobKey, Job>::iterator State::EraseJob(std::map<JobKey, Job>::iterator it) {
  if (trackJobs) jobsErased.push_back(it->first);
  if (!it->second.running) ForgetWaiting(*this, it->second, it->first);
  return jobs.erase(it);
}

void State::EraseJob(const JobKey& key) {
  if (auto it = jobs.find(key); it != jobs.end()) EraseJob(it);
}

Event& State::Emit(std::string type, std::string account_id, json data, Millis now) {
  Event e;
  e.id = "evt_" + ids.UuidV7(now);  // Part 6: evt_ + UUIDv7
  e.type = std::move(type);
  e.accountId = std::move(account_id);
  e.createdMs = now;
  e.data = JsonText(data);
  eventIndex[e.id] = trimmed.events + events.size();
  events.push_back(std::move(e));
  Event& emitted = events.back();
  // Part 6: each event goes to every active endpoint of its account subscribed to its type. The
  // jobs are state, so a delivery not yet made survives a dump/load (at-least-once).
  for (const WebhookEndpoint* endpoint : SubscribedEndpoints(*this, emitted)) {
    Schedule(now, kDeliverJob, {{"eventId", emitted.id}, {"endpointId", endpoint->id}, {"attempt", 1}});
  }
  return emitted;
}

const Event* State::FindEvent(const std::string& id) const {
  auto it = eventIndex.find(id);
  return it == eventIndex.end() ? nullptr : &events[it->second - trimmed.events];
}

void State::TrimLogs(size_t keep) {
  if (keep == 0) return;
  while (events.size() > keep) {
    eventIndex.erase(events.front().id);
    events.pop_front();
    ++trimmed.events;
  }
  for (; deliveries.size() > keep; ++trimmed.deliveries) deliveries.pop_front();
  for (; notifications.size() > keep; ++trimmed.notifications) notifications.pop_front();
  for (; walletMovements.size() > keep; ++trimmed.walletMovements) walletMovements.pop_front();
}

Notification& State::Notify(const std::string& account_id, std::string subject, std::string message, json details,
                            Millis now) {
  Notification n;
  n.id = "ntf_" + std::to_string(trimmed.notifications + notifications.size() + 1);
  n.accountId = account_id;
  if (const Account* a = accounts.Find(account_id)) n.to = a->user.email;
  n.subject = std::move(subject);
  n.message = std::move(message);
  n.details = std::move(details);
  n.createdAt = now;
  notifications.push_back(std::move(n));
  return notifications.back();
}

namespace {
template <class T>
json TableToJson(const Table<T>& t) {
  json a = json::array();
  for (const auto& r : t) a.push_back(r);
  return a;
}
template <class T>
void TableFromJson(const json& j, const char* key, Table<T>& t) {
  if (!j.contains(key)) return;
  const json& rows = j.at(key);
  if (!rows.is_array()) throw std::invalid_argument(std::string("state.") + key + ": must be an array");
  std::vector<T> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    try {
      out.push_back(rows[i].get<T>());
    } catch (const std::exception& e) {  // the row that is wrong, so a large dump can be fixed
      throw std::invalid_argument(std::string("state.") + key + "[" + std::to_string(i) + "]: " + e.what());
    }
  }
  try {
    t.Assign(std::move(out));
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("state.") + key + ": " + e.what());
  }
}

// Ranges of the values a loaded document may carry, checked before the state is used: a time
// near INT64_MAX plus a retry delay overflowed, a fault or sink delay of years held a worker for
// ever. Each failure names the field.
class RangeCheck {
 public:
  // `id` becomes text only when a check fails: a restart checks every row of millions, and making
  // each row's id a std::string first (a UUID written out, a heap block) was most of the check.
  template <class Id>
  void Time(const char* table, const Id& id, const char* field, Millis t) const {
    if (t < kMinTimeMs || t > kMaxTimeMs) Fail(table, id, field, "must be a time in the years 1970 to 9999 (Unix ms)");
  }
  template <class Id>
  void Time(const char* table, const Id& id, const char* field, const std::optional<Millis>& t) const {
    if (t) Time(table, id, field, *t);
  }
  template <class Id>
  void Range(const char* table, const Id& id, const char* field, std::int64_t v, std::int64_t lo,
             std::int64_t hi) const {
    if (v < lo || v > hi)
      Fail(table, id, field, "must be from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  template <class Id>
  [[noreturn]] static void Fail(const char* table, const Id& id, const char* field, const std::string& what) {
    std::string text;
    if constexpr (std::is_arithmetic_v<Id>) text = std::to_string(id);  // a job's seq
    else text = core::TextOf(id).str();
    throw std::invalid_argument(std::string("state.") + table + ": " + SafeText(text, 100) + "." + field + " " + what);
  }
};

// Entries retention dropped from a log: far below where a position overflows an int64 row key.
constexpr std::uint64_t kMaxTrimmed = 1'000'000'000'000'000;

// Money: up to ten trillion dollars, so sums of a few amounts stay far from overflow.
constexpr Cents kMaxLoadedCents = 1'000'000'000'000'000;

void CheckRanges(const State& s) {
  const RangeCheck c;
  for (const auto& [key, seconds] : s.timings) c.Range("timings", key, "", seconds, 0, kMaxTimingSeconds);
  for (const auto& a : s.accounts) {
    c.Range("accounts", a.id, "walletCents", a.walletCents, 0, kMaxLoadedCents);
    c.Range("accounts", a.id, "autoRecharge.thresholdCents", a.autoRecharge.thresholdCents, 0, kMaxLoadedCents);
    c.Range("accounts", a.id, "autoRecharge.amountCents", a.autoRecharge.amountCents, 0, kMaxLoadedCents);
  }
  for (const auto& m : s.walletMovements) {
    c.Range("walletMovements", m.id, "amountCents", m.amountCents, -kMaxLoadedCents, kMaxLoadedCents);
    c.Range("walletMovements", m.id, "balanceCents", m.balanceCents, 0, kMaxLoadedCents);
    c.Time("walletMovements", m.id, "createdAt", m.createdAt);
  }
  for (const auto& w : s.workspaces) c.Time("workspaces", w.id, "createdAt", w.createdAt);
  for (const auto& d : s.domains) {
    c.Time("domains", d.id, "createdAt", d.createdAt);
    c.Time("domains", d.id, "updatedAt", d.updatedAt);
    c.Time("domains", d.id, "registeredOn", d.registeredOn);
    c.Time("domains", d.id, "expireOn", d.expireOn);
  }
  for (const auto& m : s.mailboxes) {
    c.Time("mailboxes", m.id, "assignedOn", m.assignedOn);
    c.Time("mailboxes", m.id, "expireOn", m.expireOn);
    c.Time("mailboxes", m.id, "createdAt", m.createdAt);
  }
  for (const auto& x : s.subscriptions) {
    c.Time("subscriptions", x.id, "periodStart", x.periodStart);
    c.Time("subscriptions", x.id, "periodEnd", x.periodEnd);
    c.Time("subscriptions", x.id, "subscriptionCreationDate", x.subscriptionCreationDate);
  }
  for (const auto& i : s.invoices) {
    c.Time("invoices", i.id, "createdAt", i.createdAt);
    c.Time("invoices", i.id, "paidAt", i.paidAt);
    c.Range("invoices", i.id, "amountCents", i.amountCents, -kMaxLoadedCents, kMaxLoadedCents);
  }
  for (const auto& p : s.placementCarts) {
    c.Time("placementCarts", p.id, "createdAt", p.createdAt);
    c.Time("placementCarts", p.id, "paidAt", p.paidAt);
  }
  for (const auto& t : s.placementTests) {
    c.Time("placementTests", t.id, "createdAt", t.createdAt);
    c.Time("placementTests", t.id, "updatedAt", t.updatedAt);
  }
  for (const auto& k : s.checkouts) {
    c.Time("checkouts", k.id, "createdAt", k.createdAt);
    c.Time("checkouts", k.id, "paidAt", k.paidAt);
    c.Range("checkouts", k.id, "amountCents", k.amountCents, -kMaxLoadedCents, kMaxLoadedCents);
  }
  for (const auto& e : s.emails) c.Time("emails", e.id, "date", e.date);
  for (const auto& x : s.exports) {
    c.Time("exports", x.id, "createdAt", x.createdAt);
    c.Time("exports", x.id, "completedAt", x.completedAt);
    c.Time("exports", x.id, "reconnectedAt", x.reconnectedAt);
  }
  for (const auto& t : s.thirdPartyAccounts) {
    c.Time("thirdPartyAccounts", t.id, "createdAt", t.createdAt);
    c.Time("thirdPartyAccounts", t.id, "updatedAt", t.updatedAt);
  }
  for (const auto& t : s.tenants) {
    c.Time("tenants", t.id, "createdAt", t.createdAt);
    c.Time("tenants", t.id, "clockNow", t.clockNow);
    c.Time("tenants", t.id, "clockStartMs", t.clockStartMs);
    // Wall time plus the offset stays within the clock's years for centuries either way.
    c.Range("tenants", t.id, "clockOffset", t.clockOffset, -kMaxTimeMs, kMaxTimeMs);
  }
  for (const auto& e : s.events) c.Time("events", e.id, "createdMs", e.createdMs);
  for (const auto& e : s.webhookEndpoints) {
    c.Time("webhookEndpoints", e.id, "createdAt", e.createdAt);
    c.Time("webhookEndpoints", e.id, "updatedAt", e.updatedAt);
    c.Time("webhookEndpoints", e.id, "disabledAt", e.disabledAt);
  }
  for (const auto& d : s.deliveries) {
    c.Time("deliveries", d.id, "scheduledAt", d.scheduledAt);
    c.Time("deliveries", d.id, "sentAt", d.sentAt);
    c.Time("deliveries", d.id, "sentAtWall", d.sentAtWall);
    c.Time("deliveries", d.id, "nextAttemptAt", d.nextAttemptAt);
  }
  for (const auto& n : s.notifications) c.Time("notifications", n.id, "createdAt", n.createdAt);
  for (const auto& k : s.sinks) {
    c.Time("sinks", k.id, "createdAt", k.createdAt);
    // The limits of POST /_sim/sinks (schemas/requests/sim.sinks.create.json).
    c.Range("sinks", k.id, "behaviour.delayMs", k.behaviour.delayMs, 0, 120'000);
    c.Range("sinks", k.id, "behaviour.status", k.behaviour.status, 100, 599);
    c.Range("sinks", k.id, "behaviour.failStatus", k.behaviour.failStatus, 100, 599);
    c.Range("sinks", k.id, "behaviour.redirectStatus", k.behaviour.redirectStatus, 100, 599);
    c.Range("sinks", k.id, "behaviour.failFirst", k.behaviour.failFirst, 0, kMaxJsonInteger);
    c.Range("sinks", k.id, "behaviour.toleranceSeconds", k.behaviour.toleranceSeconds, 1, 86'400);
    for (const auto& r : k.requests) c.Time("sinks", k.id, "requests[].receivedAt", r.receivedAt);
  }
  for (const auto& [key, job] : s.jobs) c.Time("jobs", job.seq, "dueMs", job.dueMs);
  for (const auto& f : s.faults) {
    c.Time("faults", f.id, "createdAt", f.createdAt);
    c.Range("faults", f.id, "delayMs", f.delayMs, 0, kMaxFaultDelayMs);
    c.Range("faults", f.id, "times", f.times, 0, kMaxJsonInteger);
    c.Range("faults", f.id, "hits", f.hits, 0, kMaxJsonInteger);
    c.Range("faults", f.id, "seen", f.seen, 0, kMaxJsonInteger);
    c.Range("faults", f.id, "staleBy", f.staleBy, 0, kMaxFaultHoldMs);
    c.Range("faults", f.id, "delayBy", f.delayBy, 0, kMaxFaultHoldMs);
    c.Range("faults", f.id, "holdFor", f.holdFor, 0, kMaxFaultHoldMs);
    if (!(f.probability >= 0.0 && f.probability <= 1.0)) c.Fail("faults", f.id, "probability", "must be between 0 and 1");
    if (f.status) c.Range("faults", f.id, "status", *f.status, 100, 599);
  }
}

}  // namespace

namespace {

// The lists a world grows in (records, events, logs; the jobs are a map, handled beside them): a
// dump writes them from their records (DumpStateText) and a state file's text is read into them
// record by record (LoadStateText). None holds a secret (state_secrets.hpp), so the document's
// edits never need them.
template <class S, class F>
void ForEachGrowingList(S& s, F&& f) {
  f("domains", s.domains);
  f("mailboxes", s.mailboxes);
  f("emails", s.emails);
  f("invoices", s.invoices);
  f("placementCarts", s.placementCarts);
  f("placementTests", s.placementTests);
  f("events", s.events);
  f("deliveries", s.deliveries);
  f("notifications", s.notifications);
  f("walletMovements", s.walletMovements);
}
constexpr const char* kJobsKey = "jobs";

template <class List>
json ListToJson(const List& list) {
  if constexpr (requires { list.rows(); }) return TableToJson(list);
  else return json(list);
}

struct ListWriter {
  std::function<void(core::SpillText&)> write;
  size_t estimate = 0;  // bytes, from the first records: the text is reserved once, not doubled
};

// A list's text: `[`, its records' texts (each from `record(item)`), `]`; and an estimate of its
// size from the first 64 (a string grown by doubling held the old and the new buffer at once:
// 2.1 times the steady memory at the peak of a 400 MB dump).
template <class List, class Record>
ListWriter WriteList(const List& list, Record record) {
  ListWriter w;
  w.write = [&list, record](core::SpillText& out) {
    std::string& text = out.text();  // the same string after a Check: it is emptied, not replaced
    text += '[';
    bool first = true;
    for (const auto& item : list) {
      if (!first) text += ',';
      first = false;
      AppendRecordJson(text, record(item));
      out.Check();
    }
    text += ']';
  };
  std::string sample;
  size_t n = 0;
  for (auto it = list.begin(); it != list.end() && n < 64; ++it, ++n) AppendRecordJson(sample, record(*it));
  w.estimate = n ? (sample.size() + n) * (list.size() / n) * 21 / 20 + sample.size() + n + 2 : 2;
  return w;
}

// DumpState's document; with `text_lists`, each growing list that has entries is null in it and
// its writer collected instead.
json DumpStateParts(const State& s, std::map<std::string, ListWriter, std::less<>>* text_lists) {
  json j;
  j["ids"] = {{"seed", s.ids.seed()}, {"counter", s.ids.counter()}};
  j["timings"] = s.timings;
  j["accounts"] = TableToJson(s.accounts);
  j["workspaces"] = TableToJson(s.workspaces);
  j["subscriptions"] = TableToJson(s.subscriptions);
  j["dnsShield"] = TableToJson(s.dnsShield);
  j["exports"] = TableToJson(s.exports);
  j["thirdPartyAccounts"] = TableToJson(s.thirdPartyAccounts);
  j["tenants"] = TableToJson(s.tenants);
  j["catalogue"] = s.catalogue;
  j["plans"] = s.plans;
  j["checkouts"] = TableToJson(s.checkouts);
  ForEachGrowingList(s, [&](const char* key, const auto& list) {
    // The wallet ledger only when it has entries: a dump from before it existed round-trips exactly.
    if (list.empty() && std::string_view(key) == "walletMovements") return;
    if (!text_lists || list.empty()) {
      j[key] = ListToJson(list);
      return;
    }
    j[key] = nullptr;
    (*text_lists)[key] = WriteList(list, [](const auto& r) -> const auto& { return r; });
  });
  if (text_lists && !s.jobs.empty()) {
    j[kJobsKey] = nullptr;
    (*text_lists)[kJobsKey] = WriteList(s.jobs, [](const auto& entry) -> const Job& { return entry.second; });
  } else {
    json jobs = json::array();
    for (const auto& [key, job] : s.jobs) jobs.push_back(job);
    j[kJobsKey] = jobs;
  }
  j["nextJobSeq"] = s.nextJobSeq;
  j["webhookEndpoints"] = TableToJson(s.webhookEndpoints);
  j["sinks"] = TableToJson(s.sinks);
  j["faults"] = s.faults;
  j["nextFaultSeq"] = s.nextFaultSeq;
  // Only once retention dropped something: a dump written before retention existed loads and dumps
  // back the same.
  if (s.trimmed != State::Trimmed{}) j["trimmed"] = s.trimmed;
  return j;
}

// One growing list's array read record by record into `list` (emptied first); false where a
// record is not read exactly as the document would read it (ReadRecordText).
template <class List>
bool ReadListText(core::JsonCursor& in, List& list) {
  list = List();
  if (!in.Consume('[')) return false;
  if (in.Consume(']')) return true;
  do {
    std::string_view text;
    if (!in.Skip(text, kStateJsonLimits.maxDepth)) return false;
    if constexpr (requires { list.AppendForLoad(); }) {
      if (!ReadRecordText(text, list.AppendForLoad())) return false;
    } else {
      if (!ReadRecordText(text, list.emplace_back())) return false;
    }
  } while (in.Consume(','));
  if (!in.Consume(']')) return false;
  if constexpr (requires { list.IndexLoaded(); }) list.IndexLoaded();  // throws on a repeated id
  return true;
}

std::optional<StateText> TrySplitStateText(std::string_view text) {
  core::JsonCursor in(text);
  if (!in.Consume('{')) return std::nullopt;
  State lists;
  std::string rest = "{";  // the other members, for the document
  std::set<std::string, std::less<>> seen;
  if (!in.Consume('}')) {
    do {
      std::string_view key;
      if (!in.Key(key) || !seen.emplace(key).second) return std::nullopt;  // a repeated key: the document's call
      bool read = false, ok = true;
      ForEachGrowingList(lists, [&](const char* name, auto& list) {
        if (read || key != name) return;
        read = true;
        ok = ReadListText(in, list);
      });
      if (!read && key == kJobsKey) {
        read = true;
        std::deque<Job> jobs;
        ok = ReadListText(in, jobs);
        for (auto& job : jobs) lists.LoadJob(std::move(job));
      }
      if (!ok) return std::nullopt;
      if (!read) {
        std::string_view value;
        if (!in.Skip(value, kStateJsonLimits.maxDepth)) return std::nullopt;
        if (rest.size() > 1) rest += ',';
        rest.append("\"").append(key).append("\":").append(value);
      }
    } while (in.Consume(','));
    if (!in.Consume('}')) return std::nullopt;
  }
  if (!in.AtEnd()) return std::nullopt;
  rest += '}';
  auto doc = ParseJsonLimited(rest, kStateJsonLimits, "state");
  if (!doc) return std::nullopt;
  StateText out{std::move(lists), std::move(*doc), true};
  return out;
}

}  // namespace

json DumpState(const State& s) { return DumpStateParts(s, nullptr); }

Result<StateText> SplitStateText(std::string_view text, std::string_view what) {
  std::optional<StateText> parts;
  try {
    parts = TrySplitStateText(text);
  } catch (const std::exception&) {
    // A repeated id (IndexLoaded): the document's load says so, as it always has.
  }
  if (parts) return std::move(*parts);
  auto doc = ParseJsonLimited(text, kStateJsonLimits, what);
  if (!doc) return doc.error();
  StateText whole;
  whole.rest = std::move(*doc);
  return whole;
}

State LoadSplitState(StateText& parts, std::string_view text) {
  if (!parts.direct) return LoadState(parts.rest);
  try {
    return LoadState(parts.rest, std::move(parts.lists));
  } catch (const std::exception&) {
    // Refused: the whole document's load says why, as it always has (the text parsed in parts,
    // so it parses whole).
    auto doc = ParseJsonLimited(text, kStateJsonLimits, "state");
    if (!doc) throw std::invalid_argument(doc.error().errors.front().msg);
    return LoadState(*doc);
  }
}

LoadedStateText LoadStateText(std::string_view text) {
  auto parts = SplitStateText(text, "state");
  if (!parts) throw std::invalid_argument(parts.error().errors.front().msg);
  State s = LoadSplitState(*parts, text);
  return {std::move(s), std::move(parts->rest), parts->direct};
}

void DumpStateTo(const State& s, const std::function<void(json&)>& edit, core::SpillText& out) {
  std::map<std::string, ListWriter, std::less<>> text_lists;
  json doc = DumpStateParts(s, &text_lists);
  if (edit) edit(doc);
  // dump()'s form: the members in key order (nlohmann's object is sorted), no space.
  size_t estimate = 64 * 1024;  // the document's members: a few kilobytes in a fixture
  for (const auto& [key, w] : text_lists) estimate += w.estimate;
  // Past its limit the text goes to the file in pieces of about the limit: no more is reserved.
  out.text().reserve(std::min(estimate, out.limit() + 64 * 1024));
  std::string& text = out.text();
  text += '{';
  bool first = true;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!first) text += ',';
    first = false;
    core::AppendJsonString(text, it.key());
    text += ':';
    auto w = text_lists.find(it.key());
    if (w != text_lists.end() && it.value().is_null()) w->second.write(out);
    else core::AppendJson(text, it.value());
    out.Check();
  }
  text += '}';
}

std::string DumpStateText(const State& s, const std::function<void(json&)>& edit) {
  core::SpillText out(SIZE_MAX);  // never spills
  DumpStateTo(s, edit, out);
  return out.TakeText();
}

State LoadState(const json& j, State lists) {
  if (!j.is_object()) throw std::invalid_argument("state must be a JSON object");
  // Only what a dump holds (and the clock that GET /_sim/state adds): a document of other keys is
  // a mistake to report, not an empty world to load.
  static const std::set<std::string, std::less<>> kDumpKeys = [] {
    std::set<std::string, std::less<>> keys = {"clock", "trimmed", "walletMovements"};
    const json empty = DumpState(State());
    for (const auto& [key, value] : empty.items()) keys.insert(key);
    return keys;
  }();
  for (const auto& [key, value] : j.items())
    if (!kDumpKeys.count(key))
      throw std::invalid_argument("state has an unknown key '" + (key.size() > 64 ? key.substr(0, 64) + "..." : key) +
                                  "' (a state document is what GET /_sim/state answers)");
  State s = std::move(lists);
  try {
    if (j.contains("ids")) s.ids.Restore(j.at("ids").at("seed").get<std::uint64_t>(),
                                         j.at("ids").at("counter").get<std::uint64_t>());
    if (j.contains("timings")) s.timings = j.at("timings").get<decltype(s.timings)>();
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("state.ids/timings: ") + e.what());
  }
  TableFromJson(j, "accounts", s.accounts);
  TableFromJson(j, "workspaces", s.workspaces);
  TableFromJson(j, "domains", s.domains);
  TableFromJson(j, "mailboxes", s.mailboxes);
  TableFromJson(j, "subscriptions", s.subscriptions);
  TableFromJson(j, "dnsShield", s.dnsShield);
  TableFromJson(j, "emails", s.emails);
  TableFromJson(j, "checkouts", s.checkouts);
  TableFromJson(j, "invoices", s.invoices);
  TableFromJson(j, "placementCarts", s.placementCarts);
  TableFromJson(j, "placementTests", s.placementTests);
  TableFromJson(j, "webhookEndpoints", s.webhookEndpoints);
  TableFromJson(j, "sinks", s.sinks);
  TableFromJson(j, "exports", s.exports);
  TableFromJson(j, "thirdPartyAccounts", s.thirdPartyAccounts);
  TableFromJson(j, "tenants", s.tenants);
  try {
    if (j.contains("catalogue")) s.catalogue = j.at("catalogue").get<std::vector<CatalogueEntry>>();
    if (j.contains("plans")) s.plans = j.at("plans").get<std::vector<Plan>>();
    if (j.contains("events")) s.events = j.at("events").get<std::deque<Event>>();
    if (j.contains("jobs")) {
      for (auto job : j.at("jobs").get<std::vector<Job>>()) s.LoadJob(std::move(job));
    }
    if (j.contains("nextJobSeq")) s.nextJobSeq = j.at("nextJobSeq").get<std::uint64_t>();
    if (j.contains("deliveries")) s.deliveries = j.at("deliveries").get<std::deque<DeliveryAttempt>>();
    if (j.contains("notifications")) s.notifications = j.at("notifications").get<std::deque<Notification>>();
    if (j.contains("walletMovements")) s.walletMovements = j.at("walletMovements").get<std::deque<WalletMovement>>();
    if (j.contains("trimmed")) {
      s.trimmed = j.at("trimmed").get<State::Trimmed>();
      for (const std::uint64_t n :
           {s.trimmed.events, s.trimmed.deliveries, s.trimmed.notifications, s.trimmed.walletMovements})
        if (n > kMaxTrimmed) throw std::invalid_argument("trimmed: counts must be from 0 to " + std::to_string(kMaxTrimmed));
    }
    if (j.contains("faults")) s.faults = j.at("faults").get<std::vector<Fault>>();
    if (j.contains("nextFaultSeq")) s.nextFaultSeq = j.at("nextFaultSeq").get<std::uint64_t>();
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("state: ") + e.what());
  }
  CheckRanges(s);
  // Referential checks: a dangling reference would crash later requests.
  for (const auto& m : s.walletMovements)
    if (!s.accounts.Contains(m.accountId))
      throw std::invalid_argument("state.walletMovements: " + m.id + " names unknown account " + m.accountId);
  for (const auto& w : s.workspaces)
    if (!s.accounts.Contains(w.accountId))
      throw std::invalid_argument("state.workspaces: " + w.id + " names unknown account " + w.accountId);
  for (const auto& d : s.domains)
    if (!s.workspaces.Contains(d.workspaceId))
      throw std::invalid_argument("state.domains: " + d.id + " names unknown workspace " + d.workspaceId);
  for (const auto& c : s.checkouts) {
    if (!s.workspaces.Contains(c.workspaceId))
      throw std::invalid_argument("state.checkouts: " + c.id + " names unknown workspace " + c.workspaceId);
    if (c.purpose != kCheckoutForDomain && c.purpose != kCheckoutForWallet)
      throw std::invalid_argument("state.checkouts: " + c.id + ".purpose must be " + kCheckoutForDomain + " or " +
                                  kCheckoutForWallet);
  }
  for (const auto& m : s.mailboxes)
    if (!s.domains.Contains(m.domainId))
      throw std::invalid_argument("state.mailboxes: " + m.id + " names unknown domain " + m.domainId);
  for (const auto& c : s.placementCarts)
    if (!s.accounts.Contains(c.accountId))
      throw std::invalid_argument("state.placementCarts: " + c.id + " names unknown account " + c.accountId);
  for (const auto& t : s.placementTests)
    if (!s.placementCarts.Contains(t.cartOrderId))
      throw std::invalid_argument("state.placementTests: " + t.id + " names unknown cart " + t.cartOrderId);
  for (const auto& e : s.webhookEndpoints)
    if (!s.accounts.Contains(e.accountId))
      throw std::invalid_argument("state.webhookEndpoints: " + e.id + " names unknown account " + e.accountId);
  for (const auto& x : s.exports)
    if (!s.workspaces.Contains(x.workspaceId))
      throw std::invalid_argument("state.exports: " + x.id + " names unknown workspace " + x.workspaceId);
  for (const auto& t : s.thirdPartyAccounts)
    if (!s.accounts.Contains(t.accountId))
      throw std::invalid_argument("state.thirdPartyAccounts: " + t.id + " names unknown account " + t.accountId);
  for (const auto& t : s.tenants) {
    if (!s.accounts.Contains(t.id)) throw std::invalid_argument("state.tenants: " + t.id + " is not an account");
    if (t.clock != "own" && t.clock != "shared")
      throw std::invalid_argument("state.tenants: " + t.id + ".clock must be own or shared");
    if (t.OwnClock() && t.clockMode != "real" && t.clockMode != "manual")
      throw std::invalid_argument("state.tenants: " + t.id + ".clockMode must be real or manual");
    if (t.OwnClock() && t.clockStartMode != "real" && t.clockStartMode != "manual")
      throw std::invalid_argument("state.tenants: " + t.id + ".clockStartMode must be real or manual");
  }
  for (const auto& [key, job] : s.jobs) {
    const Tenant* t = job.clock.empty() ? nullptr : s.tenants.Find(job.clock);
    if (!job.clock.empty() && (!t || !t->OwnClock()))
      throw std::invalid_argument("state.jobs: " + std::to_string(job.seq) + ".clock names no tenant with a clock of its own: " +
                                  SafeText(job.clock, 100));
  }
  s.RebuildIndexes();
  return s;
}

}  // namespace emsim::model
