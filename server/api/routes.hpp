#pragma once
// THE list of endpoints (STYLE.md habit 1), the table of contents of the API: each route's
// method, path, operation id (the name of its schema files) and handler. No handler is
// registered anywhere else.
#include <vector>

#include "app/route.hpp"

namespace emsim::api {

const std::vector<app::Route>& Routes();

}  // namespace emsim::api
