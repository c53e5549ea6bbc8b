#pragma once
// nlohmann_json plus std::optional support (3.11.2 has none): null <-> nullopt.
#include <optional>

#include <nlohmann/json.hpp>

namespace nlohmann {
template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v) j = *v;
    else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null()) v.reset();
    else v = j.get<T>();
  }
};
}  // namespace nlohmann

namespace emsim {
using json = nlohmann::json;
}
