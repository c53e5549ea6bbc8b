#include "core/json_limits.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <cmath>
#include <vector>

#include "core/json_read.hpp"

namespace emsim::model {

namespace {

// Length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t SequenceAt(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) { n = 3; lo = 0xA0; }
  else if (c >= 0xE1 && c <= 0xEC) n = 3;
  else if (c == 0xED) { n = 3; hi = 0x9F; }
  else if (c >= 0xEE && c <= 0xEF) n = 3;
  else if (c == 0xF0) { n = 4; lo = 0x90; }
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) { n = 4; hi = 0x8F; }
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

// Builds the document from nlohmann's SAX events, refusing at the first event that passes a
// limit. Containers are kept on an explicit stack (no recursion on the client's depth); a
// pointer to an open container stays valid because nothing is added to its parent while it is open.
class LimitedDom {
 public:
  LimitedDom(json& root, const JsonLimits& limits) : root_(root), limits_(limits) { stack_.reserve(16); }

  bool null() { return Put(json(nullptr)); }
  bool boolean(bool v) { return Put(json(v)); }
  bool number_integer(json::number_integer_t v) { return Put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) {
    if (v > static_cast<json::number_unsigned_t>(kMaxJsonInteger)) return NumberOutOfRange();
    return Put(json(v));
  }
  bool number_float(json::number_float_t v, const std::string&) {
    // An integer literal nlohmann could not hold as int64/uint64 arrives here as a double.
    if (!std::isfinite(v) || std::fabs(v) >= 9223372036854775807.0) return NumberOutOfRange();
    return Put(json(v));
  }
  bool string(std::string& v) {
    if (!StringFits(v)) return false;
    return Put(json(std::move(v)));
  }
  bool binary(json::binary_t&) { return Refuse("binary values are not JSON"); }
  bool start_object(std::size_t) { return Open(json::object()); }
  bool key(std::string& k) {
    if (!StringFits(k) || !Count()) return false;
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(std::size_t) { return Open(json::array()); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    if (ex.id == 406) return NumberOutOfRange();  // out_of_range.406: a float literal beyond double (1e400)
    syntax_ = true;
    position_ = position;
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 3: syntax error while parsing
    // value - invalid literal; last read: '...'": keep from "syntax error" on; the last token is
    // the client's bytes, so it is made safe to quote.
    if (const auto at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    if (const auto last = what.find("; last read: '"); last != std::string::npos)
      what = what.substr(0, last) + "; last read: '" + SafeText(last_token, 40) + "'";
    message_ = SafeText(what, 300);
    return false;
  }

  bool syntax() const { return syntax_; }
  size_t position() const { return position_; }
  const std::string& message() const { return message_; }

 private:
  bool Refuse(std::string message) {
    if (message_.empty()) message_ = std::move(message);
    return false;
  }
  bool NumberOutOfRange() {
    return Refuse("a number is out of range (numbers must lie within -9223372036854775808..9223372036854775807)");
  }
  bool StringFits(const std::string& s) {
    if (s.size() <= limits_.maxStringBytes) return true;
    return Refuse("a string is longer than " + std::to_string(limits_.maxStringBytes) + " bytes");
  }
  bool Count() {
    if (++values_ <= limits_.maxValues) return true;
    return Refuse("the document has more than " + std::to_string(limits_.maxValues) + " values");
  }
  // Places a value in the open container (or as the root); answers where it now lives.
  json* Place(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.size() >= limits_.maxArrayItems) {
      Refuse(std::string(parent.is_array() ? "an array has more than " : "an object has more than ") +
             std::to_string(limits_.maxArrayItems) + (parent.is_array() ? " items" : " members"));
      return nullptr;
    }
    if (parent.is_array()) {
      parent.get_ref<json::array_t&>().push_back(std::move(v));
      return &parent.get_ref<json::array_t&>().back();
    }
    json& slot = parent.get_ref<json::object_t&>()[key_];
    slot = std::move(v);
    return &slot;
  }
  bool Put(json&& v) { return Count() && Place(std::move(v)) != nullptr; }
  bool Open(json&& container) {
    if (stack_.size() + 1 > limits_.maxDepth)
      return Refuse("the document nests deeper than " + std::to_string(limits_.maxDepth) + " levels");
    if (!Count()) return false;
    json* at = Place(std::move(container));
    if (!at) return false;
    stack_.push_back(at);
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }

  json& root_;
  const JsonLimits& limits_;
  std::vector<json*> stack_;
  std::string key_;
  size_t values_ = 0;
  bool syntax_ = false;
  size_t position_ = 0;
  std::string message_;
};

}  // namespace

// Builds what LimitedDom builds from the same text, with the same counts, reading with
// core::JsonCursor: nlohmann's lexer copies every byte of every token through a std::string, which
// was two thirds of parsing a 77-byte purchase body. Containers are kept on an explicit stack, as
// LimitedDom keeps them (a pointer to an open container stays valid: nothing is added to its parent
// while it is open). A limit is never reported from here: reaching one answers false, and the
// slow way names it.
bool ParsePlainJson(std::string_view text, const JsonLimits& limits, json& out) {
  core::JsonCursor in(text);
  struct Open {
    json* container;
    size_t members;  // read so far: a comma comes before every one after the first
  };
  std::vector<Open> stack;
  stack.reserve(8);
  size_t values = 0;
  std::string unescaped;
  // One value into `slot`; a container is opened (pushed) rather than read.
  auto value = [&](json& slot) {
    if (++values > limits.maxValues) return false;
    const bool object = in.Consume('{');
    if (object || in.Consume('[')) {
      if (stack.size() + 1 > limits.maxDepth) return false;
      slot = object ? json::object() : json::array();
      stack.push_back({&slot, 0});
      return true;
    }
    if (in.Next('"')) {
      std::string_view plain;
      if (in.PlainString(plain)) {
        if (plain.size() > limits.maxStringBytes) return false;
        slot = std::string(plain);
        return true;
      }
      if (!in.String(unescaped) || unescaped.size() > limits.maxStringBytes) return false;
      slot = std::move(unescaped);
      return true;
    }
    if (in.Null()) {
      slot = nullptr;
      return true;
    }
    bool b;
    if (in.Bool(b)) {
      slot = b;
      return true;
    }
    // nlohmann makes an integer without a sign unsigned, and one with a sign (-0 too) signed.
    const bool negative = in.Next('-');
    std::int64_t n;
    if (!in.Integer(n)) return false;
    if (negative) slot = n;
    else slot = static_cast<std::uint64_t>(n);
    return true;
  };
  if (!value(out)) return false;
  while (!stack.empty()) {
    Open& top = stack.back();
    json& container = *top.container;
    if (container.is_object()) {
      if (in.Consume('}')) {
        stack.pop_back();
        continue;
      }
      if (top.members++ > 0 && !in.Consume(',')) return false;
      std::string_view key;
      if (!in.Key(key) || key.size() > limits.maxStringBytes || ++values > limits.maxValues) return false;
      auto& members = container.get_ref<json::object_t&>();
      // LimitedDom refuses the member after the limit even when it repeats a key (which replaces).
      if (members.size() >= limits.maxArrayItems) return false;
      json& slot = members[std::string(key)];
      if (!value(slot)) return false;  // `top` may have moved: not used past here
    } else {
      if (in.Consume(']')) {
        stack.pop_back();
        continue;
      }
      if (top.members++ > 0 && !in.Consume(',')) return false;
      auto& items = container.get_ref<json::array_t&>();
      if (items.size() >= limits.maxArrayItems) return false;
      if (!value(items.emplace_back())) return false;
    }
  }
  return in.AtEnd();
}

Result<json> ParseJsonLimited(std::string_view text, const JsonLimits& limits, std::string_view what) {
  json root;
  try {
    if (ParsePlainJson(text, limits, root)) return root;
  } catch (const std::exception&) {  // out of memory: the slow way says so, as it says everything
  }
  return ParseJsonWithNlohmann(text, limits, what);
}

Result<json> ParseJsonWithNlohmann(std::string_view text, const JsonLimits& limits, std::string_view what) {
  json root;
  LimitedDom dom(root, limits);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &dom, json::input_format_t::json, /*strict=*/true);
  } catch (const std::exception& e) {  // nlohmann reports through parse_error; anything else is a bug
    return Error::Validation(std::string(what), std::string("the JSON could not be read: ") + SafeText(e.what()));
  }
  if (ok) return root;
  std::string msg;
  if (dom.syntax()) {
    // nlohmann's position is one past the byte it stopped at; "line 1, column 14" as before.
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < dom.position() && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    msg = "Malformed JSON " + std::string(what) + " at line " + std::to_string(line) + ", column " +
          std::to_string(col) + ": " + dom.message();
  } else {
    msg = "JSON " + std::string(what) + " refused: " + dom.message();
  }
  Error err = Error::Validation(std::string(what), msg);
  err.message = msg;
  return err;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    // ASCII runs 8 bytes at a time: most text checked here is ASCII.
    if (i + 8 <= s.size()) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    const size_t n = SequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string_view Utf8Prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t cut = max_bytes;
  // Back up over continuation bytes to the start of the sequence the cut falls in (at most 3).
  size_t back = 0;
  while (cut > 0 && back < 4 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
    --cut;
    ++back;
  }
  return s.substr(0, cut);
}

std::string SafeText(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes && IsValidUtf8(s)) return std::string(s);
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 16);
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = SequenceAt(s, i);
    const size_t add = n == 0 ? kReplacement.size() : n;
    if (out.size() + add > max_bytes) break;
    if (n == 0) out.append(kReplacement);
    else out.append(s.substr(i, n));
    i += n == 0 ? 1 : n;
  }
  if (i < s.size()) out += "...(" + std::to_string(s.size()) + " bytes)";
  return out;
}

std::optional<std::int64_t> ParseInteger(std::string_view s, std::int64_t min, std::int64_t max) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  const size_t digits_from = s[0] == '-' ? 1 : 0;
  if (digits_from == s.size()) return std::nullopt;
  for (size_t i = digits_from; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < min || v > max) return std::nullopt;
  return v;
}

}  // namespace emsim::model
