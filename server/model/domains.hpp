#pragma once
// Part 4.4 domains: listing, DNS check, the asynchronous DMARC / forwarding / catch-all settings,
// status transitions and the events they emit (Part 6). Buying is in model/domain_purchase.
#include <functional>
#include <string>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/paging.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct DomainListView {
  Page page;
  std::vector<const Domain*> domains;
};

// Domains of the caller's workspace whose name contains `contains` (case-insensitive), in
// creation order, one page of kPageSize.
DomainListView ListDomains(const State& s, const Caller& caller, const std::string& contains, std::int64_t page);
// One step of bringing the index ListDomains(`contains`) would use up to date
// (WorkspaceTextSearch::CatchUp): at most `most` more domains indexed; how many are left (0 when
// `contains` is too short for the index).
size_t CatchUpDomainSearch(const State& s, const Caller& caller, const std::string& contains, size_t most);

// Mailboxes assigned to a domain (Part 2 assignedMailboxesCount).
std::int64_t AssignedMailboxes(const State& s, const std::string& domain_id);

// ---- changes and their events -----------------------------------------------------------------

// Applies `change` to the domain, and when anything observable changed (status, configuration,
// DNS state; see DomainObservable) sets updatedAt and emits, Part 6:
//   domain.updated                    every time, data {domainDetails, previousState}
//   domain.connection_status_changed  when the status left or entered PENDING or CONNECTED
// Answers the ids of the events emitted (none when nothing changed).
std::vector<std::string> ChangeDomain(State& s, Domain& d, Millis now, const std::function<void(Domain&)>& change);

// POST /_sim/domains/:id/transition: moves any account's domain to `status` (ACTIVE, CONNECTED,
// PENDING) and emits the matching events; the same status again changes nothing.
struct TransitionResult {
  DomainStatus previousStatus = DomainStatus::kPending;
  std::vector<std::string> eventIds;
};
Result<TransitionResult> TransitionDomain(State& s, const std::string& domain_id, const std::string& status,
                                          Millis now);

// ---- dns-check (Part 4.4) ----------------------------------------------------------------------

// The caller's workspace domains named by `ids`, in request order, each once. Any id that is not a
// domain of the caller's workspace (unknown, or another workspace's): 404 naming every such id.
Result<std::vector<const Domain*>> FindWorkspaceDomains(const State& s, const Caller& caller,
                                                        const std::vector<std::string>& ids);

// ---- add-dmarc, enable-email-forwarding, enable-catch-all-email (Part 4.4) ---------------------

enum class DomainSetting { kDmarc, kForwarding, kCatchAll };

const char* JobKind(DomainSetting setting);  // "domains.apply_dmarc", ...

struct SettingRequest {
  std::vector<std::string> domainIds;
  std::string contains;  // keyword filter; empty selects nothing
  std::string email;
};

// Selects the union of `domainIds` (each must be a domain of the caller's workspace: else 404)
// and the workspace's domains whose name contains `contains`; none selected: 400 naming
// domainIds. Schedules the change after the setting's delay (fixture timings dmarcSeconds,
// forwardingSeconds, catchAllSeconds) and answers the number of domains selected. Nothing
// visible changes until the job runs.
Result<std::int64_t> ScheduleDomainSetting(State& s, const Caller& caller, DomainSetting setting,
                                           const SettingRequest& request, Millis now);

// The job: sets the fields on every domain named in the job's args (`domainIds`, `email`).
void ApplyDomainSetting(State& s, DomainSetting setting, const json& args, Millis now);

// ---- From the public reference, not the spec (Part 4.11 names domains without a path) ---------

// DELETE /v2/domains {ids} (https://docs.zapmail.ai/remove-unused-domains-13521144e0): removes
// domains of the caller's workspace that hold no mailbox, all or nothing. Unknown or another
// workspace's id: 404; a domain with mailboxes: 400 naming ids (gap decision: "unused" is "holds
// no mailbox"; emsim does not tell connected from bought domains apart here). Answers the ids.
Result<std::vector<std::string>> RemoveUnusedDomains(State& s, const Caller& caller, const std::vector<std::string>& ids);

}  // namespace emsim::model
