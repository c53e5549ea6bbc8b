#pragma once
// Records in the exact shapes of Part 2. Numeric-text fields (domainCount, mailboxCount,
// assignedMailboxesCount) are strings there, and so they are here.
#include "model/json.hpp"
#include "model/state.hpp"

namespace emsim::api {

json BillingRecord(const model::BillingDetails& b);
json WorkspaceRecord(const model::Workspace& w, std::int64_t domain_count, std::int64_t mailbox_count);
json DomainListRecord(const model::State& s, const model::Domain& d);
json MailboxRecord(const model::State& s, const model::Mailbox& m);
json OptionalTime(model::Millis t);  // 0 -> null

}  // namespace emsim::api
