#include "model/auth.hpp"

#include "core/messages.hpp"

namespace emsim::model {

const Workspace* DefaultWorkspace(const State& s, const std::string& account_id) {
  const Workspace* first = nullptr;
  for (const auto& w : s.workspaces) {
    if (w.accountId != account_id) continue;
    if (w.isDefault) return &w;
    if (!first) first = &w;
  }
  return first;
}

Result<Caller> Authenticate(const State& s, std::string_view api_key, std::string_view workspace_header,
                            bool select_workspace) {
  auto it = s.accountByApiKey.find(std::string(api_key));
  if (api_key.empty() || it == s.accountByApiKey.end()) return Error::Unauthorized(msg::kInvalidApiKey);
  Caller caller{it->second, ""};
  if (!select_workspace) return caller;
  if (workspace_header.empty()) {
    const Workspace* w = DefaultWorkspace(s, caller.accountId);
    if (!w) return Error::NotFound("The account has no workspace");
    caller.workspaceId = w->id;
    return caller;
  }
  const Workspace* w = s.workspaces.Find(std::string(workspace_header));
  if (!w || w->accountId != caller.accountId)
    return Error::NotFound("Workspace " + std::string(workspace_header) + " not found");
  caller.workspaceId = w->id;
  return caller;
}

}  // namespace emsim::model
