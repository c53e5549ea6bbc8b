#include "model/trigger.hpp"

#include <algorithm>
#include <functional>

#include "core/text.hpp"
#include "model/auth.hpp"
#include "model/domain_purchase.hpp"
#include "model/domains.hpp"
#include "model/exports.hpp"
#include "model/mailboxes.hpp"
#include "model/payloads.hpp"
#include "model/placement_tests.hpp"
#include "model/subscriptions.hpp"
#include "model/webhooks.hpp"
#include "model/workspaces.hpp"

namespace emsim::model {

namespace {

// Lookups go through the const State, so a refused trigger marks no row as changed (Table).
struct TriggerCtx {
  State& s;
  const State& read;
  std::string accountId;
  const std::optional<std::string>& objectId;
  Millis now;
  TriggeredChange out;
};

Error NoObject(const std::string& what) { return Error::Validation("objectId", what); }

Error WrongObject(const TriggerCtx& c, const std::string& kind) {
  return NoObject("no " + kind + " with id " + *c.objectId + " in the account of apiKey");
}

// ---- picking the object ----------------------------------------------------------------------

Result<const Domain*> PickDomain(const TriggerCtx& c, const std::function<bool(const Domain&)>& suitable,
                                 const std::string& none) {
  if (c.objectId) {
    const Domain* d = c.read.domains.Find(*c.objectId);
    if (!d || d->accountId != c.accountId) return WrongObject(c, "domain");
    return d;
  }
  for (const auto& d : c.read.domains)  // creation order
    if (d.accountId == c.accountId && suitable(d)) return &d;
  return NoObject(none);
}

// Without objectId: the first mailbox (creation order) of the account's default workspace, or
// of any of its workspaces when that one has none.
Result<const Mailbox*> PickMailbox(const TriggerCtx& c) {
  if (c.objectId) {
    const Mailbox* m = c.read.mailboxes.Find(*c.objectId);
    if (!m || m->accountId != c.accountId) return WrongObject(c, "mailbox");
    return m;
  }
  const Workspace* ws = DefaultWorkspace(c.read, c.accountId);
  const Mailbox* any = nullptr;
  for (const auto& m : c.read.mailboxes) {
    if (m.accountId != c.accountId) continue;
    if (ws && m.workspaceId == ws->id) return &m;
    if (!any) any = &m;
  }
  if (any) return any;
  return NoObject("the account of apiKey has no mailbox");
}

Result<const Workspace*> PickWorkspace(const TriggerCtx& c) {
  if (c.objectId) {
    const Workspace* w = c.read.workspaces.Find(*c.objectId);
    if (!w || w->accountId != c.accountId) return WrongObject(c, "workspace");
    return w;
  }
  if (const Workspace* w = DefaultWorkspace(c.read, c.accountId)) return w;
  return NoObject("the account of apiKey has no workspace");
}

// A subscription that cancel and upgrade accept (Part 4.6): ACTIVE and planUpgradeCancelPossible.
Result<const Subscription*> PickChangeableSubscription(const TriggerCtx& c) {
  auto changeable = [](const Subscription& x) {
    return x.subscriptionStatus == SubscriptionStatus::kActive && x.planUpgradeCancelPossible;
  };
  if (c.objectId) {
    for (const auto& x : c.read.subscriptions) {  // the record id or the external subscriptionId
      if (x.accountId != c.accountId || (x.id != *c.objectId && x.subscriptionId != *c.objectId)) continue;
      if (!changeable(x))
        return NoObject("subscription " + x.subscriptionId + " is " + std::string(core::NameOf(x.subscriptionStatus)) +
                        (x.planUpgradeCancelPossible ? "" : " and planUpgradeCancelPossible is false") +
                        ": only an ACTIVE subscription that can be cancelled or upgraded changes");
      return &x;
    }
    return WrongObject(c, "subscription");
  }
  for (const auto& x : c.read.subscriptions)
    if (x.accountId == c.accountId && changeable(x)) return &x;
  return NoObject("the account of apiKey has no ACTIVE subscription that can be cancelled or upgraded");
}

// ---- running the model's own steps --------------------------------------------------------------

// Removes the scheduled, not yet started jobs of `kind` whose argument `key` is `value`: a step
// the trigger has just run must not run again when the clock reaches it.
void DropPendingJobs(State& s, const char* kind, const char* key, const std::string& value) {
  for (auto it = s.jobs.begin(); it != s.jobs.end();) {
    if (it->second.kind == kind && !it->second.running && it->second.args.value(key, "") == value)
      it = s.EraseJob(it);
    else
      ++it;
  }
}

// Runs an export's job now (model/exports.hpp RunExport) instead of `exportSeconds` later.
void RunExportNow(State& s, const std::string& export_id, Millis now) {
  DropPendingJobs(s, "exports.run", "exportId", export_id);
  RunExport(s, export_id, now);
}

// The apps of a STARTED export that have no credentials: those for which its run fails.
std::vector<std::string> AppsWithoutCredentials(const State& s, const MailboxExport& x) {
  std::vector<std::string> out;
  for (const auto& app : x.apps)
    if (app != kManualApp && !CredentialsFor(s, x.accountId, app)) out.push_back(app);
  return out;
}

std::string JoinNames(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// Starts an export of one mailbox to `app`, as POST /v1/exports/export-mailboxes {apps, ids}.
Result<std::string> StartOneMailboxExport(TriggerCtx& c, const Mailbox& m, const std::string& app) {
  ExportRequest req;
  req.apps = {app};
  req.ids = {m.id};
  req.filters = {{"apps", req.apps}, {"ids", req.ids}};
  return StartExport(c.s, Caller{c.accountId, m.workspaceId}, req, c.now);
}

// A STARTED export named by objectId, whose run `fails` (or completes) as asked.
Result<const MailboxExport*> PickStartedExport(const TriggerCtx& c, bool fails) {
  const MailboxExport* x = c.read.exports.Find(*c.objectId);
  if (!x || x->accountId != c.accountId) return WrongObject(c, "export");
  if (x->status != ExportStatus::kStarted)
    return NoObject("export " + x->id + " is " + std::string(core::NameOf(x->status)) +
                    " already: only a STARTED export finishes");
  const auto missing = AppsWithoutCredentials(c.read, *x);
  if (fails && missing.empty())
    return NoObject("export " + x->id +
                    " would complete (every app it names has credentials): trigger export.completed");
  if (!fails && !missing.empty())
    return NoObject("export " + x->id + " would fail (no credentials for " + JoinNames(missing) +
                    "): trigger export.failed, or store them first");
  return x;
}

// The first third-party app (kThirdPartyApps order) the account has no credentials for.
Result<std::string> AppThatFails(const TriggerCtx& c) {
  for (auto app : kThirdPartyApps)
    if (!CredentialsFor(c.read, c.accountId, std::string(app))) return std::string(app);
  return NoObject("every third-party app (" + AcceptedAppsText() +
                  ") has credentials in the account of apiKey: an export fails only without them");
}

// ---- one function per event type ------------------------------------------------------------------

Status ChangeForDomainUpdated(TriggerCtx& c) {
  auto d = PickDomain(c, [](const Domain&) { return true; }, "the account of apiKey has no domain");
  if (!d) return d.error();
  const Domain& dom = **d;
  // The step POST /v1/domain/add-dmarc schedules (ApplyDomainSetting), run now. The address
  // alternates, so every trigger is a change (an unchanged domain emits nothing).
  std::string email = "dmarc@" + dom.domain;
  if (dom.dmarcEmail && *dom.dmarcEmail == email) email = "dmarc-reports@" + dom.domain;
  const std::string before = dom.dmarcEmail.value_or("none");
  c.out.objectId = dom.id;
  c.out.change = "add-dmarc applied to " + dom.domain + " (the step POST /v1/domain/add-dmarc schedules): dmarcEmail " +
                 before + " -> " + email;
  ApplyDomainSetting(c.s, DomainSetting::kDmarc, {{"domainIds", json::array({dom.id})}, {"email", email}}, c.now);
  return Ok{};
}

Status ChangeForDomainConnection(TriggerCtx& c) {
  auto connecting = [](const Domain& d) {
    return d.status == DomainStatus::kPending || d.status == DomainStatus::kConnected;
  };
  auto d = PickDomain(c, connecting,
                      "the account of apiKey has no PENDING or CONNECTED domain (buy one with POST "
                      "/v1/domain/buy-domain, or move one with POST /_sim/domains/:id/transition)");
  if (!d) return d.error();
  const Domain& dom = **d;
  if (!connecting(dom))
    return NoObject("domain " + dom.domain + " is " + std::string(core::NameOf(dom.status)) +
                    ": its connection is complete; only a PENDING or CONNECTED domain moves "
                    "(PENDING -> CONNECTED -> ACTIVE)");
  c.out.objectId = dom.id;
  const json args = {{"domainId", dom.id}};
  // The scheduler's own steps for a bought domain (model/domain_purchase.hpp); a connect or
  // activate job still pending for it finds the status moved and does nothing.
  if (dom.status == DomainStatus::kPending) {
    c.out.change = "domain " + dom.domain + " connected: PENDING -> CONNECTED (the registrar step of a bought domain)";
    RunConnectJob(c.s, args, c.now);
  } else {
    c.out.change = "domain " + dom.domain + " activated: CONNECTED -> ACTIVE (the last step of a bought domain)";
    RunActivateJob(c.s, args, c.now);
  }
  return Ok{};
}

Status ChangeForMailboxUpdated(TriggerCtx& c) {
  auto m = PickMailbox(c);
  if (!m) return m.error();
  const Mailbox& mbx = **m;
  const bool remove = !mbx.removeOnNextRenewal;
  c.out.objectId = mbx.id;
  c.out.change = "mailbox " + MailboxAddress(c.read, mbx) +
                 (remove ? " marked for removal at the next renewal" : " no longer marked for removal") +
                 " (PUT /v2/mailboxes/scheduled-removal); a second trigger undoes it";
  auto done = ScheduleMailboxRemoval(c.s, Caller{c.accountId, mbx.workspaceId}, {mbx.id}, remove, c.now);
  if (!done) return done.error();
  return Ok{};
}

Status ChangeForSubscriptionStatus(TriggerCtx& c) {
  auto sub = PickChangeableSubscription(c);
  if (!sub) return sub.error();
  const std::string id = (*sub)->subscriptionId;
  c.out.objectId = (*sub)->id;
  c.out.change = "subscription " + id + " cancelled (POST /v1/user/cancel-subscription): ACTIVE -> CANCELLED";
  return CancelSubscription(c.s, c.accountId, id, c.now);
}

Status ChangeForSubscriptionBilling(TriggerCtx& c) {
  auto sub = PickChangeableSubscription(c);
  if (!sub) return sub.error();
  const Subscription& x = **sub;
  // The plan after its current one in the fixture's plan catalogue, wrapping around.
  const auto& plans = c.read.plans;
  auto current = std::find_if(plans.begin(), plans.end(), [&](const Plan& p) { return p.key == x.planKey; });
  const Plan* next = nullptr;
  for (size_t i = 1; i <= plans.size() && !next; ++i) {
    const size_t start = current == plans.end() ? 0 : static_cast<size_t>(current - plans.begin());
    const Plan& p = plans[(start + i) % plans.size()];
    if (p.key != x.planKey) next = &p;
  }
  if (!next) return NoObject("the plan catalogue has no plan other than " + x.planKey + " to move subscription to");
  c.out.objectId = x.id;
  c.out.change = "subscription " + x.subscriptionId + " moved from plan " + x.planKey + " to " + next->key +
                 " (POST /v2/subscriptions/upgrade)";
  UpgradeRequest req;
  req.subscriptionId = x.subscriptionId;
  req.uniquePlanKey = next->key;
  return UpgradeSubscription(c.s, c.accountId, req, c.now);
}

// Moves the cart of a test order one step now (the job AdvancePlacementTests runs), the step's
// pending job dropped so the clock does not run it again.
void AdvanceCartNow(TriggerCtx& c, const PlacementTest& order) {
  const std::string cart = order.cartOrderId;
  const bool pending = order.status == PlacementTestStatus::kPending;
  const PlacementTestStatus to = pending ? PlacementTestStatus::kRunning : PlacementTestStatus::kCompleted;
  c.out.change += std::string(c.out.change.empty() ? "" : "; ") + "placement test orders of cart " + cart + " moved " +
                  (pending ? "PENDING -> RUNNING" : "RUNNING -> COMPLETED") + " (the scheduler's step, run now)";
  DropPendingJobs(c.s, kPlacementAdvanceJob, "cartOrderId", cart);
  AdvancePlacementTests(c.s, {{"cartOrderId", cart}, {"status", std::string(core::NameOf(to))}}, c.now);
}

Status ChangeForPlacementTest(TriggerCtx& c) {
  auto moving = [](const PlacementTest& t) {
    return t.status == PlacementTestStatus::kPending || t.status == PlacementTestStatus::kRunning;
  };
  if (c.objectId) {
    const PlacementTest* t = c.read.placementTests.Find(*c.objectId);
    if (!t || t->accountId != c.accountId) return WrongObject(c, "placement test order");
    if (t->status == PlacementTestStatus::kAwaitingPayment)
      return NoObject("placement test order " + t->id + " waits for payment: complete its checkout (POST "
                      "/_sim/placement-checkouts/" + t->cartOrderId + "/complete) to start it");
    if (!moving(*t)) return NoObject("placement test order " + t->id + " is COMPLETED: it does not move again");
    c.out.objectId = t->id;
    AdvanceCartNow(c, *t);
    return Ok{};
  }
  for (const auto& t : c.read.placementTests)
    if (t.accountId == c.accountId && moving(t)) {
      c.out.objectId = t.id;
      AdvanceCartNow(c, t);
      return Ok{};
    }
  // None under way: buy one (POST /v2/placement-tests/purchase) on the first ACTIVE mailbox of the
  // default workspace, with a MONTHLY credit when there is one, else ONE_TIME from the wallet.
  const Workspace* ws = DefaultWorkspace(c.read, c.accountId);
  const Mailbox* mbx = nullptr;
  for (const auto& m : c.read.mailboxes)
    if (ws && m.workspaceId == ws->id && m.status == MailboxStatus::kActive) {
      mbx = &m;
      break;
    }
  if (!mbx)
    return NoObject("the account of apiKey has no placement test under way and no ACTIVE mailbox to run one on");
  std::int64_t credits = 0;
  for (const auto& x : c.read.subscriptions)
    if (x.accountId == c.accountId && x.subscriptionStatus == SubscriptionStatus::kActive)
      credits += x.placementCredits;
  const Account* account = c.read.accounts.Find(c.accountId);
  const bool monthly = credits > 0;
  if (!monthly && (!account || account->walletCents < kOneTimePlacementCentsPerMailbox))
    return NoObject("the account of apiKey has no placement test under way, no MONTHLY credit and less than $2 in "
                    "its wallet to buy one");
  PlacementRequest req;
  req.placementType = monthly ? "MONTHLY" : "ONE_TIME";
  req.testName = "emsim trigger";
  req.mailboxIds = {mbx->id};
  auto bought = PurchasePlacementTests(c.s, Caller{c.accountId, ws->id}, req, c.now);
  if (!bought) return bought.error();
  const std::string order_id = bought->orders.front().id;
  c.out.objectId = order_id;
  c.out.change = "bought a " + req.placementType + " placement test on " + bought->orders.front().mailboxEmail +
                 " (POST /v2/placement-tests/purchase" + (monthly ? ", 1 credit" : ", $2 from the wallet") + ")";
  AdvanceCartNow(c, *c.read.placementTests.Find(order_id));
  return Ok{};
}

Status ChangeForWorkspaceStatus(TriggerCtx& c) {
  auto w = PickWorkspace(c);
  if (!w) return w.error();
  // Part 4.11 names workspaces without a status and no operation emsim simulates changes one: the
  // closest real change is the workspace update (PUT /v2/workspaces, from the public reference),
  // a rename, which alternates a " (renamed)" suffix so every trigger is a change.
  const std::string id = (*w)->id, old_name = (*w)->name;
  static constexpr std::string_view kSuffix = " (renamed)";
  const bool renamed = old_name.size() > kSuffix.size() && old_name.ends_with(kSuffix);
  const std::string name =
      renamed ? old_name.substr(0, old_name.size() - kSuffix.size()) : old_name + std::string(kSuffix);
  auto done = RenameWorkspace(c.s, Caller{c.accountId, id}, id, name);
  if (!done) {
    const auto& e = done.error();
    return NoObject("workspace " + id + " cannot be renamed to '" + name +
                    "': " + (e.errors.empty() ? e.message : e.errors.front().msg));
  }
  c.out.objectId = id;
  c.out.change = "workspace " + id + " renamed '" + old_name + "' -> '" + name +
                 "' (PUT /v2/workspaces; no operation changes a workspace's status)";
  c.s.Emit("workspace.status_changed", c.accountId,
           {{"workspaceDetails", WorkspaceDetails(**done)}, {"previousState", {{"name", old_name}}}}, c.now);
  return Ok{};
}

Status ChangeForWorkspaceInvitations(TriggerCtx& c) {
  auto w = PickWorkspace(c);
  if (!w) return w.error();
  const Account* account = c.read.accounts.Find(c.accountId);
  const std::string& owner = account ? account->user.email : std::string();
  const size_t at = owner.find('@');
  const std::string domain = at == std::string::npos ? "example.com" : owner.substr(at + 1);
  Workspace* ws = c.s.workspaces.Edit((*w)->id);
  // Part 4.11 names invitations without shapes: emsim keeps a minimal record on the workspace
  // (Workspace::invitations) and sends one to a new address each time.
  WorkspaceInvitation inv;
  inv.id = "inv_" + c.s.ids.Uuid4();
  inv.email = "invitee-" + std::to_string(ws->invitations.size() + 1) + "@" + domain;
  inv.createdAt = c.now;
  ws->invitations.push_back(inv);
  c.out.objectId = ws->id;
  c.out.change = "invitation " + inv.id + " to " + inv.email + " sent for workspace " + ws->id +
                 " (status PENDING; Part 4.11 names invitations without shapes)";
  c.s.Emit("workspace.invitations", c.accountId,
           {{"workspaceDetails", WorkspaceDetails(*ws)}, {"invitationDetails", InvitationDetails(inv)},
            {"previousState", json::object()}},
           c.now);
  return Ok{};
}

Status ChangeForExportStarted(TriggerCtx& c) {
  auto m = PickMailbox(c);
  if (!m) return m.error();
  const std::string address = MailboxAddress(c.read, **m);
  auto id = StartOneMailboxExport(c, **m, std::string(kManualApp));
  if (!id) return id.error();
  c.out.objectId = *id;
  c.out.change = "export " + *id + " of " + address +
                 " to MANUAL (CSV) started (POST /v1/exports/export-mailboxes); it finishes when the clock passes "
                 "exportSeconds";
  return Ok{};
}

Status ChangeForExportFinished(TriggerCtx& c, bool fails) {
  const char* outcome = fails ? "failed" : "completed";
  if (c.objectId) {
    auto x = PickStartedExport(c, fails);
    if (!x) return x.error();
    c.out.objectId = (*x)->id;
    c.out.change = "export " + (*x)->id + " run now (its job, due at exportSeconds): " + outcome;
    RunExportNow(c.s, (*x)->id, c.now);
    return Ok{};
  }
  // A new export of the first mailbox, started and run at once: to MANUAL (CSV) to complete, to
  // a third-party app without credentials to fail (gap decision, model/exports.hpp).
  std::string app = std::string(kManualApp);
  if (fails) {
    auto failing = AppThatFails(c);
    if (!failing) return failing.error();
    app = *failing;
  }
  // The mailbox is picked without objectId here (objectId names an export for these types).
  auto m = PickMailbox(c);
  if (!m) return m.error();
  const std::string address = MailboxAddress(c.read, **m);
  auto id = StartOneMailboxExport(c, **m, app);
  if (!id) return id.error();
  RunExportNow(c.s, *id, c.now);
  c.out.objectId = *id;
  c.out.change = "export " + *id + " of " + address + " to " + app +
                 " started (POST /v1/exports/export-mailboxes) and run now: " + outcome +
                 (fails ? " (no " + app + " credentials stored)" : "");
  return Ok{};
}

// Credentials for `app` as POST /v1/exports/update-third-party-account stores them; the trigger
// has no password, so the record's fingerprint says where it came from.
Status StoreCredentials(TriggerCtx& c, const std::string& workspace_id, const std::string& app) {
  const Account* account = c.read.accounts.Find(c.accountId);
  ThirdPartyCredentials creds;
  creds.app = app;
  creds.email = account && !account->user.email.empty() ? account->user.email : "trigger@example.com";
  creds.passwordFingerprint = "none: stored by POST /_sim/trigger";
  return UpdateThirdPartyAccount(c.s, Caller{c.accountId, workspace_id}, creds, c.now);
}

// The first app of the export that credentials would reconnect; empty: none.
std::string ReconnectableApp(const State& s, const MailboxExport& x) {
  for (const auto& app : x.apps)
    if (const MailboxExport* r = ReconnectableExport(s, x.accountId, app); r && r->id == x.id) return app;
  return "";
}

Status ChangeForExportReconnected(TriggerCtx& c) {
  const MailboxExport* target = nullptr;
  std::string app;
  if (c.objectId) {
    target = c.read.exports.Find(*c.objectId);
    if (!target || target->accountId != c.accountId) return WrongObject(c, "export");
    app = ReconnectableApp(c.read, *target);
    if (app.empty())
      return NoObject("export " + target->id + " is " + std::string(core::NameOf(target->status)) +
                      (target->reconnectedAt ? ", reconnected already" : "") +
                      ": only the latest export of an app that failed for it, not reconnected yet, is reconnected");
  } else {
    for (const auto& x : c.read.exports)  // the newest one that can be
      if (x.accountId == c.accountId)
        if (std::string a = ReconnectableApp(c.read, x); !a.empty()) target = &x, app = a;
  }
  if (!target) {
    // None: the whole path, as a consumer would see it: an export that fails, then credentials.
    if (auto failed = ChangeForExportFinished(c, true); !failed) return failed;
    target = c.read.exports.Find(c.out.objectId);
    app = target->apps.front();
  }
  const std::string id = target->id, workspace = target->workspaceId;
  c.out.change += std::string(c.out.change.empty() ? "" : "; ") + "credentials for " + app +
                  " stored (POST /v1/exports/update-third-party-account): export " + id + " reconnected";
  c.out.objectId = id;
  return StoreCredentials(c, workspace, app);
}

}  // namespace

Result<TriggeredChange> TriggerChange(State& s, const ChangeTriggerInput& in, Millis now) {
  const State& read = s;
  const EventTypeInfo* info = FindEventType(in.type);
  if (!info) return Error::Validation("type", "unknown event type '" + in.type + "'; known types: " + KnownTypesText());
  auto account = read.accountByApiKey.find(in.apiKey);
  if (account == read.accountByApiKey.end())
    return Error::Validation("apiKey", "no account has this API key (body apiKey or header x-auth-service)");
  if (in.objectId && in.objectId->empty()) return NoObject("objectId must not be empty");
  TriggerCtx c{s, read, account->second, in.objectId, now, {}};
  c.out.type = in.type;
  const size_t before = read.events.size();
  const std::string& t = in.type;
  // A type added to the event list without a row here is refused, naming it.
  const Error unknown = Error::Validation("type", "emsim knows no state change that emits " + t);
  Status done = t == "domain.updated"                    ? ChangeForDomainUpdated(c)
                : t == "domain.connection_status_changed" ? ChangeForDomainConnection(c)
                : t == "mailbox.updated"                  ? ChangeForMailboxUpdated(c)
                : t == "subscription.status_changed"      ? ChangeForSubscriptionStatus(c)
                : t == "subscription.billing_changed"     ? ChangeForSubscriptionBilling(c)
                : t == "placement_test.status_changed"    ? ChangeForPlacementTest(c)
                : t == "workspace.status_changed"         ? ChangeForWorkspaceStatus(c)
                : t == "workspace.invitations"            ? ChangeForWorkspaceInvitations(c)
                : t == "export.started"                   ? ChangeForExportStarted(c)
                : t == "export.completed"                 ? ChangeForExportFinished(c, false)
                : t == "export.failed"                    ? ChangeForExportFinished(c, true)
                : t == "export.reconnected"               ? ChangeForExportReconnected(c)
                                                          : Status(unknown);
  if (!done) return done.error();
  for (size_t i = before; i < read.events.size(); ++i) c.out.events.push_back({read.events[i].id, read.events[i].type});
  // Every path above emits an event of the type once its checks pass; a change that emitted none
  // would be a bug in this table, answered as one rather than as a silent success.
  if (std::none_of(c.out.events.begin(), c.out.events.end(), [&](const auto& e) { return e.type == t; }))
    return Error::Internal("the change made for " + t + " emitted no " + t + " event");
  return std::move(c.out);
}

}  // namespace emsim::model
