#include "runtime/log.hpp"

#include <unistd.h>

#include <atomic>
#include <optional>
#include <mutex>

#include "core/json_out.hpp"
#include "core/time.hpp"
#include "runtime/clock.hpp"

namespace emsim::runtime {
namespace {
std::atomic<LogFormat> g_format{LogFormat::kText};  // process-wide output settings, not state
std::atomic<LogLevel> g_level{LogLevel::kInfo};
std::mutex g_mu;

std::optional<LogLevel> LevelOf(std::string_view name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "info") return LogLevel::kInfo;
  if (name == "warn") return LogLevel::kWarn;
  if (name == "error") return LogLevel::kError;
  return std::nullopt;
}
}  // namespace

void SetLogFormat(LogFormat f) { g_format = f; }
LogFormat CurrentLogFormat() { return g_format; }

void SetLogLevel(std::string_view level) {
  if (auto l = LevelOf(level)) g_level = *l;
}

bool LogEnabled(std::string_view level) {
  const auto l = LevelOf(level);
  return !l || *l >= g_level.load(std::memory_order_relaxed);
}

namespace {

constexpr auto kReplace = LogFields::error_handler_t::replace;

// A value as the text format writes it: a string as it is, anything else as JSON (text that is
// not UTF-8, from a damaged file, replaced: never a throw out of a log call).
void AppendText(std::string& line, const LogFields& v) {
  if (v.is_string()) line += v.get_ref<const std::string&>();
  else line += v.dump(-1, ' ', false, kReplace);
}

// `text` as a JSON string, bytes that are not UTF-8 replaced.
void AppendQuoted(std::string& line, std::string_view text) {
  try {
    core::AppendJsonString(line, text);  // leaves `line` as it was if it throws
  } catch (const LogFields::exception&) {
    line += LogFields(std::string(text)).dump(-1, ' ', false, kReplace);
  }
}

void AppendJsonValue(std::string& line, const LogFields& v) {
  if (v.is_string()) AppendQuoted(line, v.get_ref<const std::string&>());
  else line += v.dump(-1, ' ', false, kReplace);
}

}  // namespace

std::string FormatLogLine(LogFormat format, std::string_view time, std::string_view level, std::string_view message,
                          const LogFields& fields) {
  // Straight into one string: the line of every request (--log-level info) was ~6% of a
  // purchase's CPU when built as a JSON document and dumped, or as a chain of temporaries.
  std::string line;
  line.reserve(160);
  const bool object = fields.is_object();
  if (format == LogFormat::kJson) {
    // A field named as a header member takes its place (as members of one object would).
    const std::string_view header_keys[] = {"time", "level", "msg"};
    const std::string_view header_values[] = {time, level, message};
    line += '{';
    for (size_t i = 0; i < 3; ++i) {
      core::AppendJsonKey(line, header_keys[i], i > 0);
      const auto it = object ? fields.find(header_keys[i]) : fields.end();
      if (object && it != fields.end()) AppendJsonValue(line, *it);
      else AppendQuoted(line, header_values[i]);
    }
    if (object)
      for (auto it = fields.begin(); it != fields.end(); ++it) {
        const std::string& k = it.key();
        if (k == "time" || k == "level" || k == "msg") continue;
        line += ',';
        AppendQuoted(line, k);
        line += ':';
        AppendJsonValue(line, *it);
      }
    line += '}';
  } else {
    line.append(time).append(" ").append(level).append(" ").append(message);
    if (object)
      for (auto it = fields.begin(); it != fields.end(); ++it) {
        line.append(" ").append(it.key()).append("=");
        AppendText(line, *it);
      }
  }
  line += '\n';
  return line;
}

void Log(const std::string& level, const std::string& message, const LogFields& fields) {
  if (!LogEnabled(level)) return;
  char time[model::kIsoMaxChars + 1];
  const std::string line = FormatLogLine(g_format, std::string_view(time, model::FormatIsoTo(Clock::WallNow(), time)),
                                         level, message, fields);
  // One write per line, so lines of concurrent requests never interleave, and no stream buffer
  // to flush: a kill -9 loses no line that was logged.
  std::lock_guard lock(g_mu);
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

}  // namespace emsim::runtime
