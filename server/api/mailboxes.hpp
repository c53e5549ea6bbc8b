#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply ListMailboxes(app::Ctx& ctx);   // mailboxes.list     GET /v1/mailbox/list
app::Reply MailboxDetails(app::Ctx& ctx);  // mailboxes.details  GET /v1/mailbox/details?id=
}  // namespace emsim::api
