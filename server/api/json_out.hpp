#pragma once
// Writes JSON text straight into a string, for the hot list endpoints (issue 7): building an
// nlohmann DOM of every record and dumping it cost ~half of a list request in allocations. The
// output is byte for byte what nlohmann's dump() gives for the same document, provided keys are
// written in nlohmann's order (sorted, byte-wise): tests compare the two for every record shape.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/json.hpp"

namespace emsim::api {

class JsonOut {
 public:
  JsonOut() { out_.reserve(1024); }

  JsonOut& BeginObject() { return Open('{'); }
  JsonOut& EndObject() { return Close('}'); }
  JsonOut& BeginArray() { return Open('['); }
  JsonOut& EndArray() { return Close(']'); }

  JsonOut& Key(std::string_view k) {
    if (need_comma_) out_ += ',';
    Quoted(k);
    out_ += ':';
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
    char buf[24];
    out_.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
    return Done();
  }
  JsonOut& Bool(bool b) {
    Sep();
    out_ += b ? "true" : "false";
    return Done();
  }
  JsonOut& Null() {
    Sep();
    out_ += "null";
    return Done();
  }
  JsonOut& String(const std::string& s) { return String(std::string_view(s)); }
  JsonOut& String(const char* s) { return String(std::string_view(s)); }
  JsonOut& String(const std::optional<std::string>& s) { return s ? String(std::string_view(*s)) : Null(); }
  JsonOut& Strings(const std::optional<std::vector<std::string>>& list) {
    if (!list) return Null();
    BeginArray();
    for (const auto& s : *list) String(s);
    return EndArray();
  }

  std::string& str() { return out_; }

 private:
  JsonOut& Open(char c) {
    Sep();
    out_ += c;
    need_comma_ = false;
    return *this;
  }
  JsonOut& Close(char c) {
    out_ += c;
    return Done();
  }
  void Sep() {
    if (after_key_) after_key_ = false;
    else if (need_comma_) out_ += ',';
  }
  JsonOut& Done() {
    need_comma_ = true;
    return *this;
  }
  // Plain ASCII needs no escaping; anything else goes through nlohmann's own serializer, so
  // escapes and UTF-8 handling (invalid UTF-8 throws, as dump() does) stay exactly the same.
  void Quoted(std::string_view s) {
    for (unsigned char c : s) {
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) {
        out_ += json(std::string(s)).dump();
        return;
      }
    }
    out_ += '"';
    out_.append(s);
    out_ += '"';
  }

  std::string out_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace emsim::api
