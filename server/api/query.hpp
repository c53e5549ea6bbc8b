#pragma once
// Whole numbers from the query string, read with range checks (never std::stoll on client text:
// a huge value threw out of the handler and answered 500).
#include <cstdint>
#include <string>

#include "app/types.hpp"
#include "core/json_limits.hpp"

namespace emsim::api {

// A search's index is brought up to date before the search, this many records per read
// transaction (app::Ctx::ReadInSteps): a write waits for one step, ~5-25 ms at 1-6 us a record
// (measured on a 2-core VM at 1 M mailboxes and emails; 16,384 a step held writes up to 190 ms).
inline constexpr size_t kIndexStep = 4096;

// The largest page number the list schemas accept (`^[1-9][0-9]{0,8}$`).
inline constexpr std::int64_t kMaxPage = 999'999'999;

// The parameter as an integer within [min, max]; `def` when absent; otherwise a 400 naming it.
// Schemas check most of these by pattern already: this is the handler's own guarantee.
inline model::Result<std::int64_t> QueryInt(const app::Request& req, const std::string& key, std::int64_t def,
                                            std::int64_t min, std::int64_t max) {
  if (!req.query.contains(key)) return def;
  const json& v = req.query[key];
  std::optional<std::int64_t> n;
  if (v.is_string()) n = model::ParseInteger(v.get_ref<const std::string&>(), min, max);
  if (n) return *n;
  return model::Error::Validation(key,
                                  key + " must be a whole number from " + std::to_string(min) + " to " + std::to_string(max),
                                  "query");
}

// The /_sim logs' `limit` (0: no limit). Their schemas allow up to 6 digits; a value a schema let
// through that does not read is 0.
inline size_t Limit(const app::Request& req) {
  auto n = QueryInt(req, "limit", 0, 0, 999'999);
  return n ? static_cast<size_t>(*n) : 0;
}

// Keeps the newest `limit` (0: all) of a list in time order, oldest first.
inline json Newest(json list, size_t limit) {
  if (limit && list.size() > limit) list.erase(list.begin(), list.end() - static_cast<std::ptrdiff_t>(limit));
  return list;
}

}  // namespace emsim::api
