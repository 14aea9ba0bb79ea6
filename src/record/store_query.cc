// The listing and aggregates the local API asks for (serve/): filtered, paged, counted in SQL so
// that 10,000 units cost one indexed query, not 10,000 parsed records.
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "record/stmt.h"
#include "record/store.h"

namespace aw {

using record_sql::column_text;
using record_sql::prepare;
using record_sql::Stmt;

namespace {

// Binds ?1 state, ?2 repo and ?5 issue; NULL (empty filter) matches everything.
void bind_filters(sqlite3_stmt* s, const UnitQuery& q) {
  if (q.state.empty())
    sqlite3_bind_null(s, 1);
  else
    sqlite3_bind_text(s, 1, q.state.c_str(), -1, SQLITE_TRANSIENT);
  if (q.repo.empty())
    sqlite3_bind_null(s, 2);
  else
    sqlite3_bind_text(s, 2, q.repo.c_str(), -1, SQLITE_TRANSIENT);
  if (q.issue > 0)
    sqlite3_bind_int64(s, 5, q.issue);
  else
    sqlite3_bind_null(s, 5);
}

}  // namespace

Result<UnitPage> Store::page(const UnitQuery& q) {
  // The issue lives in the record alone: a filter on it reads the records the other filters left.
  constexpr const char* kWhere =
      " WHERE (?1 IS NULL OR state = ?1) AND (?2 IS NULL OR repo = ?2) AND"
      " (?5 IS NULL OR json_extract(record, '$.issue') = ?5)";
  UnitPage out;
  {
    Stmt st;
    std::string sql = std::string("SELECT count(*) FROM units") + kWhere;
    AW_CHECK(prepare(db_, sql.c_str(), st));
    bind_filters(st.s, q);
    AW_CHECK(read_all(
        st.s, "the count of units",
        [&]() -> Status {
          out.total = sqlite3_column_int64(st.s, 0);
          return {};
        },
        [&] { out.total = 0; }));
  }
  Stmt st;
  std::string sql = std::string("SELECT record FROM units") + kWhere +
                    " ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4";
  AW_CHECK(prepare(db_, sql.c_str(), st));
  bind_filters(st.s, q);
  sqlite3_bind_int(st.s, 3, q.limit);
  sqlite3_bind_int(st.s, 4, q.offset);
  AW_CHECK(read_all(
      st.s, "a page of the units",
      [&]() -> Status {
        auto j = nlohmann::json::parse(column_text(st.s, 0), nullptr, false);
        if (j.is_discarded()) return fail("record database holds an unreadable record");
        AW_TRY(UnitRecord u, unit_from_json(j, "record database: a unit's record"));
        out.units.push_back(std::move(u));
        return {};
      },
      [&] { out.units.clear(); }));
  return out;
}

Result<std::vector<std::pair<std::string, int64_t>>> Store::count_by_state() {
  Stmt st;
  const char* sql = "SELECT state, count(*) FROM units GROUP BY state ORDER BY state";
  AW_CHECK(prepare(db_, sql, st));
  std::vector<std::pair<std::string, int64_t>> out;
  AW_CHECK(read_all(
      st.s, "the units by state",
      [&]() -> Status {
        out.emplace_back(column_text(st.s, 0), sqlite3_column_int64(st.s, 1));
        return {};
      },
      [&] { out.clear(); }));
  return out;
}

Result<std::vector<PhaseStat>> Store::phase_stats() {
  Stmt st;
  const char* sql =
      "SELECT json_extract(p.value, '$.name') AS n, count(*), "
      "sum(json_extract(p.value, '$.duration_ms')) FROM units, json_each(units.record, "
      "'$.phases') AS p GROUP BY n ORDER BY n";
  AW_CHECK(prepare(db_, sql, st));
  std::vector<PhaseStat> out;
  AW_CHECK(read_all(
      st.s, "the phase durations",
      [&]() -> Status {
        out.push_back(
            {column_text(st.s, 0), sqlite3_column_int64(st.s, 1), sqlite3_column_int64(st.s, 2)});
        return {};
      },
      [&] { out.clear(); }));
  return out;
}

Result<std::optional<UnitRecord>> Store::by_runner(int64_t pid) {
  Stmt st;
  const char* sql =
      "SELECT record FROM units WHERE runner_pid = ?1 ORDER BY created_at DESC LIMIT 1";
  AW_CHECK(prepare(db_, sql, st));
  sqlite3_bind_int64(st.s, 1, pid);
  // A busy database is an error, not "no unit yet": watch would take its runner for one that
  // never recorded a unit.
  std::optional<UnitRecord> out;
  AW_CHECK(read_all(
      st.s, fmt::format("the unit of runner pid {}", pid),
      [&]() -> Status {
        auto j = nlohmann::json::parse(column_text(st.s, 0), nullptr, false);
        if (j.is_discarded()) return fail("record database holds an unreadable record");
        AW_TRY(UnitRecord u, unit_from_json(j, "record database: a unit's record"));
        out = std::move(u);
        return {};
      },
      [&] { out.reset(); }));
  return out;
}

}  // namespace aw
