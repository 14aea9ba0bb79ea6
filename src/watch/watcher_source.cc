// Task source plugins in watch (issue 28, docs/plugins.md#tasks-source): each poll calls every
// watched source's `tasks`, takes each new task once (its row in the state database, written
// before its unit starts, so that no restart runs it twice), refuses those whose author the
// repository would not admit, runs the others as `awaywork run --repo NAME --prompt-file F` with a
// task awaywork built (plugin/source.h: cleaned, fenced, under awaywork's own words), and reports
// each unit's end back with `task_done`. A plugin that fails, crashes or answers garbage gives no
// tasks and one `source_failed` line in the event log; a failed task_done is logged and changes
// nothing (the task stays done). Under isolation user a call refused because a unit holds the
// worker is "not now" (watch/source_defer.h): one `source_deferred` line as the source begins
// deferring, the poll asked again at the next one, a task_done kept in the task's row and made at
// a later poll.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <unistd.h>

#include "base/fs.h"
#include "check/redact.h"
#include "config/paths.h"
#include "plugin/call.h"
#include "plugin/protocol.h"
#include "plugin/source.h"
#include "unit/notify.h"
#include "unit/plugin_secrets.h"
#include "watch/iso_time.h"
#include "watch/source_task.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"

namespace aw {

using nlohmann::json;

namespace {

std::string source_prefix(const std::string& plugin, const std::string& repo) {
  return "source/" + plugin + "/" + repo + "/";
}

// The plugins' host, and in the debug tree only the tests' hook: AWAYWORK_TEST_PLUGIN_HOSTS="HOST
// ..." makes a plugin's egress proxy reach each HOST at 127.0.0.1 (a fake tracker). Never read by
// a release build (AW_TEST_HOOKS, CMakeLists.txt).
PluginHost source_host(const Config& cfg) {
  PluginHost host = plugin_host(cfg);
#ifdef AW_TEST_HOOKS
  if (const char* v = std::getenv("AWAYWORK_TEST_PLUGIN_HOSTS"); v && *v) {
    std::istringstream in(v);
    for (std::string h; in >> h;) host.test_static_hosts[h] = "127.0.0.1";
  }
#endif
  return host;
}

// The host of a call watch defers while a unit holds the worker: busy is set when it was refused
// for that (plugin/call.h's PluginWorker::unit_busy), before anything of the plugin ran.
PluginHost deferrable_host(const Config& cfg, bool& busy) {
  PluginHost host = source_host(cfg);
  if (host.worker) host.worker->unit_busy = [&busy] { busy = true; };
  return host;
}

std::string text_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

json where(const std::string& plugin, const std::string& repo, const std::string& id) {
  json j = {{"source", plugin}, {"repo", repo}};
  if (!id.empty()) j["task"] = id;
  return j;
}

}  // namespace

void Watcher::open_sources() {
  for (const WatchSourceConfig& w : cfg_.watch.sources) sources_.push_back(Source{w});
  if (!sources_.empty()) recover_sources();
}

void Watcher::tick_sources(int64_t now) {
  if (!stopping_)
    for (Source& s : sources_)
      if (now >= s.next_poll && !(opt_.once && s.polled)) poll_source(s, now);
  watch_source_units(now);
  if (!stopping_) start_source_tasks(now);
}

void Watcher::recover_sources() {
  auto all = store_->watch_list("source/");
  if (!all) {
    log_.write("error", {{"error", "state database: " + all.error().message}});
    return;
  }
  int64_t now = clock_.now_seconds();
  for (auto& [key, j] : *all) {
    if (!j.is_object()) continue;
    std::string phase = j.value("phase", ""), plugin = j.value("plugin", ""),
                repo = j.value("repo", "");
    if (phase != "queued" && phase != "starting" && phase != "running") continue;
    auto s = std::find_if(sources_.begin(), sources_.end(), [&](const Source& x) {
      return x.watch.plugin == plugin && x.watch.repo == repo;
    });
    if (s == sources_.end()) continue;  // no longer watched: left as it is
    SourceRun run;
    run.key = key, run.plugin = plugin, run.repo = repo, run.id = j.value("id", "");
    run.prompt_file = j.value("prompt_file", "");
    run.queued_at = j.value("queued_at", int64_t{0});
    run.unit_id = j.value("unit", "");
    int64_t pid = j.value("pid", int64_t{0});
    std::string start = j.value("start", "");
    if (phase == "running" && pid > 0 && !start.empty() && process_start_time(pid) == start) {
      run.child = UnitChild::adopt(static_cast<pid_t>(pid), start);
      ++s->running;
      log_.write("adopted", watch_detail::with(where(plugin, repo, run.id), {{"pid", pid}}));
      source_runs_.emplace(key, std::move(run));
    } else if (phase == "running" || phase == "starting") {
      // Its unit ran (or may have begun), and watch died before it ended: reported as it ended,
      // never run again.
      run.stop_reason = "watch stopped (killed or crashed) while the unit was running";
      run.child = UnitChild::adopt(static_cast<pid_t>(pid), start);  // only to find its unit
      ++s->running;
      finish_source(run, -1, now);
    } else {
      source_runs_.emplace(key, std::move(run));  // taken, never started: starts now
    }
  }
}

void Watcher::poll_source(Source& s, int64_t now) {
  const WatchSourceConfig& w = s.watch;
  s.polled = true;
  s.next_poll = now + cfg_.watch.poll_seconds;
  auto plugin = cfg_.plugins.plugins.find(w.plugin);
  auto repo = cfg_.repos.find(w.repo);
  if (plugin == cfg_.plugins.plugins.end() || repo == cfg_.repos.end()) return;  // config checked
  std::string prefix = source_prefix(w.plugin, w.repo);
  std::vector<std::string> taken;
  auto rows = store_->watch_list(prefix);
  if (rows)
    for (auto& [key, _] : *rows) taken.push_back(key.substr(prefix.size()));
  // The reports a busy worker held back go first; while it is still busy the poll would be
  // refused as well, and waits for the next one.
  if (rows && !report_pending(s, *rows)) return;
  // A hint to the plugin, not the rule (the state database is): capped so that a source watched
  // for years does not send an ever longer request.
  if (taken.size() > kSourceTakenHint) taken.erase(taken.begin(), taken.end() - kSourceTakenHint);
  bool busy = false;
  PluginHost host = deferrable_host(cfg_, busy);
  // The source's declared secrets, from the owner's store (opened only when it declares one); the
  // tasks come back redacted of every value the call read (plugin/source.h).
  PluginSecrets secrets;
  secrets.lend_to(host);
  auto tasks = fetch_source_tasks(plugin->second, host, w.repo, taken);
  if (!tasks && busy) {
    // Not the plugin's failure: nothing of it ran. Asked again at the next poll.
    source_deferred(s, tasks.error().message);
    return;
  }
  s.defer.through();
  if (!tasks) {
    // Fail closed: nothing of a failed or garbled answer is taken. The message is awaywork's,
    // with the plugin's own words in it made inert (plugin/protocol.h).
    log_.write("source_failed", watch_detail::with(where(w.plugin, w.repo, ""),
                                                   {{"error", tasks.error().message},
                                                    {"next_in", cfg_.watch.poll_seconds}}));
    return;
  }
  log_.write("source_polled",
             watch_detail::with(where(w.plugin, w.repo, ""), {{"tasks", tasks->size()}}));
  for (const SourceTask& t : *tasks) {
    std::string key = prefix + t.id;
    auto known = store_->watch_get(key);
    if (!known) {
      log_.write("error",
                 watch_detail::with(where(w.plugin, w.repo, t.id),
                                    {{"error", "state database: " + known.error().message}}));
      continue;
    }
    if (*known) continue;  // taken before: each task runs once
    const ForgeRepoConfig& f = repo->second.forge;
    SourceAdmission adm = admit_source_task(t, f.trust, f.stop_after, now, w.plugin);
    json row = {{"plugin", w.plugin},
                {"repo", w.repo},
                {"id", t.id},
                {"taken_at", now},
                {"reason", adm.reason}};
    if (!adm.admitted) {
      row["phase"] = "refused";
      (void)store_->watch_put(key, row);
      log_.write("task_refused",
                 watch_detail::with(where(w.plugin, w.repo, t.id), {{"reason", adm.reason}}));
      continue;
    }
    // The task as awaywork built it, in the owner's 0700 state folder; the unit reads it as its
    // --prompt-file. The id's characters are all a file name's, behind a prefix of the owner's.
    std::string dir = state_dir_of(cfg_) + "/watch/source-tasks";
    (void)make_dirs(dir, 0700);
    std::string file = fmt::format("{}/{}-{}-{}.md", dir, w.plugin, w.repo, t.id);
    if (auto ok = write_file(file, build_source_task(w.plugin, t, adm.reason), 0600); !ok) {
      log_.write("error", watch_detail::with(where(w.plugin, w.repo, t.id),
                                             {{"error", ok.error().message}}));
      continue;
    }
    row["phase"] = "queued";
    row["prompt_file"] = file;
    row["queued_at"] = now;
    if (auto ok = store_->watch_put(key, row); !ok) {
      // Not recorded as taken: not run either (it could run again after a restart).
      log_.write("error", watch_detail::with(where(w.plugin, w.repo, t.id),
                                             {{"error", "state database: " + ok.error().message}}));
      (void)::unlink(file.c_str());
      continue;
    }
    log_.write("task_queued",
               watch_detail::with(where(w.plugin, w.repo, t.id), {{"trust", adm.reason}}));
    SourceRun run;
    run.key = key, run.plugin = w.plugin, run.repo = w.repo, run.id = t.id;
    run.prompt_file = file;
    run.queued_at = now;
    source_runs_.emplace(key, std::move(run));
  }
}

void Watcher::start_source_tasks(int64_t now) {
  std::vector<SourceRun*> queued;
  for (auto& [_, run] : source_runs_)
    if (!run.child) queued.push_back(&run);
  std::sort(queued.begin(), queued.end(), [](auto* a, auto* b) {
    return a->queued_at != b->queued_at ? a->queued_at < b->queued_at : a->key < b->key;
  });
  for (SourceRun* run : queued) {
    int busy = 0;
    for (const auto& [_, r] : source_runs_) busy += r.child ? 1 : 0;
    if (static_cast<int>(children_.size()) + busy >= cfg_.watch.max_units) return;
    auto s = std::find_if(sources_.begin(), sources_.end(), [&](const Source& x) {
      return x.watch.plugin == run->plugin && x.watch.repo == run->repo;
    });
    if (s == sources_.end() || s->running >= s->watch.max_units) continue;
    // Recorded before the spawn: a watch killed between the two finds "starting" and reports
    // the task ended rather than start it a second time (a unit may have begun).
    json row = {{"plugin", run->plugin},
                {"repo", run->repo},
                {"id", run->id},
                {"phase", "starting"},
                {"prompt_file", run->prompt_file},
                {"queued_at", run->queued_at}};
    if (auto ok = store_->watch_put(run->key, row); !ok) {
      log_.write("error", watch_detail::with(where(run->plugin, run->repo, run->id),
                                             {{"error", "state database: " + ok.error().message}}));
      continue;  // stays queued: tried again on the next tick
    }
    std::string log;
    auto child =
        spawn_unit({"run", "--repo", run->repo, "--prompt-file", run->prompt_file, "--json"},
                   fmt::format("{}-{}-{}", run->plugin, run->repo, run->id), now, log);
    ++s->running;
    if (!child) {
      log_.write("error", watch_detail::with(where(run->plugin, run->repo, run->id),
                                             {{"error", child.error().message}}));
      finish_source(*run, 127, now);
      std::string key = run->key;  // not a reference into the node erase destroys
      source_runs_.erase(key);
      continue;
    }
    row["phase"] = "running";
    row["pid"] = child->pid();
    row["start"] = child->start_time();
    (void)store_->watch_put(run->key, row);
    log_.write("unit_spawned", watch_detail::with(where(run->plugin, run->repo, run->id),
                                                  {{"pid", child->pid()}, {"log", log}}));
    run->child.emplace(std::move(*child));
  }
}

void Watcher::watch_source_units(int64_t now) {
  std::vector<std::string> ended;
  for (auto& [key, run] : source_runs_) {
    if (!run.child) continue;
    if (run.unit_id.empty()) {
      auto u = store_->by_runner(run.child->pid());
      if (u && *u && (**u).runner_start == run.child->start_time()) {
        run.unit_id = (**u).id;
        log_.write("unit_started", watch_detail::with(where(run.plugin, run.repo, run.id),
                                                      {{"unit", run.unit_id}}));
      }
    }
    // Past the shutdown grace the unit is stopped like an issue's; its task is reported ended.
    if (stopping_ && now >= stop_deadline_ && run.stop_reason.empty()) {
      run.stop_reason = "watch stopped";
      run.child->terminate();
    }
    if (auto status = run.child->reap()) {
      finish_source(run, *status, now);
      ended.push_back(key);
    }
  }
  for (const auto& key : ended) source_runs_.erase(key);
}

void Watcher::finish_source(SourceRun& run, int exit_status, int64_t now) {
  auto s = std::find_if(sources_.begin(), sources_.end(), [&](const Source& x) {
    return x.watch.plugin == run.plugin && x.watch.repo == run.repo;
  });
  if (s != sources_.end()) s->running = std::max(s->running - 1, 0);
  IssueSlot slot;  // what ended_unit needs to find the unit and say why watch stopped it
  slot.unit_id = run.unit_id;
  slot.stop_reason = run.stop_reason;
  if (run.child) {
    slot.child_pid = run.child->pid();
    slot.child_start = run.child->start_time();
  }
  std::optional<UnitRecord> unit = ended_unit(slot);
  SourceTaskEnd end;
  end.task = run.id;
  end.repo = run.repo;
  if (unit) {
    // The notifiers' words for the same outcome (unit/notify.h), so the two never disagree.
    json said = unit_ended_params(*unit, unit->reason);
    auto text = [&](const char* k) {
      return said.contains(k) && said[k].is_string() ? said[k].get<std::string>() : "";
    };
    end.unit = unit->id;
    end.state = text("state"), end.reason = text("reason"), end.verdict = text("verdict");
    end.pull_request = text("pull_request"), end.branch = text("branch");
    end.commit = text("commit"), end.ended_at = text("ended_at");
  } else {
    end.state = "failed";
    end.reason = fmt::format("the unit did not start (exit {}; see the watch log)", exit_status);
    end.ended_at = iso_utc(now);
  }
  json params = task_done_params(end);
  const std::string& state = end.state;
  // Recorded before the plugin is told: whatever it answers, the task is done and never runs again.
  json done = {{"plugin", run.plugin}, {"repo", run.repo}, {"id", run.id},   {"phase", "done"},
               {"unit", end.unit},     {"state", state},   {"ended_at", now}};
  (void)store_->watch_put(run.key, done);
  if (!run.prompt_file.empty()) (void)::unlink(run.prompt_file.c_str());
  std::string error;
  bool busy = false;
  PluginHost host = deferrable_host(cfg_, busy);
  PluginSecrets secrets;
  secrets.lend_to(host);
  auto plugin = cfg_.plugins.plugins.find(run.plugin);
  if (plugin == cfg_.plugins.plugins.end()) {
    error = "the plugin is no longer declared";
  } else if (auto call = call_plugin(plugin->second, host, kTaskDoneMethod, params); !call) {
    // The plugin's own words in it are inert already; its secrets are redacted.
    error = redact_all(call.error().message, secrets.redaction({}));
  }
  if (busy) {
    // A unit holds the worker: the report is kept in the task's row (a restart keeps it too) and
    // made at a later poll, never dropped for it.
    if (auto ok = store_->watch_put(run.key, with_pending_report(done, params)); !ok)
      log_.write("error", watch_detail::with(where(run.plugin, run.repo, run.id),
                                             {{"error", "state database: " + ok.error().message}}));
    if (s != sources_.end()) source_deferred(*s, error);
  } else if (s != sources_.end() && plugin != cfg_.plugins.plugins.end()) {
    s->defer.through();
  }
  log_.write("task_done",
             watch_detail::with(where(run.plugin, run.repo, run.id), {{"unit", end.unit},
                                                                      {"state", state},
                                                                      {"reported", error.empty()},
                                                                      {"pending", busy},
                                                                      {"error", error}}));
}

bool Watcher::report_pending(Source& s, const std::vector<std::pair<std::string, json>>& rows) {
  auto plugin = cfg_.plugins.plugins.find(s.watch.plugin);
  if (plugin == cfg_.plugins.plugins.end()) return true;  // kept until it is declared again
  std::string prefix = source_prefix(s.watch.plugin, s.watch.repo);
  for (const auto& [key, row] : rows) {
    std::optional<json> params = pending_report(row);
    if (!params) continue;
    std::string id = key.substr(prefix.size());
    bool busy = false;
    std::string error;
    PluginHost host = deferrable_host(cfg_, busy);
    PluginSecrets secrets;
    secrets.lend_to(host);
    if (auto call = call_plugin(plugin->second, host, kTaskDoneMethod, *params); !call) {
      if (busy) {
        source_deferred(s, call.error().message);
        return false;  // kept, as the rest: the next poll tries again
      }
      error = redact_all(call.error().message, secrets.redaction({}));
    }
    s.defer.through();
    // Made, or failed for another reason: logged as at the unit's end, and kept no longer (a
    // plugin that fails is not asked again and again).
    if (auto ok = store_->watch_put(key, without_pending_report(row)); !ok)
      log_.write("error", watch_detail::with(where(s.watch.plugin, s.watch.repo, id),
                                             {{"error", "state database: " + ok.error().message}}));
    log_.write("task_reported", watch_detail::with(where(s.watch.plugin, s.watch.repo, id),
                                                   {{"unit", text_of(*params, "unit")},
                                                    {"state", text_of(*params, "state")},
                                                    {"reported", error.empty()},
                                                    {"error", error}}));
  }
  return true;
}

void Watcher::source_deferred(Source& s, const std::string& why) {
  if (!s.defer.refused()) return;  // deferring already: said once
  log_.write("source_deferred",
             watch_detail::with(where(s.watch.plugin, s.watch.repo, ""),
                                {{"reason", why}, {"next_in", cfg_.watch.poll_seconds}}));
}

bool Watcher::sources_idle() const {
  for (const auto& [_, run] : source_runs_)
    if (run.child || !stopping_) return false;
  if (!opt_.once) return true;
  for (const Source& s : sources_)
    if (!s.polled) return false;
  return true;
}

}  // namespace aw
