// What a watcher tells those who look (GET /api/v1/watcher, the dashboard): whether it runs, its
// repositories' polls and rate limits, the issues it has claimed and the ones queued. The running
// watcher writes its beat into the state database (record/store.h watch_state, key "watcher");
// watcher_status() reads it back with the issue slots, from any process.
//
//   AW_CHECK(write_beat(store, beat));              // the watcher, every few seconds
//   AW_TRY(nlohmann::json view, watcher_status(store));  // serve
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

class Store;

struct RepoBeat {
  std::string repo;  // the repos: name
  int64_t polled_at = 0, next_poll = 0;
  int64_t rate_remaining = -1, rate_limit = -1, rate_reset = -1;  // -1: not seen yet
  int64_t requests = 0;
};

struct WatcherBeat {
  std::string host, start;  // start: the process's /proc start time (tells a reused pid apart)
  int64_t pid = 0;
  int64_t started_at = 0, beat_at = 0, stopped_at = 0;  // Unix seconds; stopped_at 0 = running
  bool stopping = false;
  std::vector<RepoBeat> repos;
};

Status write_beat(Store& store, const WatcherBeat& beat);

// {"watching": bool, "host", "pid", "started_at", "beat_at", "stopped_at", "stopping",
//  "repos": [...], "claims": [...], "queue": [...], "message"}; times as ISO 8601 UTC.
Result<nlohmann::json> watcher_status(Store& store);

}  // namespace aw
