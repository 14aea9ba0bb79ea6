// The forge_usage table: what awaywork's GitHub clients spent per forge API, for /metrics. One
// row per API, added to by every unit and command that opened the forge (several processes may
// add at once: the upsert is one statement).
#include <sqlite3.h>

#include "record/stmt.h"
#include "record/store.h"

namespace aw {

using record_sql::prepare;
using record_sql::Stmt;

Status Store::add_forge_usage(const ForgeUsage& d) {
  // A rate limit of -1 (this client saw none) keeps the row's last known one.
  const char* sql =
      "INSERT INTO forge_usage(api, requests, not_modified, retries, waited_ms, rate_remaining, "
      "rate_limit, rate_reset, updated_at) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9) "
      "ON CONFLICT(api) DO UPDATE SET requests = requests + ?2, not_modified = not_modified + ?3, "
      "retries = retries + ?4, waited_ms = waited_ms + ?5, "
      "rate_remaining = CASE WHEN ?6 >= 0 THEN ?6 ELSE rate_remaining END, "
      "rate_limit = CASE WHEN ?7 >= 0 THEN ?7 ELSE rate_limit END, "
      "rate_reset = CASE WHEN ?8 >= 0 THEN ?8 ELSE rate_reset END, updated_at = ?9";
  Stmt st;
  AW_CHECK(prepare(db_, sql, st));
  sqlite3_bind_text(st.s, 1, d.api.c_str(), -1, SQLITE_TRANSIENT);
  int64_t values[] = {d.requests,       d.not_modified, d.retries,   d.waited_ms,
                      d.rate_remaining, d.rate_limit,   d.rate_reset};
  for (int i = 0; i < 7; ++i) sqlite3_bind_int64(st.s, i + 2, values[i]);
  sqlite3_bind_text(st.s, 9, d.updated_at.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE)
    return fail("save the forge usage of {}: {}", d.api, sqlite3_errmsg(db_));
  return {};
}

Result<std::vector<ForgeUsage>> Store::forge_usage() {
  const char* sql =
      "SELECT api, requests, not_modified, retries, waited_ms, rate_remaining, rate_limit, "
      "rate_reset, updated_at FROM forge_usage ORDER BY api";
  Stmt st;
  AW_CHECK(prepare(db_, sql, st));
  std::vector<ForgeUsage> out;
  AW_CHECK(read_all(
      st.s, "the forge usage",
      [&]() -> Status {
        ForgeUsage u;
        u.api = record_sql::column_text(st.s, 0);
        int64_t* fields[] = {&u.requests,       &u.not_modified, &u.retries,   &u.waited_ms,
                             &u.rate_remaining, &u.rate_limit,   &u.rate_reset};
        for (int i = 0; i < 7; ++i) *fields[i] = sqlite3_column_int64(st.s, i + 1);
        u.updated_at = record_sql::column_text(st.s, 8);
        out.push_back(std::move(u));
        return {};
      },
      [&] { out.clear(); }));
  return out;
}

}  // namespace aw
