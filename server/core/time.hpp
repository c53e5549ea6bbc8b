#pragma once
// Simulated time is Unix milliseconds. The model never reads the wall clock (STYLE.md habit 4):
// every function that needs "now" takes it as a parameter.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emsim::model {

using Millis = std::int64_t;

constexpr Millis kSecond = 1000;
constexpr Millis kMinute = 60 * kSecond;
constexpr Millis kHour = 60 * kMinute;
constexpr Millis kDay = 24 * kHour;

// "2026-01-01T09:00:00.000Z" — the spec's timestamp form (ISO 8601 UTC with milliseconds).
std::string FormatIso(Millis t);
// The same text written at `out` (room for kIsoMaxChars + 1), no allocation; answers its length.
constexpr size_t kIsoMaxChars = 40;
size_t FormatIsoTo(Millis t, char* out);
// Accepts "YYYY-MM-DDTHH:MM:SS[.fff](Z|+hh:mm)" and a plain date "YYYY-MM-DD".
std::optional<Millis> ParseIso(std::string_view text);
// The one duration grammar of emsim (flags, /_sim bodies, scenario files, fixture timings):
//   90 | 1.5            a bare number: seconds
//   90s 1500ms 15m 1.5h 1d 2h30m 1d2h 1h30m15s500ms
//                      parts <number><unit>, units d h m s ms, each at most once and from the
//                      largest to the smallest (2h30m, not 30m2h or 1h1h)
//   PT2H30M PT90S P1D P1DT2H PT1.5H
//                      ISO 8601 durations with days, hours, minutes and seconds (no years,
//                      months or weeks: their length varies); letters in any case
// A fraction is allowed on the last part only (1.5h, PT1.5H; not 1.5h30m) and the result is
// rounded to the millisecond. Refused: empty text, signs, spaces, unknown units, anything after
// the last part, and durations above kMaxDuration. nullopt when refused.
constexpr Millis kMaxDuration = 100 * 365 * kDay;  // 100 years: more than any test needs
constexpr size_t kMaxDurationChars = 64;           // longer text is refused before it is read
std::optional<Millis> ParseDuration(std::string_view text);
// The message for a refused duration: msg::kDurationGrammar and the bad value as given (cut to a
// few dozen characters, bytes outside printable ASCII shown as '?', so it is safe to quote).
std::string DurationProblem(std::string_view text);
// The duration in that grammar, largest units first: "1h2m", "0s" (ParseDuration reads it back),
// and "-5s" for a negative one (a difference shown in a report).
std::string FormatDuration(Millis ms);

}  // namespace emsim::model
