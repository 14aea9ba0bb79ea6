// `awaywork watch`: one loop for every watched repository. It polls each repository's changed
// issues with conditional requests (a 304 costs nothing against the rate limit), honours
// X-Poll-Interval and the rate-limit headers, finds admitted triggers (triggers.h), queues their
// issues, claims them (claim.h) and runs each as `awaywork run --issue` (child.h) within the
// limits and the window, then ends the claim. The pull requests of the same list become
// follow-up units, `awaywork run --pr` (watcher_pulls.cc). With run_on: actions it dispatches the
// repository's awaywork workflow instead, for issues and follow-ups alike, and follows the run
// on the claim comment (watcher_actions.cc). Everything it knows is in the state database, so a
// restart, even after kill -9, continues: an interrupted unit is released (or retried per
// on_failure), never run twice.
//
//   EventLog log = *EventLog::open("");
//   Watcher w(cfg, {.once = true, .self_exe = self_exe(), .stop = interrupted}, log,
//             system_clock());
//   AW_CHECK(w.run());
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "forge/http.h"
#include "forge/session.h"
#include "record/store.h"
#include "watch/child.h"
#include "watch/claim.h"
#include "watch/event_log.h"
#include "watch/slot.h"
#include "watch/source_defer.h"
#include "watch/watch_forge.h"

namespace aw {

struct GitLabSession;
class GitLabWatchReader;
struct TriggerScan;
struct PollState;
struct ListAnswer;

struct WatchOptions {
  bool once = false;                    // one pass; return when the units it started have ended
  std::string self_exe;                 // the awaywork binary the units run with
  std::function<bool()> stop;           // SIGTERM/SIGINT asked: stop claiming, let units finish
  std::chrono::milliseconds tick{500};  // how often running units are looked at
};

class Watcher {
 public:
  Watcher(const Config& cfg, WatchOptions opt, EventLog& log, Clock& clock);
  ~Watcher();
  // Opens every repository's forge, recovers what a previous watch left, then loops until
  // stopped (or, with once, until its pass is done). Returns an Error only when it cannot start.
  Status run();

 private:
  struct Repo {
    WatchRepoConfig watch;
    RepoConfig repo;
    std::unique_ptr<ForgeSession> s;
    int64_t next_poll = 0, polled_at = 0;
    int64_t next_prune = 0;  // prune_dispatched_runs: not before (watcher_actions_own.cc)
    bool polled = false;
    int running = 0;
    GitHub::Stats saved;  // what the forge usage record already holds of this session
    // A GitLab project's session and reader (then s is null; watcher_gitlab.cc).
    std::shared_ptr<GitLabSession> gl;
    std::shared_ptr<GitLabWatchReader> glr;
    // Claims, labels and admission on either forge; last, so it goes before what it refers to.
    std::unique_ptr<WatchForge> forge;
  };

  // watcher.cc: the loop and polling.
  Status open_repos();
  void poll(Repo& r, int64_t now);
  // False when it could not finish (the next poll examines the issue again).
  bool examine(Repo& r, const nlohmann::json& issue, int64_t now);
  bool done_once() const;
  // What a scan of an issue's triggers found: logged, the issue queued on an admitted one.
  void take_triggers(Repo& r, IssueSlot& slot, const TriggerScan& scan, int64_t now);
  // The repository's stop_after: the lower of watch's and the forge's (0 = none).
  int64_t stop_after_of(const Repo& r) const;
  // The issue's slot: kept in this watch, else the state database's. False (logged) when the
  // database could not be read: the issue is not settled, and the next poll examines it again.
  // mr: a GitLab merge request's slot (slot.h), apart from the issue of the same number.
  bool slot_of(const Repo& r, int64_t n, IssueSlot& slot, bool mr = false);
  // The repository's poll state under key ("poll/REPO"; a GitLab project's merge requests:
  // "pollmr/REPO"; none kept: a first poll's). False (logged as poll_failed, polled again after
  // poll_seconds) when the state database could not be read: a blank state would have the poll
  // examine every issue again.
  bool poll_state_of(Repo& r, const std::string& key, int64_t now, PollState& st);
  // A changed list's items examined (those whose fingerprint changed, poll_state.h) and the next
  // poll state kept under key; returned. Shared by every list watch polls.
  PollState settle(Repo& r, const std::string& key, const PollState& st, const ListAnswer& answer,
                   const std::function<bool(const nlohmann::json&)>& examine);
  // watcher_gitlab.cc: a GitLab project's session, poll and examination.
  Status open_gitlab_repo(Repo& r);
  void poll_gitlab(Repo& r, int64_t now);
  bool examine_gitlab(Repo& r, const nlohmann::json& issue, int64_t now);
  // watcher_gitlab_mrs.cc: awaywork's open merge requests on a GitLab project, whose admitted
  // notes queue follow-ups (`run --pr NAME!N`) by the pull request rules (watcher_pulls.cc).
  Result<nlohmann::json> list_gitlab_mrs(Repo& r, const std::string& since);
  bool examine_gitlab_mr(Repo& r, const nlohmann::json& mr, int64_t now);
  // watcher_beat.cc: what the watcher tells serve (watch/status.h) and /metrics.
  void beat(int64_t now, bool stopped);
  // watcher_units.cc: claims, units and their ends.
  void recover();
  void start_queued(int64_t now);
  void start_one(Repo& r, IssueSlot& slot, int64_t now);
  // Both claims' (start_one's on an issue, claim_pull's on a pull request): the attempt kept in
  // the slot before the claim's post, and a failed claim's slot tried again after a poll interval.
  void keep_attempt(IssueSlot& slot, int64_t now);
  void claim_failed(IssueSlot& slot, int64_t now, const Error& e);
  void watch_running(int64_t now);
  void finish(Repo& r, IssueSlot& slot, int exit_status, int64_t now);
  // The unit an ended child ran (issue or pull), brought up to date: a running one is its
  // runner's orphan, marked interrupted; one watch stopped gets slot.stop_reason as its reason.
  std::optional<UnitRecord> ended_unit(const IssueSlot& slot);
  // A unit's child: `awaywork [--config FILE] ARGS`, its output in the watch folder's
  // NAME-NOW.log (log: that path).
  Result<UnitChild> spawn_unit(const std::vector<std::string>& args, const std::string& name,
                               int64_t now, std::string& log);
  // The spawned child taken on by slot (running, one attempt more) and counted in r.
  void take_child(Repo& r, IssueSlot& slot, UnitChild child);
  void stop_all(const std::string& reason);
  // watcher_actions.cc: run_on: actions, a workflow run instead of a local unit: an issue's
  // (input issue) or, claimed by start_pull, a pull request's follow-up (input pull-request).
  void dispatch(Repo& r, IssueSlot& slot, int64_t now);
  void watch_dispatched(int64_t now);
  // A dispatched run's status on its claim (the issue's, or the follow-up's on the pull request).
  void say_run_status(Repo& r, IssueSlot& slot, const std::string& status, int64_t now);
  void finish_run(Repo& r, IssueSlot& slot, const std::string& outcome, bool ok, int64_t now);
  // A follow-up's run ended (or was never dispatched: dispatched false): its claim ended, the
  // cooldown counted from now, and what was batched meanwhile queued.
  void finish_pull_run(Repo& r, IssueSlot& slot, const std::string& outcome, bool ok,
                       bool dispatched, int64_t now);
  // watcher_actions_own.cc: the dispatched runs this watch records, and whether a pull request by
  // the watch entry's actions_login is one such run's (then awaywork's own); an Error when the
  // forge or the state could not say.
  void record_dispatched_run(const IssueSlot& slot, int64_t run, int64_t now);
  Result<bool> actions_own(Repo& r, const ForgePull& pull);
  // Erases the records of r's dispatched runs nothing needs any more (those whose pull request
  // was taken and is closed or merged, and those past GitHub's longest artifact retention), at
  // most once an hour; each erasure can only make a pull request not awaywork's own.
  void prune_dispatched_runs(Repo& r, int64_t now);
  // watcher_pulls.cc: follow-up units on pull requests (issue 26) and merge requests (issue 29).
  bool examine_pull(Repo& r, const nlohmann::json& item, int64_t now);
  // What a scan of a pull or merge request found, on either forge: logged, and an admitted
  // trigger queues a follow-up (or is batched into the running one). True when one was admitted.
  bool take_pull_triggers(Repo& r, IssueSlot& slot, const TriggerScan& scan, int64_t now);
  void queue_pull(Repo& r, IssueSlot& slot, const std::string& trigger, const std::string& key,
                  int64_t now);
  void start_pull(Repo& r, IssueSlot& slot, int64_t now);
  // The follow-up's claim on the pull request (claim.h claim_follow_up): false when it lost (the
  // slot idle again) or the forge failed (queued, tried again later).
  bool claim_pull(Repo& r, IssueSlot& slot, int64_t now);
  // Ends it, with a text for people; nothing when the slot holds none.
  void end_pull_claim(Repo& r, IssueSlot& slot, const std::string& text);
  void finish_pull(Repo& r, IssueSlot& slot, int exit_status, int64_t now);
  Status say_on_pull(Repo& r, IssueSlot& slot, const std::string& item, const std::string& text);
  // say_on_pull for a note said once: true when posted; a failure is logged, and false has the
  // note tried again at the next occasion.
  bool said_on_pull(Repo& r, IssueSlot& slot, const std::string& item, const std::string& text);
  // follow_ci: the failing checks of an idle pull request's head (triggers_ci.h); queues a
  // follow-up or stops at max_ci_attempts. False when the forge could not be read.
  bool check_ci(Repo& r, IssueSlot& slot, int64_t now);
  // Every poll: the checks of awaywork's open pull requests seen before, whose failing checks do
  // not change the issue list that the poll reads.
  void sweep_ci(Repo& r, int64_t now);
  std::function<bool(const ForgeUser&)> trusted(Repo& r, int64_t now);
  // watcher_source.cc: task source plugins (watch: {sources: [...]}, issue 28). A task is taken
  // once (its row "source/PLUGIN/REPO/ID" in the state database), run as `awaywork run --repo
  // --prompt-file`, and its unit's end reported back with task_done.
  struct Source {
    WatchSourceConfig watch;
    int64_t next_poll = 0;
    bool polled = false;
    int running = 0;
    SourceDeferral defer = {};  // its calls refused while a unit holds the worker (source_defer.h)
  };
  struct SourceRun {  // a taken task, queued or running
    std::string key, plugin, repo, id, prompt_file;
    int64_t queued_at = 0;
    std::optional<UnitChild> child;
    std::string unit_id, stop_reason;
  };
  void open_sources();  // and what a previous watch left of them
  void recover_sources();
  void tick_sources(int64_t now);  // poll the sources due, follow their units, start queued tasks
  void poll_source(Source& s, int64_t now);
  void start_source_tasks(int64_t now);
  void watch_source_units(int64_t now);
  void finish_source(SourceRun& run, int exit_status, int64_t now);
  // The task_done reports kept while the worker was busy (source_defer.h), made now in key order;
  // false when the worker is still busy, and the poll waits too.
  bool report_pending(Source& s, const std::vector<std::pair<std::string, nlohmann::json>>& rows);
  // A call of s refused because a unit holds the worker: one source_deferred line as it begins.
  void source_deferred(Source& s, const std::string& why);
  bool sources_idle() const;  // no source task running, and (once) none left to start
  Repo* repo_named(const std::string& name);
  void keep(const IssueSlot& slot);

  const Config& cfg_;
  WatchOptions opt_;
  EventLog& log_;
  Clock& clock_;
  std::optional<Store> store_;
  std::vector<Repo> repos_;
  Claimant me_;
  std::map<std::string, IssueSlot> slots_;  // queued, claiming or running, by slot_key
  std::map<std::string, UnitChild> children_;
  std::map<std::string, int64_t> next_run_check_;  // dispatched runs: when to look again
  bool stopping_ = false;
  int64_t stop_deadline_ = 0;
  bool interrupted_units_ = false;
  int64_t started_at_ = 0, beat_at_ = 0;
  std::vector<Source> sources_;
  std::map<std::string, SourceRun> source_runs_;  // by key: queued or running
};

}  // namespace aw
