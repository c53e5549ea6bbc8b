#pragma once
// Part 4.1 billing and Part 4.2 workspaces.
#include <string>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct WorkspaceView {
  const Workspace* workspace;
  std::int64_t domainCount;
  std::int64_t mailboxCount;
};

// The caller's workspaces in creation order, with counts computed from state.
std::vector<WorkspaceView> ListWorkspaces(const State& s, const Caller& caller);

// Fields of Part 4.1's body. Required-ness and the country code are checked by the request
// schema (gap decision: all fields but addressLineTwo/Three are required).
struct BillingInput {
  std::string workspaceId, firstName, lastName, company, addressLineOne;
  std::optional<std::string> addressLineTwo, addressLineThree;
  std::string city, state, country, postalCode, phoneCc, phone;
};

// Adds or replaces the billing details of one of the caller's workspaces.
// Unknown workspace or one of another account: 404.
Status AddOrUpdateBilling(State& s, const Caller& caller, const BillingInput& in, Millis now);

// ---- From the public reference, not the spec (Part 4.11 names workspace create/update only) ---

// POST /v2/workspaces (https://docs.zapmail.ai/create-new-workspace-13489947e0): a new,
// non-default workspace of the caller's account. The name is trimmed, 1..100 characters and unique
// in the account, case-insensitive ("Workspace names must be unique per account"): else 400
// naming name. `billing` (the reference's billingDetails; its workspaceId is ignored) is saved on
// it as AddOrUpdateBilling saves it.
Result<const Workspace*> CreateWorkspace(State& s, const Caller& caller, const std::string& name, Millis now,
                                         const BillingInput* billing = nullptr);

// PUT /v2/workspaces (https://docs.zapmail.ai/update-workspace-13489975e0): renames one of the
// caller's workspaces. Unknown or another account's: 404. Name rules as CreateWorkspace.
Result<const Workspace*> RenameWorkspace(State& s, const Caller& caller, const std::string& id,
                                         const std::string& name);

}  // namespace emsim::model
