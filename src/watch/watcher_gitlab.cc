// watch on a GitLab project (issue 29, item 6): the project's session, its poll and the
// examination of a changed issue. What follows a queued issue (the claim, the unit, its end) is
// the watcher's own, through the project's WatchForge (watch_forge.h), as on GitHub.
//
// The poll asks for the open issues changed after the poll state's since (updated_after, oldest
// change first), each page conditional on the ETag of its last answer (the client's cache): an
// idle poll is one 304. GitLab has no events API for an issue's assignments and labels alike,
// so an issue is read by parts: its resource_label_events when it bears the trigger label (who
// added it), its notes when it is assigned to the trigger's login (GitLab's system note "assigned
// to @x" names who assigned) or may hold the command (user_notes_count > 0).
//
// With follow-ups allowed (follow_up.max_units_per_pr > 0), the same poll lists awaywork's own
// open merge requests the same way, under a poll state of their own ("pollmr/REPO"): an idle
// poll is two 304s, and a merge request whose notes changed is examined for follow-ups
// (watcher_gitlab_mrs.cc). With follow_ci, a third list, the project's pipelines changed since
// the last poll ("pollci/REPO", watcher_pulls.cc sweep_ci), tells of every pipeline's end for
// all the merge requests at once: an idle poll is three requests whatever the number of merge
// requests (GitLab counts a 304 against the rate limit as any request).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "forge/admission.h"
#include "forge/gitlab/session.h"
#include "forge/gitlab/watch_source.h"
#include "watch/poll_state.h"
#include "watch/triggers.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"

namespace aw {

using nlohmann::json;
using namespace watch_detail;

Status Watcher::open_gitlab_repo(Repo& r) {
  if (r.watch.on_actions)
    return fail(
        "run_on: actions dispatches a GitHub Actions workflow; a GitLab project's units "
        "run here (remove run_on)");
  AW_TRY(auto s, open_gitlab(cfg_, r.repo));
  r.gl = std::shared_ptr<GitLabSession>(std::move(s));
  r.glr = std::make_shared<GitLabWatchReader>(*r.gl);
  r.forge = gitlab_watch_forge(*r.gl, *r.glr);
  return {};
}

void Watcher::poll_gitlab(Repo& r, int64_t now) {
  PollState st, mst;
  if (!poll_state_of(r, "poll/" + r.watch.repo, now, st)) return;
  bool mrs_wanted =
      r.repo.follow_up.max_units_per_pr > 0 && poll_state_of(r, "pollmr/" + r.watch.repo, now, mst);
  const GitLab::Stats& stats = r.gl->gl.stats();
  int requests = stats.requests, not_modified = stats.not_modified;
  auto list = r.glr->changed_issues(st.since);
  Result<json> mrs = json::array();
  if (list && mrs_wanted) mrs = list_gitlab_mrs(r, mst.since);
  r.polled = true;
  r.polled_at = now;
  int64_t interval = cfg_.watch.poll_seconds;
  if (!list) {
    log_.write("poll_failed", {{"repo", r.watch.repo}, {"error", list.error().message}});
    r.next_poll = now + interval;
    return;
  }
  // Changed when any page was answered anew (not a 304).
  int asked = stats.requests - requests;
  bool changed = asked > stats.not_modified - not_modified;
  interval = slowed_interval(interval, stats.rate_remaining, stats.rate_reset, now, repos_.size());
  r.next_poll = now + interval;
  log_.write("poll", {{"repo", r.watch.repo},
                      {"changed", changed},
                      {"next_in", interval},
                      {"remaining", stats.rate_remaining},
                      {"requests", asked}});
  // A 304's list is the kept one and is looked at too: an issue whose examination failed, or
  // that changed in the answer's last seconds, is not settled in the poll state, and the client
  // asks with its ETag whatever the state kept. What was examined and shows the same is passed
  // over without a request.
  // GitLab's issues and merge requests in the shape the poll state reads (a listed GitHub
  // issue's): their updated_at, notes count, labels, assignees and state.
  auto listed = [now](const json& items) {
    ListAnswer answer;
    answer.items = json::array();
    for (const json& item : items) answer.items.push_back(gitlab_issue_as_listed(item));
    answer.server_time = now;
    return answer;
  };
  settle(r, "poll/" + r.watch.repo, st, listed(*list),
         [&](const json& issue) { return examine_gitlab(r, issue, now); });
  if (!mrs_wanted) return;
  if (!mrs) {
    // The issues are settled; the merge requests, and the pipelines (which are matched to them
    // by the list), are read again at the next poll: nothing of theirs was settled.
    log_.write(
        "poll_failed",
        {{"repo", r.watch.repo}, {"what", "merge requests"}, {"error", mrs.error().message}});
    return;
  }
  // follow_ci: the project's pipelines changed since the last poll, one list for all of
  // awaywork's merge requests, each matched to its merge request by the branches this list shows
  // (watcher_pulls.cc sweep_ci). The list holds them all when it was asked with no updated_after
  // and filled no page.
  r.glr->remember_mrs(*mrs, mst.since.empty() && mrs->size() < 100);
  sweep_ci(r, now);
  settle(r, "pollmr/" + r.watch.repo, mst, listed(*mrs),
         [&](const json& mr) { return examine_gitlab_mr(r, mr, now); });
}

bool Watcher::examine_gitlab(Repo& r, const json& issue, int64_t now) {
  auto number = issue.find("number");
  if (number == issue.end() || !number->is_number_integer()) {
    log_.write("error", {{"repo", r.watch.repo},
                         {"error",
                          "GitLab's issue list: an issue has no "
                          "whole number 'iid'"}});
    return false;
  }
  int64_t n = number->get<int64_t>();
  if (n <= 0) return true;  // nothing to examine
  IssueSlot slot;
  if (!slot_of(r, n, slot)) return false;
  const WatchRepoConfig& w = r.watch;
  json events, assignments, comments;
  if (has_label(issue, w.label)) {
    auto e = r.glr->label_events(n);
    if (!e) {
      log_.write("error", {{"repo", w.repo}, {"issue", n}, {"error", e.error().message}});
      return false;
    }
    events = std::move(*e);
  }
  bool assigned = assigned_to(issue, w.assignee);
  auto said = issue.find("comments");
  bool commented = !w.command.empty() && said != issue.end() && said->is_number_integer() &&
                   said->get<int64_t>() > 0;
  if (assigned || commented) {
    auto notes = r.glr->notes(n);
    if (!notes) {
      log_.write("error", {{"repo", w.repo}, {"issue", n}, {"error", notes.error().message}});
      return false;
    }
    if (commented) comments = std::move(notes->comments);
    if (assigned) assignments = std::move(notes->assignments);
  }
  Admission adm(r.repo.forge.trust, stop_after_of(r), r.forge->self_login(), r.forge->roles(), now);
  auto admit = [&](const ForgeUser& u) { return adm.check(u); };
  TriggerScan scan = scan_triggers(w, events, comments, slot.seen, admit);
  // The assignments' ids are notes', not label events': they are scanned as events of their own,
  // their newest kept in seen.review (a GitLab issue has no reviews; its merge requests are not
  // in the issue list).
  Seen notes_seen;
  notes_seen.event = slot.seen.review;
  TriggerScan by_notes = scan_triggers(w, assignments, json(), notes_seen, admit);
  scan.found.insert(scan.found.end(), by_notes.found.begin(), by_notes.found.end());
  scan.seen.review = by_notes.seen.event;
  take_triggers(r, slot, scan, now);
  return true;
}

}  // namespace aw
