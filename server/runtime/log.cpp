#include "runtime/log.hpp"

#include <unistd.h>

#include <atomic>
#include <optional>
#include <mutex>

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

void Log(const std::string& level, const std::string& message, const LogFields& fields) {
  if (!LogEnabled(level)) return;
  std::string line;
  if (g_format == LogFormat::kJson) {
    LogFields j = LogFields::object();
    j["time"] = model::FormatIso(Clock::WallNow());
    j["level"] = level;
    j["msg"] = message;
    if (fields.is_object())
      for (const auto& [k, v] : fields.items()) j[k] = v;
    // Text that is not UTF-8 (an id from a damaged file) is replaced, never a throw out of a log call.
    line = j.dump(-1, ' ', false, LogFields::error_handler_t::replace);
  } else {
    line = model::FormatIso(Clock::WallNow()) + " " + level + " " + message;
    if (fields.is_object())
      for (const auto& [k, v] : fields.items())
        line += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, LogFields::error_handler_t::replace));
  }
  line += '\n';
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
