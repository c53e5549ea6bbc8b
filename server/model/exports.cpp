#include "model/exports.hpp"

#include <algorithm>
#include <set>

#include "model/mailboxes.hpp"
#include "core/messages.hpp"
#include "model/payloads.hpp"
#include "core/text.hpp"

namespace emsim::model {
namespace {

// RFC 4180: a field holding a comma, quote or line break is quoted, quotes doubled.
std::string CsvField(const std::string& v) {
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

bool HasAny(const std::vector<std::string>& have, const std::set<std::string>& wanted) {
  for (const auto& t : have)
    if (wanted.count(t)) return true;
  return false;
}

}  // namespace

const ThirdPartyAccount* CredentialsFor(const State& s, const std::string& account_id, const std::string& app) {
  const ThirdPartyAccount* best = nullptr;
  for (const auto& t : s.thirdPartyAccounts)
    if (t.accountId == account_id && t.app == app && (!best || t.updatedAt > best->updatedAt)) best = &t;
  return best;
}

const MailboxExport* ReconnectableExport(const State& s, const std::string& account_id, const std::string& app) {
  const MailboxExport* latest = nullptr;
  for (const auto& x : s.exports)
    if (x.accountId == account_id && x.status != ExportStatus::kStarted &&
        std::find(x.apps.begin(), x.apps.end(), app) != x.apps.end())
      latest = &x;  // table order is creation order
  if (!latest || latest->reconnectedAt != 0) return nullptr;
  const bool failed_for_app = std::any_of(latest->results.begin(), latest->results.end(), [&](const ExportAppResult& r) {
    return r.app == app && r.status == ExportStatus::kFailed;
  });
  return failed_for_app ? latest : nullptr;
}

bool IsThirdPartyApp(std::string_view app) {
  return std::find(kThirdPartyApps.begin(), kThirdPartyApps.end(), app) != kThirdPartyApps.end();
}

std::string AcceptedAppsText() {
  std::string out(kManualApp);
  for (auto a : kThirdPartyApps) out += ", " + std::string(a);
  return out;
}

Result<std::vector<const Mailbox*>> SelectMailboxes(const State& s, const Caller& caller, const ExportRequest& in) {
  for (const auto& id : in.ids) {
    const Mailbox* m = s.mailboxes.Find(id);
    if (!m || m->workspaceId != caller.workspaceId)
      return Error::Validation("ids", "ids names " + id + ", which is not a mailbox of workspace " + caller.workspaceId);
  }
  const std::set<std::string> only(in.ids.begin(), in.ids.end());
  const std::set<std::string> excluded(in.excludeIds.begin(), in.excludeIds.end());
  const std::set<std::string> tags(in.tagIds.begin(), in.tagIds.end());
  const std::string needle = ToLower(in.contains);
  std::vector<const Mailbox*> out;
  for (const auto& id : IdsOf(s.mailboxesByWorkspace, caller.workspaceId)) {  // creation order
    const Mailbox& m = *s.mailboxes.Find(id);
    if (!only.empty() && !only.count(m.id)) continue;
    if (excluded.count(m.id)) continue;
    if (!in.status.empty() && core::NameOf(m.status) != in.status) continue;
    if (!tags.empty()) {
      const Domain* d = s.domains.Find(m.domainId);
      if (!d || !HasAny(d->tags, tags)) continue;
    }
    if (!needle.empty() && !ContainsFolded(MailboxAddress(s, m), needle) &&
        !ContainsFolded(m.firstName + " " + m.lastName, needle))
      continue;
    out.push_back(&m);
  }
  return out;
}

Result<std::string> StartExport(State& s, const Caller& caller, const ExportRequest& in, Millis now) {
  for (const auto& app : in.apps)
    if (app != kManualApp && !IsThirdPartyApp(app))
      return Error::Validation("apps", "apps names an unknown app '" + app + "'; accepted: " + AcceptedAppsText());
  auto selected = SelectMailboxes(s, caller, in);
  if (!selected) return selected.error();
  if (selected->empty())
    return Error::Validation("body", std::string(msg::kExportSelectsNothing) + " (workspace " + caller.workspaceId + ")");

  MailboxExport x;
  x.id = s.ids.Uuid4();
  x.accountId = caller.accountId;
  x.workspaceId = caller.workspaceId;
  x.apps = in.apps;
  for (const auto* m : *selected) x.mailboxIds.push_back(m->id);
  x.filters = in.filters;
  x.createdAt = now;
  const MailboxExport& added = s.exports.Insert(std::move(x));
  s.Schedule(now + s.TimingMs("exportSeconds", 120 * kSecond), "exports.run", {{"exportId", added.id}});
  s.Emit("export.started", added.accountId, {{"exportDetails", ExportDetails(added)}, {"previousState", json::object()}},
         now);
  return added.id;
}

std::string MailboxesCsv(const State& s, const std::vector<std::string>& mailbox_ids) {
  std::string csv = std::string(kExportCsvHeader) + "\r\n";
  for (const auto& id : mailbox_ids) {
    const Mailbox* m = s.mailboxes.Find(id);
    if (!m) continue;
    const Domain* d = s.domains.Find(m->domainId);
    csv += CsvField(MailboxAddress(s, *m)) + "," + CsvField(m->firstName) + "," + CsvField(m->lastName) + "," +
           CsvField(std::string(core::NameOf(m->status))) + "," + CsvField(d ? d->domain : std::string()) + "\r\n";
  }
  return csv;
}

void RunExport(State& s, const std::string& export_id, Millis now) {
  MailboxExport* x = s.exports.Edit(export_id);
  if (!x || x->status != ExportStatus::kStarted) return;
  std::vector<std::string> addresses;
  for (const auto& id : x->mailboxIds)
    if (const Mailbox* m = s.mailboxes.Find(id)) addresses.push_back(MailboxAddress(s, *m));

  std::vector<std::string> failed;
  for (const auto& app : x->apps) {
    ExportAppResult r;
    r.app = app;
    if (app == kManualApp) {
      x->csv = MailboxesCsv(s, x->mailboxIds);
      r.status = ExportStatus::kCompleted;
      r.rows = static_cast<std::int64_t>(addresses.size());
    } else if (const ThirdPartyAccount* creds = CredentialsFor(s, x->accountId, app)) {
      r.status = ExportStatus::kCompleted;
      r.rows = static_cast<std::int64_t>(addresses.size());
      r.accountEmail = creds->email;
      r.sentMailboxes = addresses;
    } else {
      r.status = ExportStatus::kFailed;
      r.error = "no " + app + " account connected: store its credentials with POST /v1/exports/update-third-party-account";
      failed.push_back(app);
    }
    x->results.push_back(std::move(r));
  }
  x->completedAt = now;
  x->status = failed.empty() ? ExportStatus::kCompleted : ExportStatus::kFailed;
  if (!failed.empty()) {
    std::string apps;
    for (const auto& a : failed) apps += (apps.empty() ? "" : ", ") + a;
    x->failureReason = "export to " + apps + " failed: no credentials stored for that app";
  }
  // previousState: the fields the job changed, with their values before it ran.
  json previous = {{"status", ExportStatus::kStarted}, {"completedAt", nullptr}, {"results", json::array()}};
  if (x->failureReason) previous["failureReason"] = nullptr;
  s.Emit(failed.empty() ? "export.completed" : "export.failed", x->accountId,
         {{"exportDetails", ExportDetails(*x)}, {"previousState", std::move(previous)}}, now);
}

Status UpdateThirdPartyAccount(State& s, const Caller& caller, const ThirdPartyCredentials& in, Millis now) {
  if (!IsThirdPartyApp(in.app)) {
    std::string list;
    for (auto a : kThirdPartyApps) list += (list.empty() ? "" : ", ") + std::string(a);
    return Error::Validation("app", in.app == kManualApp
                                        ? "app MANUAL is the CSV export and has no third-party account; accepted: " + list
                                        : "app names an unknown app '" + in.app + "'; accepted: " + list);
  }
  // Emails are case-insensitive in practice: one record per address however it is typed.
  const std::string email = ToLower(in.email);
  // Read-only, then the one found by its id: only that row is noted as changed (model/table.hpp).
  const ThirdPartyAccount* known = nullptr;
  for (const auto& t : s.thirdPartyAccounts)
    if (t.accountId == caller.accountId && t.app == in.app && t.email == email) known = &t;
  ThirdPartyAccount* record = known ? s.thirdPartyAccounts.Edit(known->id) : nullptr;
  if (!record) {
    ThirdPartyAccount t;
    t.id = s.ids.Uuid4();
    t.accountId = caller.accountId;
    t.app = in.app;
    t.email = email;
    t.createdAt = now;
    record = &s.thirdPartyAccounts.Insert(std::move(t));
  }
  record->passwordFingerprint = in.passwordFingerprint;
  record->updatedAt = now;

  // Gap decision: export.reconnected fires when credentials arrive for an app whose latest export
  // (of this account) failed for lack of them, once per such export.
  const MailboxExport* found = ReconnectableExport(s, caller.accountId, in.app);
  if (!found) return Ok{};
  MailboxExport* latest = s.exports.Edit(found->id);
  latest->reconnectedAt = now;
  s.Emit("export.reconnected", caller.accountId,
         {{"exportDetails", ExportDetails(*latest)},
          {"thirdPartyAccountDetails", ThirdPartyAccountDetails(*record)},
          {"previousState", {{"reconnectedAt", nullptr}}}},
         now);
  return Ok{};
}

}  // namespace emsim::model
