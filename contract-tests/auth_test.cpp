// Part 5: the API key on every operation, and what the workspace headers do.
#include <algorithm>

#include "live.hpp"

namespace contract {
namespace {

constexpr const char* kWrongKey = "contract-suite-not-a-key-7f3a91";

// Part 5: "A missing or invalid API key yields 401 with message text about an invalid API key
// and an errorId" (Part 7: a UUID v4).
void ExpectInvalidKey(const Reply& r) {
  ExpectError(r, 401);
  if (r.status != 401 || !r.isJson || !r.body.is_object()) return;
  std::string msg = r.body.value("message", "");
  std::transform(msg.begin(), msg.end(), msg.begin(), [](unsigned char c) { return std::tolower(c); });
  if (msg.find("api key") == std::string::npos && msg.find("api-key") == std::string::npos &&
      msg.find("apikey") == std::string::npos)
    Violation(r.op, "/message", "must be about an invalid API key (Part 5), got \"" + r.body.value("message", "") + "\"");
}

// An operation whose key requirement Part 5 leaves open: "Whether the buy-domain operation
// requires the key header: not shown".
bool KeyRequirementShown(const Operation& op) { return op.id != "domains.buy"; }

Args WithKey(const std::string& key) {
  Args a;
  a.apiKey = key;
  a.workspaceKey = "";
  a.pathId = "contract-suite-no-such-id";
  return a;
}

TEST(Auth, MissingApiKeyIs401WithAUuidV4ErrorIdOnEveryOperation) {
  for (const auto& op : Operations())
    if (KeyRequirementShown(op)) ExpectInvalidKey(Invoke(op, WithKey("")));
}

TEST(Auth, WrongApiKeyIs401WithAUuidV4ErrorIdOnEveryOperation) {
  for (const auto& op : Operations())
    if (KeyRequirementShown(op)) ExpectInvalidKey(Invoke(op, WithKey(kWrongKey)));
}

TEST(Auth, ErrorIdsAreFreshPerFailure) {
  Reply a = Invoke("workspaces.list", WithKey(""));
  Reply b = Invoke("workspaces.list", WithKey(""));
  ExpectInvalidKey(a);
  ExpectInvalidKey(b);
  if (a.isJson && b.isJson && a.body.value("errorId", "") == b.body.value("errorId", ""))
    Violation("workspaces.list", "/errorId", "must identify one failure: two 401s carried the same " + a.body.value("errorId", ""));
}

TEST(Auth, ServiceProviderGoogleIsAccepted) {
  // Part 5: x-service-provider selects the mail provider context; the sample sends GOOGLE.
  Args a;
  a.extra = {{"x-service-provider", "GOOGLE"}};
  ExpectOk(Invoke("workspaces.list", a));
}

TEST(Auth, WorkspaceKeySelectsEachWorkspace) {
  // Part 5: x-workspace-key selects the workspace the call acts on. Every workspace of the
  // account must be selectable, and answer in the operation's shape.
  const json workspaces = Workspaces();
  ASSERT_FALSE(workspaces.empty()) << "workspaces.list: the account needs at least one workspace";
  size_t n = 0;
  for (const auto& w : workspaces) {
    if (++n > 5) break;
    Args a;
    a.workspaceKey = w.value("id", "");
    ExpectOk(Invoke("domains.list", a));
    ExpectOk(Invoke("mailboxes.list", a));
  }
}

TEST(Auth, WorkspaceKeyScopesTheDomainList) {
  REQUIRE_EMSIM_GAP("what domainCount counts, and that domains.list is scoped to the selected workspace");
  for (const auto& w : Workspaces()) {
    Args a;
    a.workspaceKey = w.value("id", "");
    Reply r = Invoke("domains.list", a);
    if (!ExpectOk(r)) continue;
    const std::string count = w.value("domainCount", "");
    if (std::to_string(r.body["data"].value("totalSearchedCount", -1L)) != count)
      Violation("domains.list", "/data/totalSearchedCount",
                "must equal the workspace's domainCount (" + count + ") under x-workspace-key " + a.workspaceKey.value() +
                    ", got " + r.body["data"]["totalSearchedCount"].dump());
  }
}

TEST(Auth, WorkspaceIdHeaderActsLikeWorkspaceKey) {
  REQUIRE_EMSIM_GAP("x-workspace-id (seen in one search sample) selects the workspace like x-workspace-key");
  for (const auto& w : Workspaces()) {
    Args by_key, by_id;
    by_key.workspaceKey = w.value("id", "");
    by_id.workspaceKey = "";
    by_id.extra = {{"x-workspace-id", w.value("id", "")}};
    Reply a = Invoke("domains.list", by_key);
    Reply b = Invoke("domains.list", by_id);
    if (ExpectOk(a) && ExpectOk(b) && a.body["data"] != b.body["data"])
      Violation("domains.list", "/data", "must be the same under x-workspace-id as under x-workspace-key " + w.value("id", ""));
  }
}

TEST(Auth, UnknownWorkspaceIs404) {
  REQUIRE_EMSIM_GAP("an unknown or foreign workspace in x-workspace-key answers 404");
  Args a;
  a.workspaceKey = "contract-suite-no-such-workspace";
  ExpectError(Invoke("domains.list", a), 404);
  ExpectError(Invoke("workspaces.list", a), 404);
}

}  // namespace
}  // namespace contract
