#include "core/time.hpp"

#include "core/messages.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace emsim::model {
namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void CivilFromDays(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

bool ReadInt(std::string_view s, size_t pos, size_t len, int& out) {
  if (pos + len > s.size()) return false;
  for (size_t i = pos; i < pos + len; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  std::from_chars(s.data() + pos, s.data() + pos + len, out);
  return true;
}

unsigned DaysInMonth(int y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

size_t FormatIsoTo(Millis t, char* out) {
  std::int64_t days = t >= 0 ? t / kDay : (t - kDay + 1) / kDay;
  Millis rem = t - days * kDay;
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  auto put2 = [out](size_t at, std::int64_t v) { std::memcpy(out + at, kPairs + 2 * v, 2); };
  // The date's text comes from a small per-thread cache by day: a list page writes three
  // timestamps per record, mostly of a few days, and the calendar arithmetic was ~60% of a
  // timestamp's cost (~190 instructions; a mailbox page of 20 records writes 60 of them).
  struct CachedDate {
    std::int64_t days = INT64_MIN;
    char text[10];
  };
  static thread_local CachedDate cache[16];
  CachedDate& slot = cache[static_cast<std::uint64_t>(days) % 16];
  if (slot.days != days) {
    std::int64_t y;
    unsigned m, d;
    CivilFromDays(days, y, m, d);
    if (y < 0 || y > 9999) {
      const int n = std::snprintf(out, kIsoMaxChars + 1, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                                  static_cast<long long>(y), m, d, static_cast<long long>(rem / kHour),
                                  static_cast<long long>(rem / kMinute % 60), static_cast<long long>(rem / kSecond % 60),
                                  static_cast<long long>(rem % kSecond));
      return static_cast<size_t>(std::clamp(n, 0, static_cast<int>(kIsoMaxChars)));
    }
    // Two digits at a time from a table, no printf (~10x the cost) and no allocation.
    put2(0, y / 100);
    put2(2, y % 100);
    out[4] = '-';
    put2(5, m);
    out[7] = '-';
    put2(8, d);
    std::memcpy(slot.text, out, 10);
    slot.days = days;
  } else {
    std::memcpy(out, slot.text, 10);
  }
  out[10] = 'T';
  put2(11, rem / kHour);
  out[13] = ':';
  put2(14, rem / kMinute % 60);
  out[16] = ':';
  put2(17, rem / kSecond % 60);
  out[19] = '.';
  const std::int64_t ms = rem % kSecond;
  out[20] = static_cast<char>('0' + ms / 100);
  put2(21, ms % 100);
  out[23] = 'Z';
  return 24;
}

std::string FormatIso(Millis t) {
  char buf[kIsoMaxChars + 1];
  return std::string(buf, FormatIsoTo(t, buf));
}

std::optional<Millis> ParseIso(std::string_view s) {
  int y, mo, d, h = 0, mi = 0, se = 0, ms = 0;
  if (!ReadInt(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !ReadInt(s, 5, 2, mo) || s[7] != '-' ||
      !ReadInt(s, 8, 2, d))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || static_cast<unsigned>(d) > DaysInMonth(y, mo)) return std::nullopt;
  size_t pos = 10;
  Millis offset = 0;
  if (pos < s.size()) {
    if ((s[pos] != 'T' && s[pos] != 't') || !ReadInt(s, pos + 1, 2, h) || s.size() < pos + 9 ||
        s[pos + 3] != ':' || !ReadInt(s, pos + 4, 2, mi) || s[pos + 6] != ':' || !ReadInt(s, pos + 7, 2, se))
      return std::nullopt;
    if (h > 23 || mi > 59 || se > 59) return std::nullopt;
    pos += 9;
    if (pos < s.size() && s[pos] == '.') {
      size_t start = ++pos;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
      if (pos == start) return std::nullopt;
      std::string frac(s.substr(start, std::min<size_t>(3, pos - start)));
      while (frac.size() < 3) frac += '0';
      ms = std::stoi(frac);
    }
    if (pos >= s.size()) return std::nullopt;  // a time needs a zone: the spec's times are UTC
    if (s[pos] == 'Z' || s[pos] == 'z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      int oh, om;
      if (!ReadInt(s, pos + 1, 2, oh) || s.size() < pos + 6 || s[pos + 3] != ':' || !ReadInt(s, pos + 4, 2, om))
        return std::nullopt;
      offset = (s[pos] == '+' ? 1 : -1) * (oh * kHour + om * kMinute);
      pos += 6;
    } else {
      return std::nullopt;
    }
    if (pos != s.size()) return std::nullopt;
  }
  return DaysFromCivil(y, mo, d) * kDay + h * kHour + mi * kMinute + se * kSecond + ms - offset;
}

// ---- durations ---------------------------------------------------------------------------------
// Hand-written (no regex): every character is looked at once, numbers are bounded while they are
// read, and no product can overflow: a part is multiplied only after its count is checked
// against kMaxDuration / unit.

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

struct DurationNumber {
  std::uint64_t whole = 0;
  std::uint64_t fraction = 0;  // the first 9 decimals, as an integer over `scale`
  std::uint64_t scale = 1;
  bool hasFraction = false;
};

// digits[.digits] at s[i]; false when there is none or the whole part alone is beyond any limit.
bool ReadDurationNumber(std::string_view s, size_t& i, DurationNumber& n) {
  const size_t start = i;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    n.whole = n.whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (n.whole > static_cast<std::uint64_t>(kMaxDuration)) return false;  // too long even in ms
  }
  if (i == start) return false;
  if (i < s.size() && s[i] == '.') {
    const size_t first = ++i;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (i - first < 9) {  // beyond a nanosecond of a day nothing reaches the millisecond
        n.fraction = n.fraction * 10 + static_cast<std::uint64_t>(s[i] - '0');
        n.scale *= 10;
      }
    }
    if (i == first) return false;  // "1." or "1.h"
    n.hasFraction = true;
  }
  return true;
}

// Adds n units to total; false beyond kMaxDuration. fraction * unit < 1e9 * kDay < 2^63.
bool AddPart(const DurationNumber& n, Millis unit, std::uint64_t& total) {
  const auto u = static_cast<std::uint64_t>(unit);
  if (n.whole > static_cast<std::uint64_t>(kMaxDuration) / u) return false;
  total += n.whole * u + (n.fraction * u + n.scale / 2) / n.scale;  // rounded to the millisecond
  return total <= static_cast<std::uint64_t>(kMaxDuration);
}

// Units by rank: each part's unit must rank below the previous part's (largest first, no repeats).
constexpr Millis kUnitByRank[] = {kDay, kHour, kMinute, kSecond, 1};

// 90 | 1.5 | 2h30m | 1d2h | 1500ms ...
std::optional<Millis> ParseCompactDuration(std::string_view s) {
  std::uint64_t total = 0;
  int last_rank = -1;
  bool last_had_fraction = false;
  size_t i = 0;
  while (i < s.size()) {
    if (last_had_fraction) return std::nullopt;  // a fraction only on the last part
    DurationNumber n;
    if (!ReadDurationNumber(s, i, n)) return std::nullopt;
    int rank;
    if (i == s.size()) {
      if (last_rank != -1) return std::nullopt;  // "2h30": a unitless number only stands alone
      rank = 3;                                   // a bare number is seconds
    } else if (s[i] == 'm' && i + 1 < s.size() && s[i + 1] == 's') {
      rank = 4;
      i += 2;
    } else {
      switch (s[i]) {
        case 'd': rank = 0; break;
        case 'h': rank = 1; break;
        case 'm': rank = 2; break;
        case 's': rank = 3; break;
        default: return std::nullopt;
      }
      ++i;
    }
    if (rank <= last_rank) return std::nullopt;
    last_rank = rank;
    last_had_fraction = n.hasFraction;
    if (!AddPart(n, kUnitByRank[rank], total)) return std::nullopt;
  }
  return static_cast<Millis>(total);
}

// ISO 8601: P[nD][T[nH][nM][nS]], at least one part; no T without a time part after it.
std::optional<Millis> ParseIsoDuration(std::string_view s) {
  std::uint64_t total = 0;
  int last_rank = -1, parts = 0;
  bool in_time = false, last_had_fraction = false;
  size_t i = 1;  // after the P
  while (i < s.size()) {
    if (!in_time && Upper(s[i]) == 'T') {
      in_time = true;
      if (++i == s.size()) return std::nullopt;
      continue;
    }
    if (last_had_fraction) return std::nullopt;
    DurationNumber n;
    if (!ReadDurationNumber(s, i, n) || i == s.size()) return std::nullopt;
    const char unit = Upper(s[i++]);
    int rank;
    if (!in_time && unit == 'D') rank = 0;
    else if (in_time && unit == 'H') rank = 1;
    else if (in_time && unit == 'M') rank = 2;
    else if (in_time && unit == 'S') rank = 3;
    else return std::nullopt;  // Y, M or W before T (their length varies), anything else
    if (rank <= last_rank) return std::nullopt;
    last_rank = rank;
    last_had_fraction = n.hasFraction;
    ++parts;
    if (!AddPart(n, kUnitByRank[rank], total)) return std::nullopt;
  }
  if (parts == 0) return std::nullopt;
  return static_cast<Millis>(total);
}

}  // namespace

std::optional<Millis> ParseDuration(std::string_view s) {
  if (s.empty() || s.size() > kMaxDurationChars) return std::nullopt;
  if (s[0] == 'P' || s[0] == 'p') return ParseIsoDuration(s);
  return ParseCompactDuration(s);
}

std::string DurationProblem(std::string_view text) {
  constexpr size_t kShown = 40;
  std::string shown;
  for (size_t i = 0; i < text.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    shown += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (text.size() > kShown) shown += "...";
  return "'" + shown + "' is not " + msg::kDurationGrammar;
}

std::string FormatDuration(Millis ms) {
  const bool negative = ms < 0;
  if (negative) ms = -ms;
  std::string out;
  const std::pair<Millis, const char*> units[] = {
      {kDay, "d"}, {kHour, "h"}, {kMinute, "m"}, {kSecond, "s"}, {1, "ms"}};
  for (const auto& [size, name] : units) {
    if (ms >= size) {
      out += std::to_string(ms / size) + name;
      ms %= size;
    }
  }
  return (negative ? "-" : "") + (out.empty() ? std::string("0s") : out);
}

}  // namespace emsim::model
