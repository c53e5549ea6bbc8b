#pragma once
// nlohmann_json plus std::optional support (3.11.2 has none): null <-> nullopt, and integer reads
// that check their range.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

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

// get<int64_t>() and friends: nlohmann converts with a plain cast, and a cast from a double beyond
// the target's range (1e89 into a count, -1.0 into a sequence number) is undefined behaviour, as
// is any value beyond the target caught later by UBSan. Every integer read in emsim goes through
// here (core/json.hpp is the one way nlohmann is included), so a document with such a number
// (PUT /_sim/state, a fixture, a stored row) is refused with an out_of_range that names the
// number, never converted. Within range it is what nlohmann does (a double is truncated).
template <class T>
struct adl_serializer<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  template <class Json>
  static void to_json(Json& j, T v) {
    ::nlohmann::to_json(j, v);
  }
  template <class Json>
  static void from_json(const Json& j, T& v) {
    using L = std::numeric_limits<T>;
    bool fits = true;
    if (j.is_number_float()) {
      const double d = j.template get_ref<const typename Json::number_float_t&>();
      // The bounds as doubles: min() is a power of two (exact); max()+1 is too, so `< max+1`.
      fits = std::isfinite(d) && d >= static_cast<double>(L::min()) && d < static_cast<double>(L::max()) + 1.0;
    } else if (j.is_number_integer() && !j.is_number_unsigned()) {
      const auto i = j.template get_ref<const typename Json::number_integer_t&>();
      fits = std::is_signed_v<T> ? i >= static_cast<long long>(L::min()) && i <= static_cast<long long>(L::max())
                                 : i >= 0 && static_cast<unsigned long long>(i) <= static_cast<unsigned long long>(L::max());
    } else if (j.is_number_unsigned()) {
      fits = j.template get_ref<const typename Json::number_unsigned_t&>() <= static_cast<unsigned long long>(L::max());
    }
    if (!fits) {
      throw detail::out_of_range::create(406, "number " + j.dump() + " is beyond the range of this integer field", &j);
    }
    ::nlohmann::from_json(j, v);
  }
};
}  // namespace nlohmann

namespace emsim {
using json = nlohmann::json;
}
