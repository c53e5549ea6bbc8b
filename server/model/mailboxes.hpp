#pragma once
// Part 4.3 mailboxes.
#include <string>
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

// A mailbox of the caller's workspace; unknown (or another workspace's): 404.
Result<const Mailbox*> FindMailbox(const State& s, const Caller& caller, const std::string& id);

std::string MailboxAddress(const State& s, const Mailbox& m);

}  // namespace emsim::model
