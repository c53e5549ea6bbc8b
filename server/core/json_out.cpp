#include "core/json_out.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace emsim::core {
namespace {

// The word tricks below read 8 string bytes as one integer, first byte lowest.
static_assert(std::endian::native == std::endian::little, "json_out.cpp assumes a little-endian target");

// One flag (the byte's high bit) per byte of `w` that a JSON string cannot copy as it is: control
// characters, '"', '\\' (escaped) and bytes >= 0x80 (UTF-8, checked). The usual "has a byte less
// than n / equal to n" tricks: a borrow only ever flags bytes ABOVE a byte that truly needs work,
// so the lowest flag is always exact, and the word has a flag iff some byte needs work.
inline std::uint64_t NeedsWork(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t below_space = (w - kOnes * 0x20) & ~w;
  const std::uint64_t q = w ^ (kOnes * '"');
  const std::uint64_t quote = (q - kOnes) & ~q;
  const std::uint64_t b = w ^ (kOnes * '\\');
  const std::uint64_t backslash = (b - kOnes) & ~b;
  return (below_space | quote | backslash | w) & kHigh;
}

// The last 1..7 bytes of a string as one word, the missing bytes padded with spaces (plain bytes):
// two overlapping fixed-size loads instead of a variable-length memcpy call.
inline std::uint64_t LoadTail(const unsigned char* p, size_t n) {
  constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;
  std::uint64_t w;
  if (n >= 4) {
    std::uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    w = lo | static_cast<std::uint64_t>(hi) << ((n - 4) * 8);
  } else if (n >= 2) {
    std::uint16_t lo, hi;
    std::memcpy(&lo, p, 2);
    std::memcpy(&hi, p + n - 2, 2);
    w = lo | static_cast<std::uint64_t>(hi) << ((n - 2) * 8);
  } else {
    w = p[0];
  }
  return w | kSpaces << (n * 8);
}

// Length of the well-formed UTF-8 sequence (RFC 3629, the set nlohmann's decoder accepts: no
// overlong forms, no surrogates, nothing above U+10FFFF) that starts at p[0] >= 0x80, or 0.
inline size_t Utf8SequenceLength(const unsigned char* p, const unsigned char* end) {
  const unsigned c = p[0];
  const auto avail = static_cast<size_t>(end - p);
  auto in = [&](size_t i, unsigned lo, unsigned hi) { return i < avail && p[i] >= lo && p[i] <= hi; };
  if (c < 0xC2) return 0;  // a continuation byte, or the overlong leads C0/C1
  if (c < 0xE0) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c < 0xF0) {
    // E0 would be overlong below A0; ED at A0 and above encodes a surrogate.
    const bool ok = in(1, c == 0xE0 ? 0xA0 : 0x80, c == 0xED ? 0x9F : 0xBF) && in(2, 0x80, 0xBF);
    return ok ? 3 : 0;
  }
  if (c < 0xF5) {
    // F0 would be overlong below 90; F4 at 90 and above is beyond U+10FFFF.
    const bool ok = in(1, c == 0xF0 ? 0x90 : 0x80, c == 0xF4 ? 0x8F : 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF);
    return ok ? 4 : 0;
  }
  return 0;
}

char* WriteEscape(char* d, unsigned char c) {
  d[0] = '\\';
  switch (c) {
    case '\b': d[1] = 'b'; return d + 2;
    case '\t': d[1] = 't'; return d + 2;
    case '\n': d[1] = 'n'; return d + 2;
    case '\f': d[1] = 'f'; return d + 2;
    case '\r': d[1] = 'r'; return d + 2;
    case '"': d[1] = '"'; return d + 2;
    case '\\': d[1] = '\\'; return d + 2;
    default: {
      // Other control characters: nlohmann prints "\\u%04x", lower-case hex.
      static constexpr char kHex[] = "0123456789abcdef";
      d[1] = 'u';
      d[2] = '0';
      d[3] = '0';
      d[4] = kHex[c >> 4];
      d[5] = kHex[c & 0xF];
      return d + 6;
    }
  }
}

// Room a string needs at the write position: 6 output bytes per input byte at worst (\u00xx),
// 8 for the whole-word store past the end, and 8 for the quotes and separators around it.
constexpr size_t RoomFor(size_t n) { return 6 * n + 16; }

// THE escaper: writes `s` as a JSON string literal, quotes included, at `d`, which has
// RoomFor(s.size()) bytes. Copies a word at a time: stores each 8 input bytes as they are and
// advances past the plain ones; a byte that needs work is escaped, or (UTF-8) checked and kept.
// Returns the end of what it wrote, or nullptr if `s` is not valid UTF-8.
char* WriteQuoted(char* d, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const end = p + s.size();
  *d++ = '"';
  // 8 to 16 bytes (most ids, names and statuses): the first and the last 8 bytes, overlapping,
  // checked and stored in one go, no loop and no tail assembly (~25 of a list page's ~85
  // instructions per string). Anything that needs work takes the loop below.
  if (s.size() >= 8 && s.size() <= 16) {
    std::uint64_t head, tail;
    std::memcpy(&head, p, 8);
    std::memcpy(&tail, end - 8, 8);
    if ((NeedsWork(head) | NeedsWork(tail)) == 0) {
      std::memcpy(d, &head, 8);
      std::memcpy(d + s.size() - 8, &tail, 8);
      d += s.size();
      *d++ = '"';
      return d;
    }
  }
  while (p < end) {
    const size_t take = std::min<size_t>(static_cast<size_t>(end - p), 8);
    std::uint64_t w;
    if (take == 8) std::memcpy(&w, p, 8);
    else w = LoadTail(p, take);
    std::memcpy(d, &w, 8);
    const std::uint64_t flags = NeedsWork(w);
    if (flags == 0) {
      p += take;
      d += take;
      continue;
    }
    const auto plain = static_cast<size_t>(std::countr_zero(flags) / 8);  // bytes before the first flag
    p += plain;
    d += plain;
    if (*p < 0x80) {
      d = WriteEscape(d, *p++);
      continue;
    }
    const size_t n = Utf8SequenceLength(p, end);
    if (n == 0) return nullptr;
    for (const auto* const seq_end = p + n; p < seq_end;) *d++ = static_cast<char>(*p++);  // valid: kept as it is
  }
  *d++ = '"';
  return d;
}

// A string WriteQuoted refused (invalid UTF-8) goes to nlohmann's own serializer, which throws its
// exception with its message (index, byte). Were the two ever to disagree, the text would still
// be dump()'s.
std::string QuotedByNlohmann(std::string_view s) { return json(std::string(s)).dump(); }

// Where AppendJson writes: a raw pointer into `out`. `out` is lengthened ahead of the writes (by
// what this Sink wrote so far, at least 256 bytes: the zero-filling resize costs in proportion to the
// output, never to what `out` held before, e.g. a long list that JsonOut::Value appends to) and
// cut to what was written by Finish(); if writing throws, it is cut back to its old size.
class Sink {
 public:
  Sink(std::string& out, size_t first_room) : out_(out), before_(out.size()) {
    out_.resize(before_ + first_room);
    p_ = out_.data() + before_;
    end_ = out_.data() + out_.size();
  }
  ~Sink() {
    if (!finished_) out_.resize(before_);
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  char* Room(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) Grow(n);
    return p_;
  }
  void Advance(char* to) { p_ = to; }
  void Put(char c) { *Room(1) = c, ++p_; }
  void Put(std::string_view s) {
    std::memcpy(Room(s.size()), s.data(), s.size());
    p_ += s.size();
  }
  void Quoted(std::string_view s) {
    char* e = WriteQuoted(Room(RoomFor(s.size())), s);
    if (e == nullptr) return Put(QuotedByNlohmann(s));  // throws; ~Sink then restores `out`
    p_ = e;
  }
  void Finish() {
    out_.resize(static_cast<size_t>(p_ - out_.data()));
    finished_ = true;
  }

 private:
  void Grow(size_t n) {
    const auto used = static_cast<size_t>(p_ - out_.data());
    out_.resize(used + std::max(n, used - before_ + 256));
    p_ = out_.data() + used;
    end_ = out_.data() + out_.size();
  }

  std::string& out_;
  size_t before_;
  char* p_;
  char* end_;
  bool finished_ = false;
};

void Write(Sink& out, const json& v) {
  switch (v.type()) {
    case json::value_t::object: {
      out.Put('{');
      bool first = true;
      for (const auto& [key, value] : v.get_ref<const json::object_t&>()) {  // std::map: nlohmann's order
        if (!first) out.Put(',');
        first = false;
        out.Quoted(key);
        out.Put(':');
        Write(out, value);
      }
      out.Put('}');
      return;
    }
    case json::value_t::array: {
      out.Put('[');
      bool first = true;
      for (const auto& item : v.get_ref<const json::array_t&>()) {
        if (!first) out.Put(',');
        first = false;
        Write(out, item);
      }
      out.Put(']');
      return;
    }
    case json::value_t::string: out.Quoted(v.get_ref<const json::string_t&>()); return;
    case json::value_t::boolean: out.Put(v.get<bool>() ? "true" : "false"); return;
    case json::value_t::number_integer: {
      char* d = out.Room(24);
      out.Advance(std::to_chars(d, d + 24, v.get<std::int64_t>()).ptr);
      return;
    }
    case json::value_t::number_unsigned: {
      char* d = out.Room(24);
      out.Advance(std::to_chars(d, d + 24, v.get<std::uint64_t>()).ptr);
      return;
    }
    case json::value_t::number_float: {
      // The very function dump() uses (Grisu2, shortest round-trip, "1.0" for integral values);
      // NaN and infinities are "null", as in dump().
      const double x = v.get<double>();
      if (!std::isfinite(x)) return out.Put("null");
      char* d = out.Room(64);
      out.Advance(nlohmann::detail::to_chars(d, d + 64, x));
      return;
    }
    case json::value_t::null: out.Put("null"); return;
    case json::value_t::binary:     // never in an answer; rare enough for nlohmann to write it
    case json::value_t::discarded:  // "<discarded>"
    default: out.Put(v.dump()); return;
  }
}

}  // namespace

namespace {

// True when no byte of `s` needs escaping or checking (ids, names, timestamps, keys: nearly
// every string emsim writes).
bool IsPlain(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (NeedsWork(w)) return false;
  }
  return i == n || NeedsWork(LoadTail(p + i, n - i)) == 0;
}

}  // namespace

void AppendJsonKey(std::string& out, std::string_view k, bool comma) {
  if (!IsPlain(k)) {
    if (comma) out += ',';
    AppendJsonString(out, k);
    out += ':';
    return;
  }
  // `,"key":` in one write: a list page writes hundreds of keys.
  const size_t at = out.size();
  out.resize(at + k.size() + 3 + (comma ? 1 : 0));
  WritePlainJsonKey(out.data() + at, k, comma);
}

void AppendJsonString(std::string& out, std::string_view s) {
  // A plain string is copied as it is: one scan and one append, instead of making the worst
  // case's room (6 bytes per byte, zero-filled by resize) and cutting it back (this was
  // a third of a mailbox list page).
  if (IsPlain(s)) {
    const size_t at = out.size();
    out.resize(at + s.size() + 2);
    char* d = out.data() + at;
    d[0] = '"';
    std::memcpy(d + 1, s.data(), s.size());
    d[s.size() + 1] = '"';
    return;
  }
  const size_t before = out.size();
  out.resize(before + RoomFor(s.size()));
  char* e = WriteQuoted(out.data() + before, s);
  if (e == nullptr) {
    out.resize(before);
    out += QuotedByNlohmann(s);  // throws
    return;
  }
  out.resize(static_cast<size_t>(e - out.data()));
}

void JsonOut::Quoted(std::string_view s) {
  char* e = WriteQuoted(Room(RoomFor(s.size())), s);
  if (e == nullptr) {  // invalid UTF-8: nlohmann's serializer throws its own error
    Flush();
    out_ += QuotedByNlohmann(s);
    n_ = out_.size();
    return;
  }
  n_ = static_cast<size_t>(e - out_.data());
}

void AppendJsonHundredths(std::string& out, std::int64_t hundredths) {
  constexpr std::int64_t kExact = 1'000'000'000'000'000;
  if (hundredths <= -kExact || hundredths >= kExact) {
    out += json(static_cast<double>(hundredths) / 100).dump();
    return;
  }
  if (hundredths < 0) out += '-';
  const std::uint64_t h = static_cast<std::uint64_t>(hundredths < 0 ? -hundredths : hundredths);
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, h / 100).ptr);
  const auto cents = static_cast<unsigned>(h % 100);
  out += '.';
  out += static_cast<char>('0' + cents / 10);
  if (cents % 10) out += static_cast<char>('0' + cents % 10);  // dump() writes "0.5", "1.0", never "1.50"
}

void AppendJson(std::string& out, const json& v) {
  Sink sink(out, 256);
  Write(sink, v);
  sink.Finish();
}

std::string DumpJson(const json& v) {
  std::string out;
  Sink sink(out, 1024);  // one allocation for a typical answer (most are a few hundred bytes)
  Write(sink, v);
  sink.Finish();
  return out;
}

}  // namespace emsim::core
