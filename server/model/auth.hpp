#pragma once
// Part 5: who is calling and which workspace the call acts on.
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct Caller {
  std::string accountId;
  std::string workspaceId;  // empty where the operation ignores workspaces (webhooks, Part 4.10)
};

// `workspace_header` is x-workspace-key or, failing that, x-workspace-id (gap decision: both
// select the workspace by id). Empty: the account's default workspace. A workspace of another
// account, or an unknown one: 404, so a caller cannot probe other accounts' ids.
Result<Caller> Authenticate(const State& s, std::string_view api_key, std::string_view workspace_header,
                            bool select_workspace);

const Workspace* DefaultWorkspace(const State& s, const std::string& account_id);

}  // namespace emsim::model
