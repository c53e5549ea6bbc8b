#include "model/workspaces.hpp"

#include <unordered_map>

namespace emsim::model {

std::vector<WorkspaceView> ListWorkspaces(const State& s, const Caller& caller) {
  // Counts from the State indexes: no scan of every domain and mailbox per request.
  auto count = [](const std::unordered_map<std::string, std::vector<std::string>>& index, const std::string& ws) {
    auto it = index.find(ws);
    return it == index.end() ? std::int64_t{0} : static_cast<std::int64_t>(it->second.size());
  };
  std::vector<WorkspaceView> out;
  for (const auto& w : s.workspaces) {
    if (w.accountId != caller.accountId) continue;
    out.push_back({&w, count(s.domainsByWorkspace, w.id), count(s.mailboxesByWorkspace, w.id)});
  }
  return out;
}

Status AddOrUpdateBilling(State& s, const Caller& caller, const BillingInput& in, Millis now) {
  Workspace* w = s.workspaces.Find(in.workspaceId);
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

}  // namespace emsim::model
