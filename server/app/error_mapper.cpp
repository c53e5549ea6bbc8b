#include "app/error_mapper.hpp"

#include "core/json_out.hpp"
#include "core/json_limits.hpp"

namespace emsim::app {

int StatusOf(model::ErrorCode code) {
  switch (code) {
    case model::ErrorCode::kValidation: return 400;
    case model::ErrorCode::kUnauthorized: return 401;
    case model::ErrorCode::kNotFound: return 404;
    case model::ErrorCode::kMethodNotAllowed: return 405;
    case model::ErrorCode::kPayloadTooLarge: return 413;
    case model::ErrorCode::kUnsupportedMediaType: return 415;
    case model::ErrorCode::kTooManyRequests: return 429;
    case model::ErrorCode::kInternal: return 500;
  }
  return 500;
}

namespace {
// Messages quote client text (a header, a path, a name): bytes that are not UTF-8 cannot be
// written in a JSON answer, so they are replaced rather than turning a 4xx into a 500.
std::string Utf8(const std::string& s) { return model::IsValidUtf8(s) ? s : model::SafeText(s, 4096); }

model::Error Utf8(const model::Error& error) {
  model::Error out{error.code, Utf8(error.message), {}};
  for (const auto& e : error.errors) out.errors.push_back({Utf8(e.msg), Utf8(e.param), Utf8(e.location)});
  return out;
}
}  // namespace

Response ToResponse(const model::Error& raw_error, const std::string& error_id) {
  const model::Error error = Utf8(raw_error);
  const int status = StatusOf(error.code);
  json body = {{"status", status}, {"message", error.message}};
  if (error.code == model::ErrorCode::kValidation) {
    json errors = json::array();
    for (const auto& e : error.errors) errors.push_back({{"msg", e.msg}, {"param", e.param}, {"location", e.location}});
    body["errors"] = std::move(errors);
  } else {
    body["errorId"] = error_id;
  }
  return Json(std::move(body), status);
}

Response ToTextResponse(const model::Error& error, const std::string& error_id) {
  const int status = StatusOf(error.code);
  // Keys in nlohmann's (sorted) order, so the bytes are those of ToResponse's document.
  core::JsonOut w;
  try {
    w.BeginObject();
    if (error.code == model::ErrorCode::kValidation) {
      w.Key("errors").BeginArray();
      for (const auto& e : error.errors)
        w.BeginObject().Key("location").String(e.location).Key("msg").String(e.msg).Key("param").String(e.param).EndObject();
      w.EndArray();
    } else {
      w.Key("errorId").String(error_id);
    }
    w.Key("message").String(error.message).Key("status").Int(status).EndObject();
  } catch (const json::exception&) {
    return ToTextResponse(Utf8(error), error_id);  // some text was not UTF-8 (the second pass cannot throw)
  }
  Response out;
  out.status = status;
  out.raw = std::move(w.str());
  return out;
}

}  // namespace emsim::app
