#include "runtime/log.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "core/json_out.hpp"
#include "core/time.hpp"
#include "runtime/clock.hpp"

namespace emsim::runtime {
namespace {
std::atomic<LogFormat> g_format{LogFormat::kText};  // process-wide output settings, not state
std::atomic<LogLevel> g_level{LogLevel::kInfo};

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

// `text` as a JSON string, bytes that are not UTF-8 replaced.
void AppendQuoted(std::string& line, std::string_view text) {
  try {
    core::AppendJsonString(line, text);  // leaves `line` as it was if it throws
  } catch (const LogFields::exception&) {
    line += LogFields(std::string(text)).dump(-1, ' ', false, kReplace);
  }
}

void AppendValue(std::string& line, const LogField& f, LogFormat format) {
  if (f.json || format == LogFormat::kText) line += f.value;
  else AppendQuoted(line, f.value);
}

}  // namespace

std::string FormatLogLine(LogFormat format, std::string_view time, std::string_view level, std::string_view message,
                          std::span<const LogField> fields) {
  // Straight into one string: the line of every request (--log-level info) was ~6% of a
  // purchase's CPU when built as a JSON document and dumped, or as a chain of temporaries.
  std::string line;
  line.reserve(192);
  if (format == LogFormat::kJson) {
    // A field named as a header member takes its place (as members of one object would).
    const std::string_view header_keys[] = {"time", "level", "msg"};
    const std::string_view header_values[] = {time, level, message};
    auto is_header = [&](std::string_view k) { return k == header_keys[0] || k == header_keys[1] || k == header_keys[2]; };
    line += '{';
    for (size_t i = 0; i < 3; ++i) {
      core::AppendJsonKey(line, header_keys[i], i > 0);
      const auto it = std::find_if(fields.begin(), fields.end(), [&](const LogField& f) { return f.key == header_keys[i]; });
      if (it != fields.end()) AppendValue(line, *it, format);
      else AppendQuoted(line, header_values[i]);
    }
    for (const LogField& f : fields) {
      if (is_header(f.key)) continue;
      line += ',';
      AppendQuoted(line, f.key);
      line += ':';
      AppendValue(line, f, format);
    }
    line += '}';
  } else {
    line.append(time).append(" ").append(level).append(" ").append(message);
    for (const LogField& f : fields) {
      line.append(" ").append(f.key).append("=");
      AppendValue(line, f, format);
    }
  }
  line += '\n';
  return line;
}

std::string FormatLogLine(LogFormat format, std::string_view time, std::string_view level, std::string_view message,
                          const LogFields& fields) {
  // Each value as text: a string as it is, anything else as its JSON (text that is not UTF-8, from
  // a damaged file, replaced: never a throw out of a log call).
  std::vector<std::string> dumped;
  std::vector<LogField> views;
  if (fields.is_object()) {
    dumped.reserve(fields.size());
    views.reserve(fields.size());
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      if (it->is_string()) {
        views.push_back({it.key(), it->get_ref<const std::string&>(), false});
      } else {
        dumped.push_back(it->dump(-1, ' ', false, kReplace));
        views.push_back({it.key(), dumped.back(), true});
      }
    }
  }
  return FormatLogLine(format, time, level, message, std::span<const LogField>(views));
}

namespace {

// Lines of info and debug wait up to kFlushDelay and go out together: one write(2) per request
// line was a syscall and a lock of its own for every request (measured: the request line, built
// and written, was 6-16 us of a purchase's 50-65 us of CPU on 2 CPUs). warn and error lines are
// written at once, with everything before them, so a line that says what went wrong is on stderr
// before the call returns. What is lost: a kill -9 or a crash drops the last few milliseconds of
// info lines (the journal, GET /_sim/requests, is the record of requests; the log is for people).
constexpr auto kFlushDelay = std::chrono::milliseconds(5);
// A thread that logs past this many bytes waiting writes them itself: the buffer stays small.
constexpr size_t kMaxBuffered = 256 * 1024;

struct Sink {
  std::mutex mu;          // the buffer
  std::mutex write_mu;    // held across a write, so batches reach stderr in the order taken
  std::condition_variable cv;
  std::string buffered;   // under mu
  bool flusher_started = false;  // under mu
  bool no_flusher = false;       // under mu: its thread could not be started; lines go at once
};

// Never destroyed: threads that outlive main (the server's connections) may still log, and the
// exit handler below writes what waits.
Sink& TheSink() {
  static Sink* sink = [] {
    auto* s = new Sink;
    std::atexit([] { FlushLog(); });
    return s;
  }();
  return *sink;
}

void WriteAll(const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(STDERR_FILENO, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

// Sleeps until a line waits, lets others join it for kFlushDelay, writes them. While it sleeps
// on the delay no thread waits on the condition, so a line's notify costs no syscall.
void FlusherLoop(Sink& sink) {
  // Started by whichever thread logs first, perhaps before a command blocks SIGTERM and SIGINT
  // for its sigwait: a stop signal delivered here would take its default action (no stop, no
  // flush). The process's signals are for the threads that wait for them.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  for (;;) {
    {
      std::unique_lock lock(sink.mu);
      sink.cv.wait(lock, [&] { return !sink.buffered.empty(); });
    }
    std::this_thread::sleep_for(kFlushDelay);
    FlushLog();
  }
}

}  // namespace

void FlushLog() {
  Sink& sink = TheSink();
  std::lock_guard write_lock(sink.write_mu);
  std::string batch;
  {
    std::lock_guard lock(sink.mu);
    batch.swap(sink.buffered);
  }
  WriteAll(batch);
}

namespace {

// Hands `line` (of `level`, enabled) to the sink: whole lines into one buffer, so lines of
// concurrent requests never interleave.
void Emit(std::string_view level, const std::string& line) {
  Sink& sink = TheSink();
  const auto parsed = LevelOf(level);
  bool now = !parsed || *parsed >= LogLevel::kWarn;
  bool wake = false, full = false;
  {
    std::lock_guard lock(sink.mu);
    wake = sink.buffered.empty();
    sink.buffered += line;
    full = sink.buffered.size() >= kMaxBuffered;
    if (!now && !sink.flusher_started) {
      sink.flusher_started = true;
      try {
        std::thread(FlusherLoop, std::ref(sink)).detach();
      } catch (const std::system_error&) {
        sink.no_flusher = true;
      }
    }
    now = now || sink.no_flusher;
  }
  if (now || full) return FlushLog();
  if (wake) sink.cv.notify_one();
}

template <class Fields>
void LogWith(std::string_view level, std::string_view message, const Fields& fields) {
  if (!LogEnabled(level)) return;
  char time[model::kIsoMaxChars + 1];
  Emit(level, FormatLogLine(g_format, std::string_view(time, model::FormatIsoTo(Clock::WallNow(), time)), level,
                            message, fields));
}

}  // namespace

void Log(const std::string& level, const std::string& message, const LogFields& fields) { LogWith(level, message, fields); }

void LogLine(std::string_view level, std::string_view message, std::span<const LogField> fields) {
  LogWith(level, message, fields);
}

}  // namespace emsim::runtime
