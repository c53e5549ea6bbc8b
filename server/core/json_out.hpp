#pragma once
// Writes JSON text straight into a string, for the hot list endpoints: building an
// nlohmann DOM of every record and dumping it cost ~half of a list request in allocations. The
// output is byte for byte what nlohmann's dump() gives for the same document, provided keys are
// written in nlohmann's order (sorted, byte-wise): tests compare the two for every record shape.
//
// AppendJson/DumpJson do the same for a whole nlohmann document: nlohmann's dump() decodes every
// string byte by byte through its UTF-8 automaton (~33k instructions for a 700-byte answer, ~7k
// here); these check and copy strings 8 bytes at a time and give the same bytes and the same
// exceptions (default dump(): no indent, ensure_ascii=false, strict UTF-8, type_error 316).
// One escaper (json_out.cpp, WriteQuoted) serves JsonOut and DumpJson.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/compact_string.hpp"
#include "core/json.hpp"
#include "core/time.hpp"

namespace emsim::core {

// Appends `s` as a JSON string literal, quotes included, exactly as dump() writes it: \b \t \n \f
// \r \" \\, other control characters as \u00xx (lower-case hex), valid UTF-8 unchanged. Invalid
// UTF-8 throws what dump() throws (nlohmann type_error 316, same message); `out` is then left as
// it was before the call.
void AppendJsonString(std::string& out, std::string_view s);
// Appends `v` as v.dump() would write it (objects in nlohmann's key order).
void AppendJson(std::string& out, const json& v);
// `"k":`, after a comma when `comma`, as JsonOut writes an object key.
void AppendJsonKey(std::string& out, std::string_view k, bool comma);
// The same for a key known to need no escaping, written at `d` (room for k.size() + 4 bytes) in
// one go, no scan; answers the end. AppendJsonKey and JsonOut::Key both write keys with it.
[[gnu::always_inline]] inline char* WritePlainJsonKey(char* d, std::string_view k, bool comma) {
  if (comma) *d++ = ',';
  *d++ = '"';
  std::memcpy(d, k.data(), k.size());
  d += k.size();
  *d++ = '"';
  *d++ = ':';
  return d;
}

// An object key written in the source (a string literal), checked at compile time to need no
// escaping, so JsonOut copies it without scanning it: a purchase answer has ~25 keys, and their
// scan was ~2% of the request's instructions. A key made at run time: JsonOut::KeyText.
class PlainKey {
 public:
  template <size_t N>
  consteval PlainKey(const char (&s)[N]) : text_(s, N - 1) {  // NOLINT: implicit on purpose
    for (const char c : text_) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') throw "this key needs escaping: use JsonOut::KeyText";
    }
  }
  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
};
// v.dump(), faster. Same bytes, same exceptions.
std::string DumpJson(const json& v);
// What dump() writes for the double nearest hundredths / 100 (a duration rounded to hundredths of
// a millisecond: "0.03", "12.5", "3.0"), written without the double: exact for |hundredths| below
// 10^15, where a decimal of two places is the shortest text that reads back as that double.
void AppendJsonHundredths(std::string& out, std::int64_t hundredths);

// Writes straight into a buffer it sizes ahead (out_'s size is the room, n_ the bytes written), so
// a key or a value is one capacity check and one copy: growing std::string piece by piece costs
// a bounds check, a zero fill and a call per piece, which was ~4,500 instructions of a
// purchase's answer of 25 keys (callgrind), and more on a list page.
class JsonOut {
 public:
  JsonOut() { out_.resize(1024); }

  JsonOut& BeginObject() { return Open('{'); }
  JsonOut& EndObject() { return Close('}'); }
  JsonOut& BeginArray() { return Open('['); }
  JsonOut& EndArray() { return Close(']'); }

  // Always inlined: at the call site the key's length is a constant, so its copy is a few moves
  // instead of a call to memcpy (a mailbox page writes ~240 keys: ~45 instructions each out of
  // line).
  [[gnu::always_inline]] JsonOut& Key(PlainKey k) {
    char* d = WritePlainJsonKey(Room(k.text().size() + 4), k.text(), need_comma_);
    n_ = static_cast<size_t>(d - out_.data());
    after_key_ = true;
    return *this;
  }
  // A key known only at run time, escaped as it needs.
  JsonOut& KeyText(std::string_view k) {
    Flush();
    AppendJsonKey(out_, k, need_comma_);
    n_ = out_.size();
    after_key_ = true;
    return *this;
  }
  JsonOut& String(std::string_view s) {
    Sep();
    Quoted(s);
    return Done();
  }
  JsonOut& Int(std::int64_t v) {
    Sep();
    char* d = Room(24);
    n_ = static_cast<size_t>(std::to_chars(d, d + 24, v).ptr - out_.data());
    return Done();
  }
  // A timestamp as model::FormatIso writes it, without the temporary string (a list page has
  // dozens); its text never needs escaping.
  JsonOut& Time(model::Millis t) {
    Sep();
    char* d = Room(model::kIsoMaxChars + 3);
    *d++ = '"';
    d += model::FormatIsoTo(t, d);
    *d++ = '"';
    n_ = static_cast<size_t>(d - out_.data());
    return Done();
  }
  JsonOut& Bool(bool b) {
    Sep();
    Put(b ? std::string_view("true") : std::string_view("false"));
    return Done();
  }
  JsonOut& Null() {
    Sep();
    Put("null");
    return Done();
  }
  JsonOut& String(const std::string& s) { return String(std::string_view(s)); }
  JsonOut& String(const char* s) { return String(std::string_view(s)); }
  JsonOut& String(const CompactString& s) {
    CompactString::Buffer buf;
    return String(s.View(buf));
  }
  JsonOut& String(const std::optional<std::string>& s) { return s ? String(std::string_view(*s)) : Null(); }
  // Any nlohmann value (a record built as a document, a nested payload) written in place. If it
  // throws (invalid UTF-8), the text written so far is incomplete: drop the writer.
  JsonOut& Value(const json& v) {
    Sep();
    Flush();
    AppendJson(out_, v);
    n_ = out_.size();
    return Done();
  }
  JsonOut& Strings(const std::optional<std::vector<std::string>>& list) {
    if (!list) return Null();
    BeginArray();
    for (const auto& s : *list) String(s);
    return EndArray();
  }

  // The text so far (writing may go on after).
  std::string& str() {
    Flush();
    return out_;
  }

 private:
  [[gnu::always_inline]] char* Room(size_t k) {
    if (out_.size() - n_ < k) [[unlikely]] Grow(k);
    return out_.data() + n_;
  }
  [[gnu::noinline]] void Grow(size_t k) { out_.resize(std::max(2 * out_.size(), n_ + k)); }
  void Put(char c) {
    *Room(1) = c;
    ++n_;
  }
  void Put(std::string_view s) {
    std::memcpy(Room(s.size()), s.data(), s.size());
    n_ += s.size();
  }
  // out_ cut to what was written, for the calls that append to a std::string.
  void Flush() { out_.resize(n_); }
  JsonOut& Open(char c) {
    Sep();
    Put(c);
    need_comma_ = false;
    return *this;
  }
  JsonOut& Close(char c) {
    Put(c);
    return Done();
  }
  void Sep() {
    if (after_key_) after_key_ = false;
    else if (need_comma_) Put(',');
  }
  JsonOut& Done() {
    need_comma_ = true;
    return *this;
  }
  void Quoted(std::string_view s);  // json_out.cpp

  std::string out_;
  size_t n_ = 0;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace emsim::core
