// watch's follow-ups on a GitLab project (issue 29 item 7, issue 26's rules): awaywork's own open
// merge requests, listed with the project's issues at each poll (watcher_gitlab.cc), and for each
// one that changed, its discussions read as `run --pr NAME!N` reads them (forge/gitlab/mr_source.h
// mr_notes: system notes left out, a resolved diff discussion asks for nothing). They are judged
// by GitHub's pull request rules (watch/triggers.h scan_pull_triggers): a note in an unresolved
// diff discussion is a review comment, any other note counts only as the command; only admitted
// people's (their access level, Developer and up by default), never awaywork's own, never an
// edited note; a reviewer's request for changes (GitLab's system note "requested changes", by
// the reviewer) is a review requesting changes. An admitted one queues the follow-up with the
// limits, cooldown and batching of a pull request's (watcher_pulls.cc take_pull_triggers,
// queue_pull, start_pull). With follow_ci, a failed pipeline on an idle merge request's head queues
// one too, with no note (check_ci), and every poll lists the project's pipelines changed since
// the last one (sweep_ci): a pipeline's end need not change the merge request list, and GitLab's
// merge request list carries no head_pipeline.
//
// Counted requests: the list is asked under the poll state's updated_after, each page
// conditional on its last ETag (the client's cache), so an idle poll adds one 304, and with
// follow_ci one more for the pipelines' list (a 304 too), however many merge requests are open;
// a merge request whose updated_at or notes count changed costs its discussions (one request
// per 100, also conditional) and one members lookup per new author, and with follow_ci its
// answer and its head's newest pipeline (and that pipeline's failed jobs when it failed); so
// does one a changed pipeline may belong to (by its ref).
#include <fmt/format.h>

#include <cctype>

#include "forge/admission.h"
#include "forge/gitlab/client.h"
#include "forge/gitlab/issue.h"
#include "forge/gitlab/mr_source.h"
#include "forge/gitlab/session.h"
#include "watch/triggers.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"

namespace aw {

using nlohmann::json;
using namespace watch_detail;

namespace {

// A query value percent-encoded as a project's path segment is (the ISO time's ':', and
// whatever a hand-edited state holds).
std::string query_value(const std::string& v) {
  return gitlab_project_id(v);
}

// A note as GitHub's comment, the shape scan_pull_triggers reads.
json as_comment(int64_t id, const ForgeUser& who, const std::string& body,
                const std::string& created_at, const std::string& updated_at) {
  return {{"id", id},
          {"user", {{"login", who.login}, {"type", who.bot ? "Bot" : "User"}}},
          {"body", body},
          {"created_at", created_at},
          {"updated_at", updated_at}};
}

bool same_login(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

Result<json> Watcher::list_gitlab_mrs(Repo& r, const std::string& since) {
  const std::string& self = r.forge->self_login();
  std::string target = fmt::format(
      "{}/merge_requests?state=opened&author_username={}&order_by=updated_at&sort=asc"
      "&per_page=100{}",
      r.gl->project_target(), query_value(self),
      since.empty() ? "" : "&updated_after=" + query_value(since));
  AW_TRY(json all, r.gl->gl.get_all(target));
  if (!all.is_array())
    return fail("GitLab GET {}: expected a list, got {}", target, all.type_name());
  // Only awaywork's own are followed up (an instance that ignored the filter lists others').
  json mine = json::array();
  for (const json& m : all)
    if (m.is_object() && m.contains("author") && m["author"].is_object() &&
        m["author"].contains("username") && m["author"]["username"].is_string() &&
        same_login(m["author"]["username"].get<std::string>(), self))
      mine.push_back(m);
  return mine;
}

bool Watcher::examine_gitlab_mr(Repo& r, const json& mr, int64_t now) {
  auto number = mr.find("number");  // gitlab_issue_as_listed's: the iid
  if (number == mr.end() || !number->is_number_integer()) {
    log_.write("error", {{"repo", r.watch.repo},
                         {"error", "GitLab's merge request list: one has no whole number 'iid'"}});
    return false;
  }
  int64_t n = number->get<int64_t>();
  if (n <= 0) return true;  // nothing to examine
  IssueSlot slot;
  if (!slot_of(r, n, slot, /*mr=*/true)) return false;
  slot.repo = r.watch.repo;
  slot.number = n;
  slot.pull = slot.mr = true;
  slot.pull_own = 1;  // listed by its author, awaywork's user
  auto failed = [&](const std::string& why) {
    log_.write("error", with(where(slot), {{"error", why}}));
    return false;
  };
  std::string talk =
      fmt::format("{}/merge_requests/{}/discussions?per_page=100", r.gl->project_target(), n);
  auto dj = r.gl->gl.get_all(talk);
  if (!dj) return failed(dj.error().message);
  auto discussions = gitlab_discussions_from_json(*dj, "GET " + talk);
  if (!discussions) return failed(discussions.error().message);
  // Read as the follow-up reads them: what it would leave out never asks for it.
  MrNotes notes = mr_notes(*discussions);
  json review_comments = json::array(), comments = json::array();
  for (const ForgeReviewComment& c : notes.threads)
    review_comments.push_back(as_comment(c.id, c.author, c.body, c.created_at, c.updated_at));
  for (const ForgeComment& c : notes.conversation)
    comments.push_back(as_comment(c.id, c.author, c.body, c.created_at, c.updated_at));
  // A reviewer's "Request changes" (GitLab 16.9 and later) is GitHub's review requesting changes:
  // GitLab records it as a system note "requested changes" written as the reviewer, whose id
  // grows as a review's does, so the discussions already read tell it (no reviewers request
  // per poll). Only GitLab writes system notes; the follow-up reads the reviewers API again.
  json reviews = json::array();
  for (const GitLabDiscussion& d : *discussions)
    for (const GitLabDiscussionNote& dn : d.notes)
      if (dn.note.system && dn.note.comment.body == "requested changes")
        reviews.push_back({{"id", dn.note.comment.id},
                           {"user",
                            {{"login", dn.note.comment.author.login},
                             {"type", dn.note.comment.author.bot ? "Bot" : "User"}}},
                           {"state", "CHANGES_REQUESTED"},
                           {"body", ""},
                           {"submitted_at", dn.note.comment.created_at}});
  const std::string& self = r.forge->self_login();
  Admission adm(r.repo.forge.trust, stop_after_of(r), self, gitlab_roles(*r.gl, notes.ids), now);
  TriggerScan scan =
      scan_pull_triggers(r.watch.command, reviews, review_comments, comments, slot.seen, self,
                         [&](const ForgeUser& u) { return adm.check(u); });
  bool admitted = take_pull_triggers(r, slot, scan, now);
  bool ok = true;
  // follow_ci: a failed pipeline on the head starts a follow-up with no note asking for it, as a
  // failing check does on GitHub (watcher_pulls.cc check_ci: once per head and job, stopped at
  // follow_up.max_ci_attempts with one marked note; the unit's run --pr applies the same limit).
  if (!admitted && r.repo.follow_ci && slot.phase == "idle") ok = check_ci(r, slot, now);
  keep(slot);
  return ok;
}

}  // namespace aw
