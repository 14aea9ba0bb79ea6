#include "watch/status.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "base/json_read.h"
#include "record/store.h"
#include "watch/iso_time.h"
#include "watch/slot.h"

namespace aw {

using nlohmann::json;

namespace {

json when(int64_t t) {
  return t > 0 ? json(iso_utc(t)) : json();
}

json repo_json(const RepoBeat& r) {
  return {{"repo", r.repo},
          {"polled_at", when(r.polled_at)},
          {"next_poll_at", when(r.next_poll)},
          {"requests", r.requests},
          {"rate_limit", r.rate_limit < 0 ? json()
                                          : json{{"remaining", r.rate_remaining},
                                                 {"limit", r.rate_limit},
                                                 {"reset_at", when(r.rate_reset)}}}};
}

// Read through JsonRead (base/json_read.h): a wrongly typed field is an Error naming it.
Result<WatcherBeat> beat_from(const json& j) {
  JsonRead r(j, "watch state watcher");
  WatcherBeat b;
  AW_TRY(b.host, r.str_or("host", ""));
  AW_TRY(b.start, r.str_or("start", ""));
  AW_TRY(b.pid, r.int_or("pid", int64_t{0}));
  AW_TRY(b.started_at, r.int_or("started_at", int64_t{0}));
  AW_TRY(b.beat_at, r.int_or("beat_at", int64_t{0}));
  AW_TRY(b.stopped_at, r.int_or("stopped_at", int64_t{0}));
  AW_TRY(b.stopping, r.bool_or("stopping", false));
  AW_TRY(std::vector<JsonRead> repos, r.array_or("repos"));
  for (const JsonRead& e : repos) {
    RepoBeat rb;
    AW_TRY(rb.repo, e.str_or("repo", ""));
    AW_TRY(rb.polled_at, e.int_or("polled_at", int64_t{0}));
    AW_TRY(rb.next_poll, e.int_or("next_poll", int64_t{0}));
    AW_TRY(rb.rate_remaining, e.int_or("rate_remaining", int64_t{-1}));
    AW_TRY(rb.rate_limit, e.int_or("rate_limit", int64_t{-1}));
    AW_TRY(rb.rate_reset, e.int_or("rate_reset", int64_t{-1}));
    AW_TRY(rb.requests, e.int_or("requests", int64_t{0}));
    b.repos.push_back(std::move(rb));
  }
  return b;
}

// Alive: its pid runs and is the same process (its start time), and it has not said it stopped.
bool alive(const WatcherBeat& b) {
  return b.stopped_at == 0 && b.pid > 0 && !b.start.empty() && process_start_time(b.pid) == b.start;
}

json claim_json(const IssueSlot& s) {
  return {{"repo", s.repo},
          {"issue", s.number},
          {"phase", s.phase},
          {"comment", s.claim_comment},
          {"since", when(s.claim_since)},
          {"unit", s.unit_id.empty() ? json() : json(s.unit_id)},
          {"attempts", s.attempts},
          {"trigger", s.trigger},
          {"pull", s.pull},          // a follow-up of a pull request (issue 26): no claim comment
          {"merge_request", s.mr}};  // a GitLab merge request's: `issue` is its iid
}

json queued_json(const IssueSlot& s) {
  return {{"repo", s.repo},
          {"issue", s.number},
          {"queued_at", when(s.queued_at)},
          {"not_before", when(s.not_before)},
          {"trigger", s.trigger},
          {"attempts", s.attempts},
          {"requeued", s.requeued},
          {"pull", s.pull},
          {"merge_request", s.mr}};
}

}  // namespace

Status write_beat(Store& store, const WatcherBeat& b) {
  json repos = json::array();
  for (const RepoBeat& r : b.repos)
    repos.push_back({{"repo", r.repo},
                     {"polled_at", r.polled_at},
                     {"next_poll", r.next_poll},
                     {"rate_remaining", r.rate_remaining},
                     {"rate_limit", r.rate_limit},
                     {"rate_reset", r.rate_reset},
                     {"requests", r.requests}});
  return store.watch_put("watcher", {{"host", b.host},
                                     {"start", b.start},
                                     {"pid", b.pid},
                                     {"started_at", b.started_at},
                                     {"beat_at", b.beat_at},
                                     {"stopped_at", b.stopped_at},
                                     {"stopping", b.stopping},
                                     {"repos", repos}});
}

Result<json> watcher_status(Store& store) {
  // A row that is not as watch wrote it (a corrupt or edited database) is named in "unreadable"
  // with its error, and the rest is shown: one bad slot must not hide every other issue's claim.
  json unreadable = json::array();
  auto named = [&](const std::string& key, const Error& e) {
    unreadable.push_back({{"key", key}, {"error", e.message}});
  };
  AW_TRY(auto slots, store.watch_list("issue/"));
  json claims = json::array(), queue = json::array();
  std::vector<IssueSlot> queued;
  for (const auto& [key, j] : slots) {
    auto s = slot_from_json(j, "watch state " + key);
    if (!s) {
      named(key, s.error());
      continue;
    }
    if (s->phase == "claiming" || s->phase == "running") claims.push_back(claim_json(*s));
    if (s->phase == "queued") queued.push_back(std::move(*s));
  }
  // The order watch starts them in.
  std::sort(queued.begin(), queued.end(), [](const IssueSlot& a, const IssueSlot& b) {
    return a.queued_at != b.queued_at ? a.queued_at < b.queued_at : a.number < b.number;
  });
  for (const IssueSlot& s : queued) queue.push_back(queued_json(s));
  json out = {{"claims", claims}, {"queue", queue}};
  auto beat_json = store.watch_get("watcher");
  std::optional<WatcherBeat> beat;
  if (!beat_json) {
    named("watcher", beat_json.error());
  } else if (*beat_json) {
    auto read = beat_from(**beat_json);
    if (read)
      beat = std::move(*read);
    else
      named("watcher", read.error());
  }
  out["unreadable"] = unreadable;
  if (!beat) {
    out["watching"] = false;
    out["repos"] = json::array();
    out["message"] =
        beat_json && !*beat_json
            ? "awaywork watch has not run with this state folder; start it with `awaywork watch` "
              "(docs/watch.md)"
            : "awaywork watch's beat in the state database is unreadable (see unreadable); "
              "whether it runs is unknown until it writes its next beat";
    return out;
  }
  const WatcherBeat& b = *beat;
  bool up = alive(b);
  json repos = json::array();
  for (const RepoBeat& r : b.repos) repos.push_back(repo_json(r));
  out.update({{"watching", up},
              {"host", b.host},
              {"pid", b.pid},
              {"started_at", when(b.started_at)},
              {"beat_at", when(b.beat_at)},
              {"stopped_at", when(b.stopped_at)},
              {"stopping", up && b.stopping},
              {"repos", repos}});
  if (!up)
    out["message"] = b.stopped_at > 0
                         ? "awaywork watch stopped; start it again with `awaywork watch`"
                         : "awaywork watch is not running (it was killed or crashed); start it "
                           "again with `awaywork watch`: it continues where it stopped";
  return out;
}

}  // namespace aw
