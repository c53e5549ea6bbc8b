#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply ListMailboxes(app::Ctx& ctx);   // mailboxes.list     GET /v1/mailbox/list
app::Reply MailboxDetails(app::Ctx& ctx);  // mailboxes.details  GET /v1/mailbox/details?id=
// From the public reference, not the spec (Part 4.11):
app::Reply AssignMailboxes(app::Ctx& ctx);          // mailboxes.assign             POST /v1/mailbox/assign-new
app::Reply UpdateMailboxes(app::Ctx& ctx);          // mailboxes.update             PUT  /v2/mailboxes
app::Reply ScheduleMailboxRemoval(app::Ctx& ctx);   // mailboxes.scheduled_removal  PUT  /v2/mailboxes/scheduled-removal
}  // namespace emsim::api
