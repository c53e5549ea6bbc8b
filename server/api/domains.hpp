#pragma once
#include "http/types.hpp"

namespace emsim::api {
http::Reply ListDomains(http::Ctx& ctx);  // domains.list  GET /v1/domain/list
}  // namespace emsim::api
