#include "unit/watchdog.h"

#include <sys/statvfs.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>

#include "base/fs.h"

namespace aw {

std::string mib_text(uint64_t bytes) {
  return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1 << 20));
}

std::optional<uint64_t> free_disk_bytes(const std::string& path) {
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) return std::nullopt;
  return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
}

namespace {

// MemTotal and MemAvailable in bytes, from /proc/meminfo.
std::optional<std::pair<uint64_t, uint64_t>> memory(const std::string& meminfo) {
  auto text = read_file(meminfo, 1 << 16);
  if (!text) return std::nullopt;
  auto field = [&](const char* name) -> std::optional<uint64_t> {
    size_t p = text->find(name);
    if (p == std::string::npos) return std::nullopt;
    unsigned long long kib = 0;
    if (std::sscanf(text->c_str() + p + std::string_view(name).size(), " %llu", &kib) != 1)
      return std::nullopt;
    return static_cast<uint64_t>(kib) * 1024;
  };
  auto total = field("MemTotal:"), avail = field("MemAvailable:");
  if (!total || !avail) return std::nullopt;
  return std::make_pair(*total, *avail);
}

}  // namespace

Watchdog::Watchdog(WatchdogLimits limits, std::vector<std::string> paths, std::string meminfo)
    : limits_(limits), paths_(std::move(paths)), meminfo_(std::move(meminfo)) {}

void Watchdog::watch(const std::string& path) {
  if (std::find(paths_.begin(), paths_.end(), path) == paths_.end()) paths_.push_back(path);
}

std::optional<std::string> Watchdog::breach() {
  if (limits_.disk_floor > 0)
    for (const auto& p : paths_) {
      auto free = free_disk_bytes(p);
      if (free && *free < limits_.disk_floor)
        return fmt::format(
            "disk below floor: the filesystem of {} has {} free, limits.disk_floor is {}; free "
            "space there (or lower the floor)",
            p, mib_text(*free), mib_text(limits_.disk_floor));
    }
  if (limits_.memory_floor_percent > 0) {
    auto mem = memory(meminfo_);
    if (mem) {
      double floor = static_cast<double>(mem->first) * limits_.memory_floor_percent / 100.0;
      if (static_cast<double>(mem->second) < floor)
        return fmt::format(
            "memory below floor: the host has {} available of {}, limits.memory_floor is {}%; "
            "stop what else is running (or lower the floor)",
            mib_text(mem->second), mib_text(mem->first), limits_.memory_floor_percent);
    }
  }
  return std::nullopt;
}

std::optional<std::string> Watchdog::poll() {
  if (seen_) return seen_;
  auto now = std::chrono::steady_clock::now();
  if (now < next_) return std::nullopt;
  next_ = now + std::chrono::milliseconds(250);
  seen_ = breach();
  return seen_;
}

}  // namespace aw
