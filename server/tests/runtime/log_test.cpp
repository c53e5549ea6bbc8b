// The log line (runtime/log.hpp): written straight into a string, it must give the bytes of the
// plain definition: text is `time level msg k=v...` with strings as they are and other values as
// JSON; json is one object of time, level, msg and the fields, dumped with bad UTF-8 replaced.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/log.hpp"

namespace emsim::runtime {
namespace {

constexpr auto kReplace = LogFields::error_handler_t::replace;

std::string Reference(LogFormat format, const std::string& time, const std::string& level, const std::string& msg,
                      const LogFields& fields) {
  if (format == LogFormat::kJson) {
    LogFields j = LogFields::object();
    j["time"] = time;
    j["level"] = level;
    j["msg"] = msg;
    if (fields.is_object())
      for (const auto& [k, v] : fields.items()) j[k] = v;
    return j.dump(-1, ' ', false, kReplace) + "\n";
  }
  std::string line = time + " " + level + " " + msg;
  if (fields.is_object())
    for (const auto& [k, v] : fields.items())
      line += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, kReplace));
  return line + "\n";
}

TEST(LogLine, IsTheBytesOfTheTextOrTheJsonObjectItStandsFor) {
  const std::string bad_utf8 = "dom\xff\xfe_1";
  const std::vector<LogFields> cases = {
      LogFields::object(),
      LogFields(),  // no fields at all
      {{"requestId", "req_00000001"}, {"method", "POST"}, {"path", "/v2/placement-tests/purchase"},
       {"operationId", nullptr}, {"status", 200}, {"durationMs", 0.52}, {"accountId", "acc_alice"}},
      {{"quote\"and\\slash", "line\nbreak\ttab\x01"}, {"nested", {{"a", 1}, {"b", {true, false, nullptr}}}}},
      {{"id", bad_utf8}, {"in", {{"deep", bad_utf8}}}, {bad_utf8, "key not UTF-8"}},
      {{"msg", "a field named msg"}, {"level", 3}, {"time", "earlier"}, {"after", -1.5e300}},
      {{"unicode", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa7"}, {"big", 18446744073709551615ULL}, {"neg", -42}},
  };
  for (const LogFormat format : {LogFormat::kText, LogFormat::kJson})
    for (const LogFields& fields : cases) {
      const std::string message = format == LogFormat::kJson ? "request \"quoted\"" : "request";
      EXPECT_EQ(FormatLogLine(format, "2026-01-01T09:00:00.000Z", "info", message, fields),
                Reference(format, "2026-01-01T09:00:00.000Z", "info", message, fields))
          << (format == LogFormat::kJson ? "json: " : "text: ") << fields.dump(-1, ' ', false, kReplace);
    }
}

// The request line's fields come as text (runtime::LogField: a string, or JSON text for numbers
// and null): the same bytes as the same values given as a document.
TEST(LogLine, FieldsGivenAsTextGiveTheBytesOfTheSameValuesAsADocument) {
  const std::string bad_utf8 = "dom\xff\xfe_1";
  const std::vector<LogField> fields = {{"requestId", "req_00000001"}, {"method", "POST"},
                                        {"path", "/v2/placement-tests/purchase"}, {"operationId", "null", true},
                                        {"status", "200", true}, {"durationMs", "0.52", true},
                                        {"quote\"and\\slash", "line\nbreak\ttab\x01"}, {"id", bad_utf8},
                                        {"msg", "a field named msg"}, {"level", "3", true}};
  const LogFields same = {{"requestId", "req_00000001"}, {"method", "POST"}, {"path", "/v2/placement-tests/purchase"},
                          {"operationId", nullptr}, {"status", 200}, {"durationMs", 0.52},
                          {"quote\"and\\slash", "line\nbreak\ttab\x01"}, {"id", bad_utf8},
                          {"msg", "a field named msg"}, {"level", 3}};
  for (const LogFormat format : {LogFormat::kText, LogFormat::kJson}) {
    EXPECT_EQ(FormatLogLine(format, "2026-01-01T09:00:00.000Z", "info", "request", fields),
              Reference(format, "2026-01-01T09:00:00.000Z", "info", "request", same));
    EXPECT_EQ(FormatLogLine(format, "2026-01-01T09:00:00.000Z", "info", "request", fields),
              FormatLogLine(format, "2026-01-01T09:00:00.000Z", "info", "request", same));
  }
}

TEST(LogLine, AJsonLineIsOneValidObjectEvenWithBytesThatAreNotUtf8) {
  const std::string line = FormatLogLine(LogFormat::kJson, "2026-01-01T09:00:00.000Z", "warn", "bad \xc3",
                                         {{"file", "/tmp/\xff.db"}, {"\xfe", 1}});
  ASSERT_EQ(line.back(), '\n');
  const auto parsed = LogFields::parse(line.substr(0, line.size() - 1));
  EXPECT_EQ(parsed["level"], "warn");
  EXPECT_EQ(parsed["msg"], "bad \xef\xbf\xbd");
  EXPECT_EQ(parsed["file"], "/tmp/\xef\xbf\xbd.db");
  EXPECT_EQ(parsed["\xef\xbf\xbd"], 1);
}

// info lines are written a few milliseconds later, together; a warn line goes out before Log
// returns, with every line logged before it, in order. So what says what went wrong is on stderr
// at once, and no line overtakes another.
TEST(Log, AWarningIsWrittenAtOnceAfterTheInfoLinesBeforeIt) {
  const std::string level_before = LogEnabled("debug") ? "debug" : LogEnabled("info") ? "info" : "warn";
  SetLogLevel("info");
  FlushLog();
  ::testing::internal::CaptureStderr();
  Log("info", "first", {{"n", 1}});
  Log("info", "second", {{"n", 2}});
  Log("warn", "third", {{"n", 3}});
  const std::string written = ::testing::internal::GetCapturedStderr();  // no flush asked for
  SetLogLevel(level_before);
  const auto first = written.find(" info first n=1\n"), second = written.find(" info second n=2\n"),
             third = written.find(" warn third n=3\n");
  ASSERT_NE(first, std::string::npos) << written;
  ASSERT_NE(second, std::string::npos) << written;
  ASSERT_NE(third, std::string::npos) << written;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
}

TEST(Log, FlushWritesTheInfoLinesThatWait) {
  const std::string level_before = LogEnabled("debug") ? "debug" : LogEnabled("info") ? "info" : "warn";
  SetLogLevel("info");
  FlushLog();
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 1000; ++i) Log("info", "line", {{"i", i}});
  FlushLog();
  const std::string written = ::testing::internal::GetCapturedStderr();
  SetLogLevel(level_before);
  size_t at = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto next = written.find(" info line i=" + std::to_string(i) + "\n", at);
    ASSERT_NE(next, std::string::npos) << "line " << i << " missing or out of order";
    at = next;
  }
}

}  // namespace
}  // namespace emsim::runtime
