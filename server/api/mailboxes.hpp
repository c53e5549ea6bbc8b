#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply ListMailboxes(http::Ctx& ctx);   // mailboxes.list     GET /v1/mailbox/list
http::Reply MailboxDetails(http::Ctx& ctx);  // mailboxes.details  GET /v1/mailbox/details?id=
}  // namespace emsim::api
