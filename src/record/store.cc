#include "record/store.h"
#include "record/stmt.h"

#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/fs.h"
#include "base/json_write.h"
#include "record/lock_holders.h"

namespace aw {

using record_sql::prepare;
using record_sql::Stmt;

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS units (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  state TEXT NOT NULL,
  repo TEXT NOT NULL,
  agent TEXT NOT NULL,
  branch TEXT NOT NULL,
  runner_pid INTEGER NOT NULL,
  runner_start TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS units_created ON units(created_at);
-- The API's listing (record/store_query.cc): a page walks this index in order (newest first, id
-- breaking ties) testing the filters on it, reading only the rows it returns; the count reads
-- units_filters alone. Without them 10,000 units cost ~40 ms a page (a scan of every record).
CREATE INDEX IF NOT EXISTS units_listing ON units(created_at DESC, id DESC, state, repo);
CREATE INDEX IF NOT EXISTS units_filters ON units(state, repo);
CREATE TABLE IF NOT EXISTS forge_usage (
  api TEXT PRIMARY KEY,
  requests INTEGER NOT NULL, not_modified INTEGER NOT NULL, retries INTEGER NOT NULL,
  waited_ms INTEGER NOT NULL, rate_remaining INTEGER NOT NULL, rate_limit INTEGER NOT NULL,
  rate_reset INTEGER NOT NULL, updated_at TEXT NOT NULL
);
-- awaywork watch's state (record/watch_state.cc): one JSON value per key.
CREATE TABLE IF NOT EXISTS watch_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
)sql";

// The database's setup: WAL, then the tables. Each statement waits SQLite's busy timeout for
// another process's lock, but the switch to WAL on a new database can answer SQLITE_BUSY at once:
// it reads the header, then turns that read into a write, and SQLite refuses such an upgrade
// without calling the busy handler (two openers, each holding its read, would wait for each other
// for ever). Sixteen `awaywork run`s started together on a new state folder lost that race now and
// then, and one exited 2 before it made its run folder. So the setup is run again until `until`;
// every statement in it may run twice (IF NOT EXISTS, pragmas that set a value).
constexpr const char* kSetup = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;";

int exec_waiting(sqlite3* db, const char* sql, std::chrono::steady_clock::time_point until) {
  for (;;) {
    int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    int primary = rc & 0xff;
    if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
        std::chrono::steady_clock::now() >= until)
      return rc;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<UnitRecord> row_record(sqlite3_stmt* s) {
  const unsigned char* text = sqlite3_column_text(s, 0);
  auto j = nlohmann::json::parse(text ? reinterpret_cast<const char*>(text) : "", nullptr, false);
  if (j.is_discarded()) return fail("record database holds an unreadable record");
  return unit_from_json(j, "record database: a unit's record");
}

// A unit's end is written to its run folder's summary.json before the database; when only the
// file got it (the database stayed locked, the disk was full), the file has the record.
std::optional<UnitRecord> ended_in_summary(const UnitRecord& u) {
  if (u.run_dir.empty()) return std::nullopt;
  auto text = read_file(u.run_dir + "/summary.json");
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  auto read = unit_from_json(j, u.run_dir + "/summary.json");
  if (!read) return std::nullopt;  // not a record awaywork wrote
  UnitRecord& ended = *read;
  if (ended.id != u.id || ended.state == UnitState::running || ended.ended_at.empty())
    return std::nullopt;
  return ended;
}

}  // namespace

std::string process_start_time(int64_t pid) {
  auto stat = read_file(fmt::format("/proc/{}/stat", pid), 1 << 16);
  if (!stat) return "";
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  size_t p = stat->rfind(')');
  if (p == std::string::npos) return "";
  // A zombie (or dead) process has ended: it is no longer what its pid named.
  if (p + 2 < stat->size() && ((*stat)[p + 2] == 'Z' || (*stat)[p + 2] == 'X')) return "";
  int field = 2;
  size_t i = p + 1;
  while (i < stat->size() && field < 22) {
    if ((*stat)[i] == ' ') ++field;
    ++i;
  }
  size_t end = stat->find(' ', i);
  return stat->substr(i, end == std::string::npos ? std::string::npos : end - i);
}

Result<Store> Store::open(const std::string& state_dir, std::chrono::milliseconds write_patience) {
  AW_CHECK(make_dirs(state_dir, 0700));
  std::string path = state_dir + "/awaywork.db";
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(
          path.c_str(), &db,
          SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX,
          nullptr) != SQLITE_OK) {
    std::string m = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return fail("open record database {}: {}", path, m);
  }
  // Before the first statement: each then waits for another process's lock.
  sqlite3_busy_timeout(db, static_cast<int>(kBusyTimeout.count()));
  Store store(db, path, write_patience);
  // Another opener's setup holds its lock for a moment: the busy timeout is ample. Not the
  // write patience (2 minutes): on a database that exists the setup only reads, and a read that
  // cannot begin (another process holding the locks a reader needs) fails after the busy timeout,
  // as every read does, rather than leaving `awaywork units` silent for minutes.
  auto until = std::chrono::steady_clock::now() + kBusyTimeout;
  for (const char* sql : {kSetup, kSchema})
    if (int rc = exec_waiting(db, sql, until); rc != SQLITE_OK)
      return fail("set up the record database: {}", store.read_error(rc));
  return store;
}

Store::Store(Store&& o) noexcept : db_(o.db_), path_(std::move(o.path_)), patience_(o.patience_) {
  o.db_ = nullptr;
}
Store& Store::operator=(Store&& o) noexcept {
  std::swap(db_, o.db_);
  std::swap(path_, o.path_);
  std::swap(patience_, o.patience_);
  return *this;
}
Store::~Store() {
  sqlite3_close(db_);
}

int Store::step_write(sqlite3_stmt* s) {
  auto until = std::chrono::steady_clock::now() + patience_;
  for (;;) {
    int rc = sqlite3_step(s);
    int primary = rc & 0xff;
    if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
        std::chrono::steady_clock::now() >= until)
      return rc;
    sqlite3_reset(s);
    // A busy WAL snapshot answers at once rather than after the busy timeout: do not spin.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Status Store::read_all(sqlite3_stmt* s, std::string_view what, const std::function<Status()>& row,
                       const std::function<void()>& restart) {
  auto until = std::chrono::steady_clock::now() + kBusyTimeout;
  for (;;) {
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) AW_CHECK(row());
    if (rc == SQLITE_DONE) return {};
    int primary = rc & 0xff;
    if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
        std::chrono::steady_clock::now() >= until)
      return fail("read {}: {}", what, read_error(rc));
    sqlite3_reset(s);
    if (restart) restart();
    // Each step already waited the busy timeout, or the lock answered at once: do not spin.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string Store::write_error(int rc) const {
  int primary = rc & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    return fmt::format(
        "the record database {} stayed locked by another process for {} s ({}); end that "
        "process's transaction, then run again",
        path_,
        std::max<int64_t>(5, std::chrono::duration_cast<std::chrono::seconds>(patience_).count()),
        describe_lock_holders(path_));
  return fmt::format("{} ({})", sqlite3_errmsg(db_), path_);
}

std::string Store::read_error(int rc) const {
  int primary = rc & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    return fmt::format(
        "the record database {} was busy: locked by another process for {} s ({}); end that "
        "process's transaction, then run again",
        path_, std::chrono::duration_cast<std::chrono::seconds>(kBusyTimeout).count(),
        describe_lock_holders(path_));
  return fmt::format("{} ({})", sqlite3_errmsg(db_), path_);
}

Status Store::save(const UnitRecord& u) {
  Stmt st;
  const char* sql =
      "INSERT OR REPLACE INTO units(id, created_at, state, repo, agent, branch, runner_pid, "
      "runner_start, record) VALUES(?,?,?,?,?,?,?,?,?)";
  AW_CHECK(prepare(db_, sql, st));
  std::string rec = json_text(to_json(u));
  sqlite3_bind_text(st.s, 1, u.id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, u.created_at.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 3, to_string(u.state), -1, SQLITE_STATIC);
  sqlite3_bind_text(st.s, 4, u.repo.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 5, u.agent.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 6, u.branch.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st.s, 7, u.runner_pid);
  sqlite3_bind_text(st.s, 8, u.runner_start.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 9, rec.c_str(), -1, SQLITE_TRANSIENT);
  if (int rc = step_write(st.s); rc != SQLITE_DONE)
    return fail("save unit {}: {}", u.id, write_error(rc));
  return {};
}

Result<UnitRecord> Store::get(const std::string& id) {
  Stmt st;
  const char* sql = "SELECT record, id FROM units WHERE id = ?1 OR id LIKE ?2 ORDER BY id LIMIT 3";
  AW_CHECK(prepare(db_, sql, st));
  std::string like;
  for (char c : id)
    if (c != '%' && c != '_') like += c;  // a prefix, never a pattern
  like += '%';
  sqlite3_bind_text(st.s, 1, id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, like.c_str(), -1, SQLITE_TRANSIENT);
  // A lock held past the busy timeout is an error saying so, never "no unit": the unit may well
  // be there.
  std::vector<UnitRecord> found;
  AW_CHECK(read_all(
      st.s, fmt::format("unit '{}'", id),
      [&]() -> Status {
        AW_TRY(UnitRecord u, row_record(st.s));
        found.push_back(std::move(u));
        return {};
      },
      [&] { found.clear(); }));
  for (UnitRecord& u : found)
    if (u.id == id) return std::move(u);
  if (found.empty()) return fail("no unit '{}'; `awaywork units` lists them", id);
  if (found.size() > 1)
    return fail("'{}' matches several units ({}, {}, ...); give more of the id", id, found[0].id,
                found[1].id);
  return found[0];
}

Result<std::vector<UnitRecord>> Store::list(int limit) {
  Stmt st;
  const char* sql = "SELECT record FROM units ORDER BY created_at DESC, id DESC LIMIT ?";
  AW_CHECK(prepare(db_, sql, st));
  sqlite3_bind_int(st.s, 1, limit);
  std::vector<UnitRecord> out;
  AW_CHECK(read_all(
      st.s, "the units",
      [&]() -> Status {
        AW_TRY(UnitRecord u, row_record(st.s));
        out.push_back(std::move(u));
        return {};
      },
      [&] { out.clear(); }));
  return out;
}

Result<std::vector<std::string>> Store::mark_orphans_interrupted() {
  std::vector<UnitRecord> orphans;
  {
    Stmt st;
    const char* sql = "SELECT record FROM units WHERE state = 'running'";
    AW_CHECK(prepare(db_, sql, st));
    AW_CHECK(read_all(
        st.s, "the running units",
        [&]() -> Status {
          AW_TRY(UnitRecord u, row_record(st.s));
          bool alive = u.runner_pid > 0 && !u.runner_start.empty() &&
                       process_start_time(u.runner_pid) == u.runner_start;
          if (!alive) orphans.push_back(std::move(u));
          return {};
        },
        [&] { orphans.clear(); }));
  }
  std::vector<std::string> ids;
  for (auto& u : orphans) {
    if (auto ended = ended_in_summary(u)) {
      u = std::move(*ended);
      u.notes.push_back(
          "recorded at the next start from the run folder's summary.json: the database could "
          "not be written when the unit ended");
    } else {
      u.state = UnitState::interrupted;
      u.reason =
          "awaywork stopped while the unit was running (crash or kill); marked at next start";
    }
    AW_CHECK(save(u));
    ids.push_back(u.id);
  }
  return ids;
}

}  // namespace aw
