#include "runtime/log.hpp"

#include <atomic>
#include <iostream>
#include <mutex>

#include "core/time.hpp"
#include "runtime/clock.hpp"

namespace emsim::runtime {
namespace {
std::atomic<LogFormat> g_format{LogFormat::kText};  // process-wide output setting, not state
std::mutex g_mu;
}  // namespace

void SetLogFormat(LogFormat f) { g_format = f; }

void Log(const std::string& level, const std::string& message, const json& fields) {
  std::string line;
  if (g_format == LogFormat::kJson) {
    json j = fields.is_object() ? fields : json::object();
    j["time"] = model::FormatIso(Clock::WallNow());
    j["level"] = level;
    j["msg"] = message;
    line = j.dump();
  } else {
    line = model::FormatIso(Clock::WallNow()) + " " + level + " " + message;
    if (fields.is_object())
      for (const auto& [k, v] : fields.items()) line += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  std::lock_guard lock(g_mu);
  std::cerr << line << "\n";
}

}  // namespace emsim::runtime
