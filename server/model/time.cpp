#include "model/time.hpp"

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
  // timestamp's cost (~190 instructions; a mailbox page of 20 records writes 60 of them, issue 7).
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

std::optional<Millis> ParseDuration(std::string_view s) {
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double n;
  auto [p, ec] = std::from_chars(s.data(), s.data() + i, n);
  if (ec != std::errc() || p != s.data() + i) return std::nullopt;
  std::string_view unit = s.substr(i);
  double scale;
  if (unit.empty() || unit == "s") scale = kSecond;
  else if (unit == "ms") scale = 1;
  else if (unit == "m") scale = kMinute;
  else if (unit == "h") scale = kHour;
  else if (unit == "d") scale = kDay;
  else return std::nullopt;
  return static_cast<Millis>(n * scale + 0.5);
}

}  // namespace emsim::model
