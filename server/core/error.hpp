#pragma once
// Errors are values (STYLE.md habit 5): the model returns an Error with a stable code, a
// message and the parameters it concerns; app/error_mapper is the only place that turns it
// into a status and a body.
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace emsim::model {

enum class ErrorCode {
  kValidation,            // 400, Part 7 validation shape
  kUnauthorized,          // 401, Part 7 auth shape
  kNotFound,              // 404 (gap decision: the 401 shape)
  kMethodNotAllowed,      // 405
  kPayloadTooLarge,       // 413
  kUnsupportedMediaType,  // 415
  kTooManyRequests,       // 429 (rate limits, off by default)
  kInternal,              // 500, Part 7 server-failure shape
};

struct FieldError {
  std::string msg;
  std::string param;
  std::string location;  // "body", "query", "headers", "path"
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::vector<FieldError> errors;  // only for kValidation

  static Error Validation(std::string param, std::string msg, std::string location = "body") {
    Error e{ErrorCode::kValidation, "Validation failed: " + msg, {}};
    e.errors.push_back({std::move(msg), std::move(param), std::move(location)});
    return e;
  }
  static Error NotFound(std::string message) { return {ErrorCode::kNotFound, std::move(message), {}}; }
  static Error Unauthorized(std::string message) {
    return {ErrorCode::kUnauthorized, std::move(message), {}};
  }
  static Error Internal(std::string message) { return {ErrorCode::kInternal, std::move(message), {}}; }
};

// Result<T>: a value or an Error. A minimal stand-in for C++23 std::expected.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT: implicit by design
  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace emsim::model
