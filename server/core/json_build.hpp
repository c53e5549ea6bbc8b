#pragma once
// Builds an nlohmann document through the same calls as JsonOut (BeginObject, Key, String, ...),
// so a record is written once, as a template over its writer: JsonOut gives the text straight
// (the list endpoints), JsonBuild gives a document (event payloads and answers that embed the
// record in a larger one). nlohmann sorts object keys, so when the record writes its keys sorted,
// JsonBuild's document dumps to exactly JsonOut's text; tests compare the two for every record.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/json_out.hpp"
#include "core/time.hpp"

namespace emsim::core {

class JsonBuild {
 public:
  JsonBuild& BeginObject() { return Open(json::object()); }
  JsonBuild& EndObject() { return Close(); }
  JsonBuild& BeginArray() { return Open(json::array()); }
  JsonBuild& EndArray() { return Close(); }
  JsonBuild& Key(PlainKey k) { return KeyText(k.text()); }
  JsonBuild& KeyText(std::string_view k) {
    key_.assign(k);
    return *this;
  }
  JsonBuild& String(std::string_view s) { return Put(json(std::string(s))); }
  JsonBuild& String(const std::string& s) { return Put(json(s)); }
  JsonBuild& String(const char* s) { return String(std::string_view(s)); }
  JsonBuild& String(const std::optional<std::string>& s) { return s ? String(*s) : Null(); }
  JsonBuild& Int(std::int64_t v) { return Put(json(v)); }
  JsonBuild& Time(model::Millis t) { return Put(json(model::FormatIso(t))); }
  JsonBuild& Bool(bool b) { return Put(json(b)); }
  JsonBuild& Null() { return Put(json(nullptr)); }
  JsonBuild& Value(const json& v) { return Put(v); }
  JsonBuild& Strings(const std::optional<std::vector<std::string>>& list) {
    return list ? Put(json(*list)) : Null();
  }

  // The document built (complete once every Begin has met its End).
  json& result() { return root_; }

 private:
  // Places `v` where the writer stands: the root, the current object under the last key, or the
  // end of the current array. Answers where it now lives.
  json& Place(json v) {
    if (open_.empty()) return root_ = std::move(v);
    json& top = *open_.back();
    if (top.is_object()) return top[key_] = std::move(v);
    top.push_back(std::move(v));
    return top.back();
  }
  JsonBuild& Put(json v) {
    Place(std::move(v));
    return *this;
  }
  // An open container's address stays valid: its parent is an object (a std::map node) or an
  // array that gets nothing more until this container is closed.
  JsonBuild& Open(json v) {
    open_.push_back(&Place(std::move(v)));
    return *this;
  }
  JsonBuild& Close() {
    open_.pop_back();
    return *this;
  }

  json root_;
  std::vector<json*> open_;
  std::string key_;
};

// The document that `write(JsonBuild&)` writes.
template <class Write>
json BuildJson(Write&& write) {
  JsonBuild b;
  write(b);
  return std::move(b.result());
}

}  // namespace emsim::core
