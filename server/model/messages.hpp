#pragma once
// Message texts are named constants (STYLE.md habit 5), so tests and docs can refer to them.
namespace emsim::model::msg {

// Part 5 / Part 7: "a missing or invalid API key yields 401 with message text about an invalid API key"
inline constexpr const char* kInvalidApiKey = "Invalid API key: send a valid key in the x-auth-service header";
inline constexpr const char* kValidationFailed = "Validation failed";
inline constexpr const char* kInternalError = "Internal server error";
inline constexpr const char* kRouteNotFound = "Route not found";
inline constexpr const char* kMethodNotAllowed = "Method not allowed";
inline constexpr const char* kPayloadTooLarge = "Request body too large";
inline constexpr const char* kUnsupportedMediaType = "Content-Type must be application/json";
inline constexpr const char* kMalformedJson = "Malformed JSON body";
inline constexpr const char* kBillingSaved = "Billing details added successfully";
inline constexpr const char* kSuccess = "Success";

}  // namespace emsim::model::msg
