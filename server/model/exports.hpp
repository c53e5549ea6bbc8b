#pragma once
// Part 4.5 exports: send a selection of mailboxes to a CSV file (MANUAL) or to third-party
// apps, asynchronously; and keep the credentials of third-party accounts.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Gap decision (README): the spec names only MANUAL (CSV). emsim accepts these third-party apps,
// the cold-email sending tools an export of mailboxes is typically for. Exact upper case.
inline constexpr std::string_view kManualApp = "MANUAL";
inline constexpr std::array<std::string_view, 4> kThirdPartyApps = {"INSTANTLY", "SMARTLEAD", "LEMLIST", "REPLY_IO"};

bool IsThirdPartyApp(std::string_view app);
std::string AcceptedAppsText();  // "MANUAL, INSTANTLY, ..." for messages

// CSV header of a MANUAL export (RFC 4180: CRLF line ends, fields quoted when needed).
inline constexpr const char* kExportCsvHeader = "email,firstName,lastName,status,domain";

// The body of export-mailboxes (Part 4.5), shape already checked by the request schema.
struct ExportRequest {
  std::vector<std::string> apps;
  std::vector<std::string> ids, excludeIds, tagIds;  // empty: no filter
  std::string contains;
  std::string status;  // "" (spec sample): no filter
  json filters = json::object();  // as sent, kept on the record
};

// Mailboxes of the caller's workspace the request selects, in creation order. All filters hold
// at once: `ids` (when given) restricts to those ids; `excludeIds` removes; `tagIds` keeps the
// mailboxes whose domain carries at least one of the tags; `contains` matches the address or the
// name (as mailboxes.list); `status` matches exactly. An id in `ids` that is not a mailbox of the
// workspace: 400 naming `ids`. Unknown ids in `excludeIds` exclude nothing.
Result<std::vector<const Mailbox*>> SelectMailboxes(const State& s, const Caller& caller, const ExportRequest& in);

// Validates apps and the selection, records a STARTED export, schedules its job after the
// fixture's `exportSeconds` and emits export.started. Nothing changes when it fails: unknown app
// (400 `apps`), unknown id (400 `ids`), nothing selected (400 `body`).
Result<std::string> StartExport(State& s, const Caller& caller, const ExportRequest& in, Millis now);

// The job: writes the CSV for MANUAL and "sends" to each third-party app the mailboxes, using
// the account's most recently updated credentials for that app. An app without credentials
// fails (gap decision). All apps done: COMPLETED; any failed: FAILED. Emits export.completed or
// export.failed. An export that is gone or already finished is left alone.
void RunExport(State& s, const std::string& export_id, Millis now);

// The CSV of the given mailboxes (deleted ones skipped), header first.
std::string MailboxesCsv(const State& s, const std::vector<std::string>& mailbox_ids);

// The account's credentials for `app` that were updated last (ties: the first stored); null: none.
const ThirdPartyAccount* CredentialsFor(const State& s, const std::string& account_id, const std::string& app);
// The export that credentials for `app` would reconnect (export.reconnected): the account's latest
// finished export that used `app`, when it failed for it and was not reconnected yet; else null.
const MailboxExport* ReconnectableExport(const State& s, const std::string& account_id, const std::string& app);

struct ThirdPartyCredentials {
  std::string app, email;
  std::string passwordFingerprint;  // computed by the caller; the model never sees the password
};

// Stores or replaces the credentials of (account, app, email). `app` must be a third-party app
// (MANUAL has no account): 400 naming `app`. When the account's latest export that used this app
// failed for it and has not been reconnected yet, marks it reconnected and emits
// export.reconnected.
Status UpdateThirdPartyAccount(State& s, const Caller& caller, const ThirdPartyCredentials& in, Millis now);

}  // namespace emsim::model
