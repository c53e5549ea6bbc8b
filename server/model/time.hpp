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
// "90s", "5m", "2h", "1d", "1500ms", or a bare number of seconds.
std::optional<Millis> ParseDuration(std::string_view text);

}  // namespace emsim::model
