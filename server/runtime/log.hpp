#pragma once
// One-line logs to stderr, as text or JSON (--log-format).
#include <string>

#include "core/json.hpp"

namespace emsim::runtime {

enum class LogFormat { kText, kJson };

void SetLogFormat(LogFormat f);
// level: "info", "warn", "error". fields are appended (text) or merged (json).
void Log(const std::string& level, const std::string& message, const json& fields = json::object());

}  // namespace emsim::runtime
