// For the record's own files only (store*.cc, watch_state.cc): a prepared SQLite statement that
// finalizes itself, and a text column as a string.
#pragma once

#include <sqlite3.h>

#include <string>

namespace aw::record_sql {

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

inline std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace aw::record_sql
