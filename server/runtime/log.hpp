#pragma once
// One-line logs to stderr, as text or JSON (--log-format), from --log-level up.
#include <span>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace emsim::runtime {

enum class LogFormat { kText, kJson };
enum class LogLevel { kDebug, kInfo, kWarn, kError };

void SetLogFormat(LogFormat f);
LogFormat CurrentLogFormat();
// Lines below it are not written (default info). Unknown names leave it as it is.
void SetLogLevel(std::string_view level);
// Whether a line of this level ("debug", "info", "warn", "error") would be written: callers that
// build many fields per request ask first.
bool LogEnabled(std::string_view level);
// Fields keep the order they are given in: appended as key=value (text) or after time, level and
// msg in the object (json).
using LogFields = nlohmann::ordered_json;
// A field given as text, for the line every request writes (LogLine): building a LogFields
// document of its seven fields was half the cost of the line.
struct LogField {
  std::string_view key;
  std::string_view value;
  bool json = false;  // `value` is JSON text already (a number, null); else a string
};
// The line Log writes (newline included), at `time`: text, or one JSON object of time, level, msg
// and the fields (a field named time, level or msg takes that member's place). In the text, a
// string is written as it is and any other value as its JSON.
std::string FormatLogLine(LogFormat format, std::string_view time, std::string_view level, std::string_view message,
                          const LogFields& fields);
std::string FormatLogLine(LogFormat format, std::string_view time, std::string_view level, std::string_view message,
                          std::span<const LogField> fields);
// info and debug lines reach stderr within a few milliseconds, written together; warn and error
// lines (and everything logged before them) before Log returns.
void Log(const std::string& level, const std::string& message, const LogFields& fields = LogFields::object());
// The same line from fields given as text.
void LogLine(std::string_view level, std::string_view message, std::span<const LogField> fields);
// Writes every line still waiting (at exit it runs by itself; tests that read stderr call it).
void FlushLog();

}  // namespace emsim::runtime
