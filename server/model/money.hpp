#pragma once
// Money is exact: integer cents inside, the spec's decimal text or whole dollars outside.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emsim::model {

using Cents = std::int64_t;

// 1299 -> "12.99"
std::string FormatDecimal(Cents c);
// "12.99", "12.9", "12", "-3.50" -> cents; more than two decimals or junk -> nullopt.
std::optional<Cents> ParseDecimal(std::string_view text);

}  // namespace emsim::model
