#pragma once
// One-line logs to stderr, as text or JSON (--log-format).
#include <string>

#include "model/json.hpp"

namespace emsim::sim {

enum class LogFormat { kText, kJson };

void SetLogFormat(LogFormat f);
// level: "info", "warn", "error". fields are appended (text) or merged (json).
void Log(const std::string& level, const std::string& message, const json& fields = json::object());

}  // namespace emsim::sim
