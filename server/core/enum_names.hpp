#pragma once
// One table per enum: the names a value has on the wire (API answers, event payloads, state
// dumps, fixtures) <-> the value. The model compares values, never strings; everything that reads
// or writes the text goes through the table, so a name is spelled in exactly one place.
//
// An enum opts in by declaring, in its own namespace (found by argument-dependent lookup):
//   constexpr std::span<const core::EnumName<E>> EnumNames(E) { return kTable; }
// and EMSIM_ENUM_JSON(E) for nlohmann. Unknown names are refused, never mapped to a default:
// nlohmann's NLOHMANN_JSON_SERIALIZE_ENUM would quietly read a misspelt status as the first value.
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace emsim::core {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

// The wire name of `e` (every value of an opted-in enum has one).
template <class E>
constexpr std::string_view NameOf(E e) {
  for (const auto& n : EnumNames(E{}))
    if (n.value == e) return n.name;
  return {};
}

// The value named `name` exactly (case matters, as on the wire); nullopt when none is.
template <class E>
constexpr std::optional<E> ParseEnum(std::string_view name) {
  for (const auto& n : EnumNames(E{}))
    if (n.name == name) return n.value;
  return std::nullopt;
}

// "A, B or C": the names, for an error message.
template <class E>
std::string EnumNameList() {
  std::string out;
  const auto names = EnumNames(E{});
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i].name;
  }
  return out;
}

// from_json for an opted-in enum: a string that names a value, else std::invalid_argument
// saying what was found and what is allowed (the state loader prefixes where it was).
template <class E>
void EnumFromJson(const json& j, E& e) {
  if (!j.is_string()) throw std::invalid_argument("expected a string (" + EnumNameList<E>() + "), got " + j.dump());
  const auto v = ParseEnum<E>(j.get_ref<const std::string&>());
  if (!v) throw std::invalid_argument("unknown value " + j.dump() + " (expected " + EnumNameList<E>() + ")");
  e = *v;
}

}  // namespace emsim::core

// nlohmann's to_json/from_json for enum E, through its table, and its name on a stream (test
// failures show PAID, not 1). Use in E's namespace.
#define EMSIM_ENUM_JSON(E)                                                                  \
  inline void to_json(::emsim::json& j, E e) { j = std::string(::emsim::core::NameOf(e)); } \
  inline void from_json(const ::emsim::json& j, E& e) { ::emsim::core::EnumFromJson(j, e); } \
  inline std::ostream& operator<<(std::ostream& o, E e) { return o << ::emsim::core::NameOf(e); }
