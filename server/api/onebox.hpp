#pragma once
#include "app/types.hpp"

namespace emsim::api {
app::Reply SearchEmails(app::Ctx& ctx);  // onebox.search_emails  GET /v2/onebox/search-emails
}  // namespace emsim::api
