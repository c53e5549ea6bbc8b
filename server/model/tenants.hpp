#pragma once
// POST /_sim/tenants (DESIGN.md): a fresh account cloned from one of the fixture's accounts, so
// parallel tests can share one emsim without seeing each other's changes.
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
Result<TenantInfo> CreateTenant(State& s, const State& fixture, const std::string& template_id, Millis now,
                                const std::string& shard = "test");

}  // namespace emsim::model
