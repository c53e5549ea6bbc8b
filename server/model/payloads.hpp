#pragma once
// Event payload pieces (Part 6), built by the model where events are emitted. DESIGN.md gap
// decision: every event type's data is `<resource>Details` (allow-listed fields) plus, where
// something changed, `previousState` (only the changed fields, with their old values).
#include "core/json.hpp"
#include "model/records.hpp"
#include "model/state.hpp"

namespace emsim::model {

// Part 2 "Domain (event record, domainDetails)": the allow-listed subset of a domain.
json DomainDetails(const State& s, const Domain& d);

// What a domain.updated event can report as changed (Part 6: "status, configuration or DNS
// state"): status and the configuration fields under their Part 2 list-record names, the DNS
// state under the Part 2 "DNS check result" names (spfRecord, dmarcRecords, dkimRecords,
// mxRecords). updatedAt is left out: it changes with every one of them.
json DomainObservable(const Domain& d);

// previousState: the fields of `before` whose value differs in `after`, with the old value.
json PreviousState(const json& before, const json& after);
// subscription.status_changed / subscription.billing_changed `subscriptionDetails`: the Part 2
// Subscription record plus userId; internal fields (planKey, placementCredits) are left out.
json SubscriptionDetails(const State& s, const Subscription& sub);

// Part 2 Subscription record, as the API answers it and as event payloads embed it.
json SubscriptionRecord(const Subscription& sub);
// mailbox.updated `mailboxDetails`: the Part 2 Mailbox record plus workspaceId.
json MailboxDetails(const State& s, const Mailbox& m);

// placement_test.status_changed `placementTestDetails`: the Part 2 test order (orderId,
// mailboxEmail, status) plus what ties it to its purchase and mailbox.
json PlacementTestDetails(const State& s, const PlacementTest& t);

// workspace.* events `workspaceDetails`: the workspace's id, name, isDefault and createdAt (its
// billing details are not event material).
json WorkspaceDetails(const Workspace& w);
// workspace.invitations `invitationDetails` (Part 4.11 shows no invitation fields: emsim's own).
json InvitationDetails(const WorkspaceInvitation& i);
// export.* events (Part 6 Exports category; payload shape is emsim's gap decision): the export
// record without the CSV and without the sent addresses (those are on GET /_sim/exports/:id).
json ExportDetails(const MailboxExport& x);

// export.reconnected: the third-party account whose credentials were stored. Never a password
// nor its fingerprint.
json ThirdPartyAccountDetails(const ThirdPartyAccount& t);

}  // namespace emsim::model
