// The watch_state table: awaywork watch's keys and JSON values, in the record database so that a
// restart (or a kill -9) loses nothing of what it knew.
#include <sqlite3.h>

#include <ctime>

#include "base/json_write.h"
#include "record/stmt.h"
#include "record/store.h"

namespace aw {

using record_sql::prepare;
using record_sql::Stmt;

Status Store::watch_put(const std::string& key, const nlohmann::json& value) {
  Stmt st;
  const char* sql = "INSERT OR REPLACE INTO watch_state(key, value, updated_at) VALUES(?1, ?2, ?3)";
  AW_CHECK(prepare(db_, sql, st));
  std::string text = json_text(value);
  sqlite3_bind_text(st.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, text.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st.s, 3, static_cast<int64_t>(::time(nullptr)));
  if (sqlite3_step(st.s) != SQLITE_DONE)
    return fail("save watch state {}: {}", key, sqlite3_errmsg(db_));
  return {};
}

Result<std::optional<nlohmann::json>> Store::watch_get(const std::string& key) {
  Stmt st;
  AW_CHECK(prepare(db_, "SELECT value FROM watch_state WHERE key = ?1", st));
  sqlite3_bind_text(st.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  // A busy database is an error, not "nothing kept": an issue's slot read as none would have
  // watch claim and run the issue again.
  std::optional<nlohmann::json> out;
  AW_CHECK(read_all(
      st.s, fmt::format("watch state {}", key),
      [&]() -> Status {
        auto j = nlohmann::json::parse(record_sql::column_text(st.s, 0), nullptr, false);
        if (j.is_discarded()) return fail("watch state {} is unreadable", key);
        out = std::move(j);
        return {};
      },
      [&] { out.reset(); }));
  return out;
}

Result<std::vector<std::pair<std::string, nlohmann::json>>> Store::watch_list(
    const std::string& prefix) {
  Stmt st;
  // A range, not LIKE: keys hold '_' and '%' freely.
  const char* sql = "SELECT key, value FROM watch_state WHERE key >= ?1 AND key < ?2 ORDER BY key";
  AW_CHECK(prepare(db_, sql, st));
  std::string end = prefix + "\xff";
  sqlite3_bind_text(st.s, 1, prefix.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, end.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<std::pair<std::string, nlohmann::json>> out;
  AW_CHECK(read_all(
      st.s, fmt::format("watch state {}*", prefix),
      [&]() -> Status {
        std::string key = record_sql::column_text(st.s, 0);
        // A value that is not JSON comes back discarded (is_discarded()), for the caller to name:
        // one corrupt row must not hide every other key.
        auto j = nlohmann::json::parse(record_sql::column_text(st.s, 1), nullptr, false);
        out.emplace_back(std::move(key), std::move(j));
        return {};
      },
      [&] { out.clear(); }));
  return out;
}

Status Store::watch_erase(const std::string& key) {
  Stmt st;
  AW_CHECK(prepare(db_, "DELETE FROM watch_state WHERE key = ?1", st));
  sqlite3_bind_text(st.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE)
    return fail("erase watch state {}: {}", key, sqlite3_errmsg(db_));
  return {};
}

}  // namespace aw
