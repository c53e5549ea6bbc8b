#pragma once
#include <cstdint>

namespace emsim::model {

// Gap decision (README): lists page by 20 records; `nextPage` is the next page number, or 0 on
// the last page (the spec types it as an integer, so it is never null).
inline constexpr std::int64_t kPageSize = 20;

struct Page {
  std::int64_t totalSearchedCount = 0, currentPage = 1, nextPage = 0, totalPages = 0;
  std::int64_t begin = 0, end = 0;  // [begin, end) of the matching records
};

inline Page Paginate(std::int64_t total, std::int64_t page, std::int64_t page_size = kPageSize) {
  Page p;
  p.totalSearchedCount = total;
  p.currentPage = page < 1 ? 1 : page;
  p.totalPages = (total + page_size - 1) / page_size;
  p.nextPage = p.currentPage < p.totalPages ? p.currentPage + 1 : 0;
  p.begin = (p.currentPage - 1) * page_size;
  if (p.begin > total) p.begin = total;
  p.end = p.begin + page_size < total ? p.begin + page_size : total;
  return p;
}

}  // namespace emsim::model
