#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply SearchEmails(http::Ctx& ctx);  // onebox.search_emails  GET /v2/onebox/search-emails
}  // namespace emsim::api
