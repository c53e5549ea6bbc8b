#pragma once
// The oracle for model::ReadRecordText, which reads a data dir's rows straight into records: on
// any text it reads, the document path a state load takes (nlohmann's parser with the state
// limits, ParseJsonWithNlohmann, then from_json) must read it too and give the same record. Where
// it answers false the start takes the document path itself, so false is always allowed. Used by
// the model tests (records and mutated records) and the `record` fuzz harness.
#include <exception>
#include <string>
#include <string_view>

#include "core/json_limits.hpp"
#include "model/state.hpp"

namespace emsim::testing {

// "" when the two agree on `text`, else what differs. `read`: whether ReadRecordText read it.
template <class T>
std::string RecordReadDisagreement(std::string_view text, bool* read = nullptr) {
  T fast{};
  const bool ok = model::ReadRecordText(text, fast);
  if (read) *read = ok;
  if (!ok) return "";
  auto parsed = model::ParseJsonWithNlohmann(text, model::kStateJsonLimits, "body");
  if (!parsed) return "read a text the document parser refuses: " + parsed.error().errors.front().msg;
  if (!parsed->is_object()) return "read a text that is not an object";
  T slow{};
  try {
    slow = parsed->template get<T>();
  } catch (const std::exception& e) {
    return std::string("read a text from_json refuses: ") + e.what();
  }
  std::string a, b;
  try {
    model::AppendRecordJson(a, fast);
    model::AppendRecordJson(b, slow);
  } catch (const std::exception& e) {
    return std::string("a record read cannot be written: ") + e.what();
  }
  if (a != b) return "read differently:\n  here     " + a + "\n  document " + b;
  return "";
}

// Every kind of record a data dir keeps a table of, by the table's name.
struct RecordKind {
  const char* table;
  std::string (*check)(std::string_view, bool*);
};
inline constexpr RecordKind kRecordKinds[] = {
    {"accounts", &RecordReadDisagreement<model::Account>},
    {"workspaces", &RecordReadDisagreement<model::Workspace>},
    {"domains", &RecordReadDisagreement<model::Domain>},
    {"mailboxes", &RecordReadDisagreement<model::Mailbox>},
    {"subscriptions", &RecordReadDisagreement<model::Subscription>},
    {"dnsShield", &RecordReadDisagreement<model::DnsShieldSubscription>},
    {"emails", &RecordReadDisagreement<model::Email>},
    {"invoices", &RecordReadDisagreement<model::Invoice>},
    {"placementCarts", &RecordReadDisagreement<model::PlacementCart>},
    {"placementTests", &RecordReadDisagreement<model::PlacementTest>},
    {"exports", &RecordReadDisagreement<model::MailboxExport>},
    {"thirdPartyAccounts", &RecordReadDisagreement<model::ThirdPartyAccount>},
    {"tenants", &RecordReadDisagreement<model::Tenant>},
    {"checkouts", &RecordReadDisagreement<model::Checkout>},
    {"webhookEndpoints", &RecordReadDisagreement<model::WebhookEndpoint>},
    {"sinks", &RecordReadDisagreement<model::Sink>},
    {"events", &RecordReadDisagreement<model::Event>},
    {"deliveries", &RecordReadDisagreement<model::DeliveryAttempt>},
    {"notifications", &RecordReadDisagreement<model::Notification>},
    {"jobs", &RecordReadDisagreement<model::Job>},
    {"walletMovements", &RecordReadDisagreement<model::WalletMovement>},
    {"faults", &RecordReadDisagreement<model::Fault>},
};

}  // namespace emsim::testing
