#include "model/workspaces.hpp"

#include <unordered_map>

#include "core/text.hpp"

namespace emsim::model {

std::vector<WorkspaceView> ListWorkspaces(const State& s, const Caller& caller) {
  // Counts from the State indexes: no scan of every domain and mailbox per request.
  auto count = [](const auto& index, const std::string& ws) { return static_cast<std::int64_t>(IdsOf(index, ws).size()); };
  std::vector<WorkspaceView> out;
  for (const auto& w : s.workspaces) {
    if (w.accountId != caller.accountId) continue;
    out.push_back({&w, count(s.domainsByWorkspace, w.id), count(s.mailboxesByWorkspace, w.id)});
  }
  return out;
}

Status AddOrUpdateBilling(State& s, const Caller& caller, const BillingInput& in, Millis now) {
  Workspace* w = s.workspaces.Edit(in.workspaceId);
  if (!w || w->accountId != caller.accountId) return Error::NotFound("Workspace " + in.workspaceId + " not found");
  const Account* account = s.accounts.Find(caller.accountId);
  BillingDetails b = w->billingDetails.value_or(BillingDetails{});
  if (b.id.empty()) b.id = s.ids.Uuid4();
  b.userId = account ? account->user.id : "";
  b.workspaceId = w->id;
  b.firstName = in.firstName;
  b.lastName = in.lastName;
  b.company = in.company;
  b.addressLineOne = in.addressLineOne;
  b.addressLineTwo = in.addressLineTwo;
  b.addressLineThree = in.addressLineThree;
  b.city = in.city;
  b.state = in.state;
  b.country = in.country;
  b.postalCode = in.postalCode;
  b.phoneCc = in.phoneCc;
  b.phone = in.phone;
  w->billingDetails = std::move(b);
  (void)now;
  return Ok{};
}

namespace {

// The trimmed name, or the 400 naming `name`; `except_id` is the workspace being renamed.
Result<std::string> CheckedWorkspaceName(const State& s, const Caller& caller, const std::string& raw,
                                         const std::string& except_id) {
  const size_t first = raw.find_first_not_of(" \t");
  const std::string name =
      first == std::string::npos ? std::string() : raw.substr(first, raw.find_last_not_of(" \t") - first + 1);
  if (name.empty() || name.size() > 100)
    return Error::Validation("name", "name must be 1 to 100 characters (not only spaces)");
  const std::string folded = ToLower(name);
  for (const auto& w : s.workspaces)
    if (w.accountId == caller.accountId && w.id != except_id && ToLower(w.name) == folded)
      return Error::Validation("name", "a workspace named " + w.name + " already exists in this account");
  return name;
}

}  // namespace

Result<const Workspace*> CreateWorkspace(State& s, const Caller& caller, const std::string& name, Millis now,
                                         const BillingInput* billing) {
  auto checked = CheckedWorkspaceName(s, caller, name, "");
  if (!checked) return checked.error();
  Workspace w;
  w.id = "ws_" + s.ids.Uuid4();
  w.accountId = caller.accountId;
  w.name = std::move(*checked);
  w.createdAt = now;
  const std::string id = s.workspaces.Insert(std::move(w)).id;
  if (billing) {
    BillingInput in = *billing;
    in.workspaceId = id;
    // Cannot fail: the workspace is the caller's and exists (fields were checked by the schema).
    if (auto saved = AddOrUpdateBilling(s, caller, in, now); !saved) return saved.error();
  }
  return static_cast<const State&>(s).workspaces.Find(id);
}

Result<const Workspace*> RenameWorkspace(State& s, const Caller& caller, const std::string& id,
                                         const std::string& name) {
  const State& read = s;  // the const lookup: a refused rename marks no row changed
  const Workspace* found = read.workspaces.Find(id);
  if (!found || found->accountId != caller.accountId) return Error::NotFound("Workspace " + id + " not found");
  auto checked = CheckedWorkspaceName(s, caller, name, id);
  if (!checked) return checked.error();
  Workspace* w = s.workspaces.Edit(id);
  w->name = std::move(*checked);
  return w;
}

}  // namespace emsim::model
