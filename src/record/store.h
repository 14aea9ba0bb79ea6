// The record database: STATE/awaywork.db (SQLite, WAL). One row per unit holding its record as
// JSON, plus the columns a listing needs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "record/record.h"

struct sqlite3;
struct sqlite3_stmt;

namespace aw {

// A page of the listing, newest first; empty filters match every unit.
struct UnitQuery {
  std::string state, repo;
  int64_t issue = 0;  // the forge issue a unit came from (0 = any)
  int limit = 50, offset = 0;
};
struct UnitPage {
  std::vector<UnitRecord> units;
  int64_t total = 0;  // matching units, over every page
};
// Sum and count of recorded phase durations by phase name (for /metrics).
struct PhaseStat {
  std::string name;
  int64_t count = 0, total_ms = 0;
};

// What awaywork's GitHub client spent on one forge API, summed over the units and commands that
// used it (for /metrics); the rate limit as last seen (-1 unknown).
struct ForgeUsage {
  std::string api;  // the forge's api_url
  int64_t requests = 0, not_modified = 0, retries = 0, waited_ms = 0;
  int64_t rate_remaining = -1, rate_limit = -1, rate_reset = -1;
  std::string updated_at;
};

// How long a unit's record waits for another process's write lock on the database (an owner's
// sqlite3 session in a transaction, a backup) before its write fails naming the holder. Each try
// waits SQLite's busy timeout (5 s); a record is written whole each time, so a later write carries
// whatever an earlier one that gave up did not.
inline constexpr std::chrono::milliseconds kRecordWritePatience = std::chrono::minutes(2);
// SQLite's busy timeout on the record database: how long one step waits for another process's
// lock, and how long a read waits in all before it says the database was busy.
inline constexpr std::chrono::milliseconds kBusyTimeout = std::chrono::seconds(5);

class Store {
 public:
  static Result<Store> open(const std::string& state_dir,
                            std::chrono::milliseconds write_patience = kRecordWritePatience);
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  Status save(const UnitRecord& u);  // insert or replace
  Result<UnitRecord> get(const std::string& id_or_prefix);
  Result<std::vector<UnitRecord>> list(int limit = 100);
  // store_query.cc: the listing, filtered and paged, and the aggregates /metrics reports.
  Result<UnitPage> page(const UnitQuery& q);
  Result<std::vector<std::pair<std::string, int64_t>>> count_by_state();
  Result<std::vector<PhaseStat>> phase_stats();
  // store_forge.cc: counts added to the API's row; a known rate limit replaces the last one.
  Status add_forge_usage(const ForgeUsage& delta);
  Result<std::vector<ForgeUsage>> forge_usage();
  // The unit whose runner is this process (pid and /proc start time), if it made one yet.
  Result<std::optional<UnitRecord>> by_runner(int64_t pid);
  // Records left `running` by a runner that no longer exists become `interrupted`, or what the
  // unit's run folder's summary.json says when its end reached that file but not the database.
  // Returns the ids of those it changed.
  Result<std::vector<std::string>> mark_orphans_interrupted();

  // watch_state.cc: what `awaywork watch` keeps across restarts (ETags, the last event and
  // comment it handled per issue, claims, the queue), as JSON values under its own keys.
  Status watch_put(const std::string& key, const nlohmann::json& value);
  Result<std::optional<nlohmann::json>> watch_get(const std::string& key);
  // Every key starting with prefix, with its value, in key order; a value that is not JSON is
  // there discarded (is_discarded()), so that one corrupt row does not hide the others.
  Result<std::vector<std::pair<std::string, nlohmann::json>>> watch_list(const std::string& prefix);
  Status watch_erase(const std::string& key);

 private:
  Store(sqlite3* db, std::string path, std::chrono::milliseconds patience)
      : db_(db), path_(std::move(path)), patience_(patience) {}
  // sqlite3_step, tried again while another process holds the write lock, up to patience_.
  int step_write(sqlite3_stmt* s);
  // A read statement run to its end, row() called on each row. A lock that answers at once (a WAL
  // index being recovered) runs it again from its first row (restart() drops what row() kept)
  // until kBusyTimeout has passed; a lock held longer, or any other failure, is an error naming
  // what was read, never an empty answer: "nothing there" may well be wrong.
  Status read_all(sqlite3_stmt* s, std::string_view what, const std::function<Status()>& row,
                  const std::function<void()>& restart);
  std::string write_error(int rc) const;
  // A read's failed step: a lock held past kBusyTimeout says so and who holds it.
  std::string read_error(int rc) const;
  sqlite3* db_ = nullptr;
  std::string path_;
  std::chrono::milliseconds patience_{};
};

// Start time of a process (field 22 of /proc/PID/stat), "" when it does not exist or has ended
// (a zombie): a pid and its start time name one live process.
std::string process_start_time(int64_t pid);

}  // namespace aw
