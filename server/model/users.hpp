#pragma once
// GET /v2/users, from the public reference, not the spec (Part 4.11 names "users" only):
// https://docs.zapmail.ai/retrieve-user-details-13489341e0. Everything comes from the account
// record and what it owns.
#include <optional>
#include <string>

#include "core/error.hpp"
#include "model/auth.hpp"
#include "model/state.hpp"

namespace emsim::model {

struct UserDetailsView {
  const Account* account = nullptr;
  // Gap decisions (README): the plan of the newest ACTIVE subscription (none: null); the end of
  // its period; purchased = mailbox quantity of the ACTIVE subscriptions (as mailboxes.list);
  // assigned = the account's mailboxes in every workspace; created = the account's oldest
  // workspace (emsim keeps no sign-up time).
  std::optional<std::string> activePlan;
  std::optional<Millis> planEndsOn;
  std::int64_t purchasedMailboxes = 0, assignedMailboxes = 0;
  Millis userCreatedAt = 0;
};

Result<UserDetailsView> UserDetails(const State& s, const Caller& caller);

}  // namespace emsim::model
