#pragma once
#include <string>

#include "app/types.hpp"

namespace emsim::app {

// The only place that turns an error value into a status and a body (STYLE.md habit 5).
// 400: Part 7 validation shape {status, message, errors:[{msg, param, location}]}.
// 401, 500: Part 7 {status, message, errorId}; errorId is a UUID v4.
// 404, 405, 413, 415, 429: gap decision, the same {status, message, errorId} shape.
int StatusOf(model::ErrorCode code);
Response ToResponse(const model::Error& error, const std::string& error_id);
// The same answer written straight as its text (Response::raw), the bytes core::DumpJson gives for
// ToResponse's body: the router's error path, where building and dumping the document was ~9k
// instructions of a ~127k-instruction 400 (measured with callgrind). Text that is not valid UTF-8 falls back to
// ToResponse's document, which the caller serializes (and reports) as before.
Response ToTextResponse(const model::Error& error, const std::string& error_id);

}  // namespace emsim::app
