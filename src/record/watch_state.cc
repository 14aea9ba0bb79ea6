// The watch_state table: awaywork watch's keys and JSON values, in the record database so that a
// restart (or a kill -9) loses nothing of what it knew.
#include <sqlite3.h>

#include <ctime>

#include "base/json_write.h"
#include "record/stmt.h"
#include "record/store.h"

namespace aw {

using record_sql::Stmt;

Status Store::watch_put(const std::string& key, const nlohmann::json& value) {
  Stmt st;
  const char* sql = "INSERT OR REPLACE INTO watch_state(key, value, updated_at) VALUES(?1, ?2, ?3)";
  if (sqlite3_prepare_v2(db_, sql, -1, &st.s, nullptr) != SQLITE_OK)
    return fail("sqlite: {}", sqlite3_errmsg(db_));
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
  if (sqlite3_prepare_v2(db_, "SELECT value FROM watch_state WHERE key = ?1", -1, &st.s, nullptr) !=
      SQLITE_OK)
    return fail("sqlite: {}", sqlite3_errmsg(db_));
  sqlite3_bind_text(st.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_ROW) return std::optional<nlohmann::json>{};
  const unsigned char* text = sqlite3_column_text(st.s, 0);
  auto j = nlohmann::json::parse(text ? reinterpret_cast<const char*>(text) : "", nullptr, false);
  if (j.is_discarded()) return fail("watch state {} is unreadable", key);
  return std::optional<nlohmann::json>(std::move(j));
}

Result<std::vector<std::pair<std::string, nlohmann::json>>> Store::watch_list(
    const std::string& prefix) {
  Stmt st;
  // A range, not LIKE: keys hold '_' and '%' freely.
  const char* sql = "SELECT key, value FROM watch_state WHERE key >= ?1 AND key < ?2 ORDER BY key";
  if (sqlite3_prepare_v2(db_, sql, -1, &st.s, nullptr) != SQLITE_OK)
    return fail("sqlite: {}", sqlite3_errmsg(db_));
  std::string end = prefix + "\xff";
  sqlite3_bind_text(st.s, 1, prefix.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, end.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<std::pair<std::string, nlohmann::json>> out;
  while (sqlite3_step(st.s) == SQLITE_ROW) {
    std::string key = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0));
    const unsigned char* text = sqlite3_column_text(st.s, 1);
    // A value that is not JSON comes back discarded (is_discarded()), for the caller to name:
    // one corrupt row must not hide every other key.
    auto j = nlohmann::json::parse(text ? reinterpret_cast<const char*>(text) : "", nullptr, false);
    out.emplace_back(std::move(key), std::move(j));
  }
  return out;
}

Status Store::watch_erase(const std::string& key) {
  Stmt st;
  if (sqlite3_prepare_v2(db_, "DELETE FROM watch_state WHERE key = ?1", -1, &st.s, nullptr) !=
      SQLITE_OK)
    return fail("sqlite: {}", sqlite3_errmsg(db_));
  sqlite3_bind_text(st.s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE)
    return fail("erase watch state {}: {}", key, sqlite3_errmsg(db_));
  return {};
}

}  // namespace aw
