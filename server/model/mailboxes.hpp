#pragma once
// Part 4.3 mailboxes.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/auth.hpp"
#include "core/error.hpp"
#include "model/paging.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct MailboxGroup {
  const Domain* domain;
  std::vector<const Mailbox*> mailboxes;
};

struct MailboxListView {
  Page page;  // pages over matching mailboxes, kPageSize per page
  std::int64_t purchasedMailboxes = 0, totalAssignedMailboxes = 0, totalActiveMailboxes = 0,
               availableMailboxes = 0;
  std::vector<MailboxGroup> domains;  // the page's mailboxes grouped by domain, in order
};

// Gap decisions (README): `contains` matches the address (username@domain) or the name,
// case-insensitive. purchasedMailboxes = mailbox quantity of the account's ACTIVE
// subscriptions; totalAssigned/totalActive count the workspace's mailboxes;
// availableMailboxes = purchased minus the mailboxes of the whole account, never below 0.
MailboxListView ListMailboxes(const State& s, const Caller& caller, const std::string& contains, std::int64_t page);
// One step of bringing the index ListMailboxes(`contains`) would use up to date
// (WorkspaceTextSearch::CatchUp): at most `most` more mailboxes indexed; how many are left (0 when
// `contains` is too short for the index).
size_t CatchUpMailboxSearch(const State& s, const Caller& caller, const std::string& contains, size_t most);

// A mailbox of the caller's workspace; unknown (or another workspace's): 404.
Result<const Mailbox*> FindMailbox(const State& s, const Caller& caller, const std::string& id);

std::string MailboxAddress(const State& s, const Mailbox& m);

// ---- From the public reference, not the spec (Part 4.11 names mailbox assign/update/remove only) --

// The reference's username rules (https://docs.zapmail.ai/update-mailbox-13490429e0): letters,
// digits and . _ -, not first or last, never two in a row; emsim adds 1..64 characters.
bool ValidMailboxUsername(std::string_view username);

// One mailbox to create (POST /v1/mailbox/assign-new, body {"<domainId>": [MailboxToAssign]}).
struct MailboxToAssign {
  std::string firstName, lastName, mailboxUsername, domainName;
};
struct AssignRequest {
  std::string domainId;
  std::vector<MailboxToAssign> mailboxes;
};

// https://docs.zapmail.ai/v1/assign-new-mailboxes-to-domains-13490321e0: all or nothing. Each
// domain must be an ACTIVE domain of the caller's workspace (unknown or another's: 404) whose name
// is domainName; usernames valid and free on their domain (case-insensitive, the request
// included); the account's free slots (mailboxes.list availableMailboxes) must cover them all.
// The mailboxes start IN_PROGRESS and a job makes them ACTIVE `mailboxActivationSeconds` later
// (fixture timings, default 300 s): "Mailboxes will be assigned shortly". Errors name
// `<domainId>[i].<field>`.
Result<std::vector<std::string>> AssignMailboxes(State& s, const Caller& caller, const std::vector<AssignRequest>& in,
                                                 Millis now);
inline constexpr const char* kMailboxActivateJob = "mailboxes.activate";
// The job: each mailbox still IN_PROGRESS becomes ACTIVE, with a mailbox.updated event (Part 6).
void ActivateAssignedMailboxes(State& s, const json& args, Millis now);

// PUT /v2/mailboxes (https://docs.zapmail.ai/update-mailbox-13490429e0): all or nothing.
struct MailboxUpdate {
  std::string mailboxId, firstName, lastName, username;
  std::optional<std::string> profilePicture;  // absent or empty: keep the current one
  bool removeProfilePicture = false;
};
// Each mailbox of the caller's workspace (else 404); the username valid and free on its domain.
// A mailbox that changed emits mailbox.updated with previousState (Part 6). Errors name
// mailboxData[i].<field>.
Status UpdateMailboxes(State& s, const Caller& caller, const std::vector<MailboxUpdate>& in, Millis now);

// PUT /v2/mailboxes/scheduled-removal (https://docs.zapmail.ai/remove-mailboxes-on-next-renewal-13490521e0):
// marks (remove) or unmarks the mailboxes; an empty list means every ACTIVE mailbox of the
// workspace, as the reference says. Unknown or another workspace's id: 404, nothing marked. A
// mailbox whose mark changed emits mailbox.updated. Answers how many were marked or unmarked.
Result<std::int64_t> ScheduleMailboxRemoval(State& s, const Caller& caller, const std::vector<std::string>& ids,
                                            bool remove, Millis now);

}  // namespace emsim::model
