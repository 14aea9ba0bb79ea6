// The watchdog: floors on free disk (the state folder's and the clone's filesystems) and on the
// host's available memory. Below a floor a unit does not start, and a running phase is stopped
// and the unit recorded `failed` with the reason, before git meets a full disk or the kernel's
// OOM killer picks one of the owner's programs.
//
//   Watchdog dog(cfg.limits, {state_dir});
//   if (auto why = dog.breach()) return fail(...);   // before anything is written
//   dog.watch(clone_dir);                            // once the clone exists
//   spec.cancelled = [&] { return dog.poll().has_value(); };   // cheap: reads every 250 ms
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"

namespace aw {

// What an unprivileged writer may still use on the filesystem of path (root's reserve is not a
// unit's), or nothing when it cannot be read.
std::optional<uint64_t> free_disk_bytes(const std::string& path);
// "12 MiB"
std::string mib_text(uint64_t bytes);

class Watchdog {
 public:
  Watchdog(WatchdogLimits limits, std::vector<std::string> paths,
           std::string meminfo = "/proc/meminfo");
  void watch(const std::string& path);  // another folder whose filesystem must keep the floor
  // Why the unit must not go on ("disk below floor: ..."), or nothing. Reads now.
  std::optional<std::string> breach();
  // breach(), at most every 250 ms; a breach once seen stays.
  std::optional<std::string> poll();

 private:
  WatchdogLimits limits_;
  std::vector<std::string> paths_;
  std::string meminfo_;
  std::chrono::steady_clock::time_point next_{};
  std::optional<std::string> seen_;
};

}  // namespace aw
