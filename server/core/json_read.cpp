#include "core/json_read.hpp"

#include <bit>
#include <cstring>

#include "core/json_limits.hpp"

namespace emsim::core {

size_t PlainAsciiRun(const char* p, const char* end) {
  const char* const start = p;
  if constexpr (std::endian::native == std::endian::little) {
    // Eight bytes at a time: a byte is flagged when it is below 0x20, a quote or a backslash (the
    // zero-byte test on the word xor'ed with it) or at least 0x80 (its high bit). A test's lowest
    // flagged byte is always a true one (a borrow only spreads upwards), so the first flagged byte
    // of the word is the first that ends the run.
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    for (; end - p >= 8; p += 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      const std::uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
      const std::uint64_t flagged =
          (((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | w) & kHigh;
      if (flagged) return static_cast<size_t>(p - start) + static_cast<size_t>(std::countr_zero(flagged) / 8);
    }
  }
  for (; p != end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
  }
  return static_cast<size_t>(p - start);
}

namespace {
// The end of the run from `p` of bytes a JSON string holds as they are (it stops at a quote, a
// backslash, a control byte or `end`), or nullptr when the run is not UTF-8. Its ASCII start
// needs no UTF-8 check: only the bytes from the first one that is not ASCII are checked.
const char* PlainRunEnd(const char* p, const char* end) {
  p += PlainAsciiRun(p, end);
  const char* const ascii_end = p;
  while (p != end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
  return model::IsValidUtf8(std::string_view(ascii_end, static_cast<size_t>(p - ascii_end))) ? p : nullptr;
}
}  // namespace

bool JsonCursor::Literal(std::string_view word) {
  SkipSpace();
  if (static_cast<size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) return false;
  p_ += word.size();
  return true;
}

bool JsonCursor::Null() { return Literal("null"); }

bool JsonCursor::Bool(bool& out) {
  if (Literal("true")) {
    out = true;
    return true;
  }
  if (Literal("false")) {
    out = false;
    return true;
  }
  return false;
}

bool JsonCursor::Integer(std::int64_t& out, std::int64_t min, std::int64_t max) {
  SkipSpace();
  const char* p = p_;
  const bool negative = p != end_ && *p == '-';
  if (negative) ++p;
  if (p == end_ || *p < '0' || *p > '9') return false;
  // JSON allows no leading zeros: "0" alone, or a digit 1-9 first.
  if (*p == '0' && p + 1 != end_ && p[1] >= '0' && p[1] <= '9') return false;
  // Accumulated as a negative number, which reaches INT64_MIN.
  std::int64_t v = 0;
  for (; p != end_ && *p >= '0' && *p <= '9'; ++p) {
    const int d = *p - '0';
    if (v < (INT64_MIN + d) / 10) return false;
    v = v * 10 - d;
  }
  if (p != end_ && (*p == '.' || *p == 'e' || *p == 'E')) return false;  // a float: the document decides
  if (!negative) {
    if (v == INT64_MIN) return false;
    v = -v;
  }
  if (v < min || v > max) return false;
  out = v;
  p_ = p;
  return true;
}

bool JsonCursor::Hex4(std::uint32_t& out) {
  if (end_ - p_ < 4) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = *p_++;
    out <<= 4;
    if (c >= '0' && c <= '9') out |= static_cast<std::uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f') out |= static_cast<std::uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') out |= static_cast<std::uint32_t>(c - 'A' + 10);
    else return false;
  }
  return true;
}

bool JsonCursor::String(std::string& out) {
  if (!Consume('"')) return false;
  out.clear();
  for (;;) {
    // A run of plain bytes, copied at once after its UTF-8 is checked.
    const char* run_end = PlainRunEnd(p_, end_);
    if (!run_end) return false;
    out.append(p_, static_cast<size_t>(run_end - p_));
    p_ = run_end;
    if (p_ == end_ || static_cast<unsigned char>(*p_) < 0x20) return false;
    if (*p_++ == '"') return true;
    if (p_ == end_) return false;
    switch (*p_++) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::uint32_t cp;
        if (!Hex4(cp)) return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate first
        if (cp >= 0xD800 && cp <= 0xDBFF) {                // a pair, or nothing
          std::uint32_t low;
          if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
          p_ += 2;
          if (!Hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xF0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        break;
      }
      default:
        return false;
    }
  }
}

bool JsonCursor::PlainString(std::string_view& out) {
  const char* const before = p_;
  if (!Consume('"')) return false;
  const char* p = PlainRunEnd(p_, end_);
  if (!p || p == end_ || *p != '"') {
    p_ = before;
    return false;
  }
  out = std::string_view(p_, static_cast<size_t>(p - p_));
  p_ = p + 1;
  return true;
}

bool JsonCursor::Key(std::string_view& out) {
  if (!Consume('"')) return false;
  const char* start = p_;
  p_ += PlainAsciiRun(p_, end_);  // a key is printable ASCII without escapes
  if (p_ == end_ || *p_ != '"') return false;
  out = std::string_view(start, static_cast<size_t>(p_ - start));
  ++p_;
  return Consume(':');
}

namespace {
// The bytes of numbers, true, false and null.
bool ScalarByte(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || c == 'E';
}
}  // namespace

bool JsonCursor::Skip(std::string_view& out, int max_depth) {
  SkipSpace();
  const char* start = p_;
  int depth = 0;
  do {
    if (p_ == end_) return false;
    const char c = *p_;
    if (c == '"') {
      for (++p_; p_ != end_ && *p_ != '"'; ++p_)
        if (*p_ == '\\' && ++p_ == end_) return false;
      if (p_ == end_) return false;
      ++p_;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return false;
      ++p_;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) return false;
      ++p_;
    } else if (depth > 0) {
      // Commas, colons, whitespace and scalars inside: the document parser checks them. Only their
      // bytes, though: nlohmann's lexer takes a NUL byte for the end of its input, so the value's
      // text alone would parse where the whole text does not.
      if (!ScalarByte(c) && c != ',' && c != ':' && c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
      ++p_;
    } else {
      // A scalar at the top: its bytes, up to the next delimiter.
      while (p_ != end_ && ScalarByte(*p_)) ++p_;
      if (p_ == start) return false;
    }
  } while (depth > 0);
  out = std::string_view(start, static_cast<size_t>(p_ - start));
  return true;
}

bool JsonCursor::CompactObject(std::string_view& out) {
  const char* start = p_;
  const char* p = p_;
  auto plain_string = [&](bool key) {  // at '"': to past the closing quote, or false
    ++p;
    // A key is ASCII (JsonCursor::Key); a value any UTF-8 without escapes.
    const char* run_end = key ? p + PlainAsciiRun(p, end_) : PlainRunEnd(p, end_);
    if (!run_end || run_end == end_ || *run_end != '"') return false;
    p = run_end + 1;
    return true;
  };
  if (p == end_ || *p++ != '{') return false;
  std::string_view last_key;
  bool first = true;
  while (p != end_ && *p != '}') {
    if (!first && *p++ != ',') return false;
    if (p == end_ || *p != '"') return false;
    const char* key_start = p + 1;
    if (!plain_string(true)) return false;
    const std::string_view key(key_start, static_cast<size_t>(p - 1 - key_start));
    if (!first && key <= last_key) return false;  // nlohmann's object keeps its keys sorted, once each
    first = false;
    last_key = key;
    if (p == end_ || *p++ != ':' || p == end_) return false;
    if (*p == '"') {
      if (!plain_string(false)) return false;
    } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
      const char* num = p;
      JsonCursor n(std::string_view(p, static_cast<size_t>(end_ - p)));
      std::int64_t v;
      if (!n.Integer(v) || (v == 0 && *num == '-')) return false;  // "-0" dumps as 0
      p = n.p_;
    } else {
      bool matched = false;
      for (std::string_view word : {std::string_view("true"), std::string_view("false"), std::string_view("null")})
        if (static_cast<size_t>(end_ - p) >= word.size() && std::memcmp(p, word.data(), word.size()) == 0) {
          p += word.size();
          matched = true;
          break;
        }
      if (!matched) return false;
    }
  }
  if (p == end_) return false;
  ++p;
  out = std::string_view(start, static_cast<size_t>(p - start));
  p_ = p;
  return true;
}

}  // namespace emsim::core
