#include "model/money.hpp"

#include <cctype>
#include <cstdio>

namespace emsim::model {

std::string FormatDecimal(Cents c) {
  const bool neg = c < 0;
  const std::uint64_t a = neg ? static_cast<std::uint64_t>(-(c + 1)) + 1 : static_cast<std::uint64_t>(c);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s%llu.%02llu", neg ? "-" : "", static_cast<unsigned long long>(a / 100),
                static_cast<unsigned long long>(a % 100));
  return buf;
}

std::optional<Cents> ParseDecimal(std::string_view s) {
  bool neg = false;
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) neg = s[i++] == '-';
  Cents whole = 0;
  size_t digits = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++digits) {
    if (whole > 1'000'000'000'000'000LL) return std::nullopt;
    whole = whole * 10 + (s[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  Cents frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t fd = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++fd) {
      if (fd >= 2) return std::nullopt;
      frac = frac * 10 + (s[i] - '0');
    }
    if (fd == 0) return std::nullopt;
    if (fd == 1) frac *= 10;
  }
  if (i != s.size()) return std::nullopt;
  const Cents v = whole * 100 + frac;
  return neg ? -v : v;
}

}  // namespace emsim::model
