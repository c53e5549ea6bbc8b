#pragma once
// Two JSON documents equal as values and as types. nlohmann's == takes 5 and 5u (and 5.0) for the
// same value, while the model reads an unsigned integer differently from a signed one: a reader that
// must build what nlohmann builds (model::ParsePlainJson) is checked with this. Recursive: for
// documents within the parse limits' depth (at most 128 levels).
#include "core/json.hpp"

namespace emsim::testing {

inline bool SameTypedJson(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !SameTypedJson(ia.value(), ib.value())) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!SameTypedJson(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

}  // namespace emsim::testing
