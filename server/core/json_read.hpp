#pragma once
// Reads JSON text token by token, without building a document: for records emsim wrote itself
// (a data dir's rows, one record's JSON each), where nlohmann's document was most of a restart
// (every value a node, every string copied twice) and model::ReadRecordJson can fill the record
// directly.
//
// Every call answers false at anything it does not read exactly as nlohmann's strict parser and
// ParseJsonLimited would (invalid UTF-8, a control character in a string, a lone surrogate, a
// number with a fraction or exponent or beyond int64, a key with an escape): the caller then
// reads that text the slow way, through the document, which decides what it means or says what
// is wrong. So false is "not read here", never an error by itself, and nothing read here can mean
// something else there. It never recurses: skipping a value counts its depth.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace emsim::core {

// The length of the run of bytes from `p` (up to `end`) that a JSON string holds as they are and
// that are UTF-8 by themselves: printable ASCII other than '"' and '\\'.
size_t PlainAsciiRun(const char* p, const char* end);

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // The next token is `c` ({ } [ ] , :), consumed (whitespace before it skipped).
  bool Consume(char c) {
    SkipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  // The next token is `c`, not consumed.
  bool Next(char c) {
    SkipSpace();
    return p_ != end_ && *p_ == c;
  }
  // `null`, consumed when it is next.
  bool Null();
  bool Bool(bool& out);
  // An integer literal (no fraction, no exponent) within [min, max].
  bool Integer(std::int64_t& out, std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX);
  // A string, unescaped; valid UTF-8 only.
  bool String(std::string& out);
  // A string without escapes (valid UTF-8 only), answered as a view into the text; one with an
  // escape is not consumed (String reads it). Most strings of records are plain: ids, names,
  // statuses, whose copy was a restart's largest cost after the UUIDs' parse.
  bool PlainString(std::string_view& out);
  // An object key and its colon. Keys of records are plain ASCII: one with an escape is not read
  // here. The view points into the text.
  bool Key(std::string_view& out);
  // Skips one value of any kind, nesting at most `max_depth` containers, and answers its text (for
  // a member the caller hands to the document parser). Checks only its brackets and strings.
  bool Skip(std::string_view& out, int max_depth);
  // A flat object exactly as nlohmann's dump() writes it (no space; plain ASCII keys in increasing
  // byte order; strings without escapes; integers in their shortest form within int64; true,
  // false, null), answered as its text; anything else (nesting included) is not consumed.
  bool CompactObject(std::string_view& out);
  // Only whitespace is left.
  bool AtEnd() {
    SkipSpace();
    return p_ == end_;
  }

 private:
  void SkipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool Literal(std::string_view word);
  bool Hex4(std::uint32_t& out);

  const char* p_;
  const char* end_;
};

}  // namespace emsim::core
