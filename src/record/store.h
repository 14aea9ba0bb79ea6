// The record database: STATE/awaywork.db (SQLite, WAL). One row per unit holding its record as
// JSON, plus the columns a listing needs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "record/record.h"

struct sqlite3;

namespace aw {

class Store {
 public:
  static Result<Store> open(const std::string& state_dir);
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  Status save(const UnitRecord& u);  // insert or replace
  Result<UnitRecord> get(const std::string& id_or_prefix);
  Result<std::vector<UnitRecord>> list(int limit = 100);
  // Records left `running` by a runner that no longer exists become `interrupted`.
  // Returns the ids of those it changed.
  Result<std::vector<std::string>> mark_orphans_interrupted();

 private:
  explicit Store(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

// Start time of a process (field 22 of /proc/PID/stat), "" when it does not exist.
std::string process_start_time(int64_t pid);

}  // namespace aw
