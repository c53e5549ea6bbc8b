#pragma once
// A look into a data dir's database (--data-dir) as a person would take it with sqlite3: the
// first column of the first row of a query, as text ("" when there is none).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace emsim::testing {

inline std::string SqlValue(const std::string& file, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK) << file;
  sqlite3_stmt* st = nullptr;
  std::string out;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
  if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

}  // namespace emsim::testing
