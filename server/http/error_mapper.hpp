#pragma once
#include <string>

#include "http/types.hpp"

namespace emsim::http {

// The only place that turns an error value into a status and a body (STYLE.md habit 5).
// 400: Part 7 validation shape {status, message, errors:[{msg, param, location}]}.
// 401, 500: Part 7 {status, message, errorId}; errorId is a UUID v4.
// 404, 405, 413, 415, 429: gap decision, the same {status, message, errorId} shape.
int StatusOf(model::ErrorCode code);
Response ToResponse(const model::Error& error, const std::string& error_id);

}  // namespace emsim::http
