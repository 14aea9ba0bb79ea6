// The watcher's beat: every few seconds (and when it stops) it writes what it is doing for serve's
// GET /api/v1/watcher (watch/status.h) and adds what its forge clients spent since the last beat
// to the forge usage record, so /metrics counts the polls too.
#include "forge/gitlab/session.h"
#include "record/store.h"
#include "unit/unit_id.h"
#include "watch/status.h"
#include "watch/watcher.h"

namespace aw {

void Watcher::beat(int64_t now, bool stopped) {
  beat_at_ = now;
  WatcherBeat b;
  b.host = me_.host;
  b.pid = me_.pid;
  b.start = process_start_time(me_.pid);
  b.started_at = started_at_;
  b.beat_at = now;
  b.stopped_at = stopped ? now : 0;
  b.stopping = stopping_;
  for (Repo& r : repos_) {
    // Either forge's client counts in one shape (GitLab::Stats is GitHub::Stats).
    const GitHub::Stats& st = r.s ? r.s->gh.stats() : r.gl->gl.stats();
    b.repos.push_back({r.watch.repo, r.polled_at, r.next_poll, st.rate_remaining, st.rate_limit,
                       st.rate_reset, st.requests});
    ForgeUsage d;
    d.api = r.s ? r.s->forge.api_url : r.gl->forge.api_url;
    d.requests = st.requests - r.saved.requests;
    d.not_modified = st.not_modified - r.saved.not_modified;
    d.retries = st.retries - r.saved.retries;
    d.waited_ms = st.waited_ms - r.saved.waited_ms;
    d.rate_remaining = st.rate_remaining;
    d.rate_limit = st.rate_limit;
    d.rate_reset = st.rate_reset;
    d.updated_at = iso_now();
    if (d.requests > 0 || d.retries > 0) {
      if (store_->add_forge_usage(d)) r.saved = st;
    }
  }
  if (auto ok = write_beat(*store_, b); !ok)
    log_.write("error", {{"error", "state database: " + ok.error().message}});
}

}  // namespace aw
