#pragma once
#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>

namespace emsim::model {

// The pieces joined in one allocation: `a + b + c` grows the string once per piece, and on the
// purchase path (URLs, addresses, descriptions) each growth was an allocation.
inline std::string Concat(std::initializer_list<std::string_view> parts) {
  size_t size = 0;
  for (const std::string_view p : parts) size += p.size();
  std::string out;
  out.reserve(size);
  for (const std::string_view p : parts) out.append(p);
  return out;
}

// The one case fold of emsim's text comparisons: ASCII letters only, what std::tolower does in the
// C locale (emsim never changes it), without a library call per byte. ToLower, ContainsFolded and
// the search indexes' trigrams (model/text_search.cpp) fold with it, so they cannot disagree.
constexpr char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

inline std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

inline std::string ToUpper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// Equal but for the case of ASCII letters (header names, content types, an auth scheme).
inline bool EqualsFolded(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  return true;
}

// Case-insensitive substring test; `needle_lower` must already be lower case.
inline bool ContainsFolded(std::string_view haystack, std::string_view needle_lower) {
  if (needle_lower.empty()) return true;
  auto it = std::search(haystack.begin(), haystack.end(), needle_lower.begin(), needle_lower.end(),
                        [](char a, char b) { return AsciiLower(a) == b; });
  return it != haystack.end();
}

// A member name as one segment of a JSON pointer (RFC 6901: '~' is "~0", '/' is "~1"), so a field
// path in a report or a mismatch line can be followed back into the document.
inline std::string JsonPointerSegment(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

}  // namespace emsim::model
