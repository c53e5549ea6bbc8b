#pragma once
// POST /_sim/tenants (DESIGN.md): a fresh account cloned from one of the fixture's accounts, so
// parallel tests can share one emsim without seeing each other's changes.
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct TenantWorkspace {
  std::string id, name;
  bool isDefault = false;
};

struct TenantInfo {
  std::string accountId, apiKey, tag, userId, userEmail;
  std::vector<TenantWorkspace> workspaces;
};

// Clones the account `template_id` of `fixture` (the loaded fixtures, not the current state, so
// every tenant starts alike; empty: the fixture's first account) into `s`: account, user,
// workspaces with billing details, domains, mailboxes, subscriptions, DNS-shield subscriptions
// and emails, with wallet balance and every other field as in the fixture. New record ids come
// from the state's id generator (reproducible from --seed). A short tag `t` + 6 hex makes names
// unique: account/workspace/user/subscription ids get `_<tag>`, domain names `<tag>-`, mailbox
// and email addresses follow their domains. The API key is `emsim_<shard>_<tag>_<12 hex>`: the
// shard (--shard-id) in second place lets a proxy route by the key alone. Unknown template: 400
// naming `template`.
//
// `clock`: nullopt gives the tenant the instance clock ("shared"); otherwise a clock of its own
// starting at `clock->now` in `clock->mode` ("real" | "manual"), `clock->wall` being the wall
// time now (a real clock keeps its offset from it).
struct OwnClockStart {
  std::string mode;
  Millis now = 0, wall = 0;
};
Result<TenantInfo> CreateTenant(State& s, const State& fixture, const std::string& template_id, Millis now,
                                const std::optional<OwnClockStart>& clock = std::nullopt, const std::string& shard = "test");

// ---- tenants' clocks ---------------------------------------------------------------------------
// The tenant with a clock of its own whose account is `account_id`; nullptr for a fixture
// account, a shared-clock tenant or an unknown id (they follow the instance clock).
const Tenant* OwnClockTenant(const State& s, const std::string& account_id);
// An own clock's now, `wall` being the wall clock's now.
Millis OwnClockNow(const Tenant& t, Millis wall);
// Moves an own clock to `now` (never backwards: false, unchanged) and requeues its jobs.
bool SetOwnClock(State& s, const std::string& account_id, Millis now, Millis wall);
// Switches an own clock's mode, keeping its now (a real clock freezes where it is; a manual one
// runs on from where it stood).
void SetOwnClockMode(State& s, const std::string& account_id, const std::string& mode, Millis wall);

// ---- one tenant's life ---------------------------------------------------------------------------
// Puts the tenant back to its state at creation: every record, event, delivery, notification,
// wallet movement, job and request fault of its account is removed, its records cloned again from
// `fixture` with the same ids, and its clock put back to its start. Nothing of any other account
// changes. 404 for an id that is no tenant (a fixture account is none).
Result<TenantInfo> ResetTenant(State& s, const State& fixture, const std::string& account_id, Millis wall);
// Removes the tenant and all it owns (as above, without the clone). 404 as above.
Result<bool> DeleteTenant(State& s, const std::string& account_id);

}  // namespace emsim::model
