// Room kept on the state folder's filesystem for the end of a unit. The watchdog's floor stops a
// unit before the disk fills, but a disk can still fill between two of its looks (or with the
// floor off); the unit's end must then still reach its summary.json and the database, or its
// record would be left `running` and later read as a crash.
//
//   DiskReserve reserve = DiskReserve::make(dir.root + "/" + DiskReserve::kFile);  // at the start
//   ...
//   reserve.release();   // just before the record is written: the room is there again
#pragma once

#include <cstdint>
#include <string>

namespace aw {

class DiskReserve {
 public:
  // Enough for a record's summary.json and its database write. Best effort: on a disk already
  // too full for it there is no reserve (the watchdog refuses such a unit first by default).
  static constexpr uint64_t kBytes = 8u << 20;
  static constexpr const char* kFile = ".reserve";  // in the run folder; recovery removes it
  static DiskReserve make(const std::string& path, uint64_t bytes = kBytes);
  DiskReserve(DiskReserve&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  DiskReserve& operator=(DiskReserve&&) = delete;
  ~DiskReserve() { release(); }
  void release();  // removes the file; idempotent

 private:
  explicit DiskReserve(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace aw
