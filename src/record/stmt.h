// For the record's own files only (store*.cc, watch_state.cc): a prepared SQLite statement that
// finalizes itself, its one way of being prepared, and a text column as a string.
#pragma once

#include <sqlite3.h>

#include <string>

#include "base/result.h"

namespace aw::record_sql {

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

// sql prepared into st on db: the error every query of the record answers when it cannot be.
inline Status prepare(sqlite3* db, const char* sql, Stmt& st) {
  if (sqlite3_prepare_v2(db, sql, -1, &st.s, nullptr) != SQLITE_OK)
    return fail("sqlite: {}", sqlite3_errmsg(db));
  return {};
}

inline std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace aw::record_sql
