#include "forge/gitlab/mr_source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ctime>

#include "config/paths.h"
#include "config/repos.h"
#include "forge/admission.h"
#include "forge/ci_attempts.h"
#include "forge/follow_up_history.h"
#include "forge/gitlab/issue.h"
#include "forge/gitlab/pipeline.h"
#include "forge/gitlab/text.h"
#include "forge/marker.h"
#include "forge/pr_source.h"
#include "forge/usage.h"
#include "record/store.h"

namespace aw {

const char kDefaultGitlabMrTask[] =
    "Follow up the GitLab merge request described below, which awaywork opened in this "
    "repository: address each discussion quoted below (in its file, at its line), the notes "
    "and the failing jobs quoted, keeping the change focused. The working tree is the merge "
    "request's head; your change becomes one new commit on its source branch.";

namespace {

// GitLab writes milliseconds (2026-12-06T02:40:00.123Z); the follow-up's `since` is whole
// seconds, as GitHub writes them (follow_up_history.h): compared in whole seconds.
std::string whole_seconds(const std::string& t) {
  return t.size() >= 19 ? t.substr(0, 19) + "Z" : t;
}

std::string utc_now() {
  std::time_t t = ::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

}  // namespace

Status gitlab_followable(const ForgePull& mr, const GitLabSession& s) {
  // A merge request whose source project is its target project has its head in this project.
  ForgePull as_pull = mr;
  if (!as_pull.head_repo.empty() && as_pull.head_repo == as_pull.base_repo)
    as_pull.head_repo = s.project;
  return followable(as_pull, s.project, s.self.user.login);
}

Result<std::vector<GitLabReviewer>> gitlab_mr_reviewers(GitLabSession& s, int64_t iid) {
  std::string target = fmt::format("{}/merge_requests/{}/reviewers", s.project_target(), iid);
  AW_TRY(ApiReply r, s.gl.call("GET", target));
  if (r.status == 404) return std::vector<GitLabReviewer>{};  // before GitLab 15.3
  if (r.status < 200 || r.status >= 300) return fail("{}", s.gl.describe("GET", target, r));
  return gitlab_reviewers_from_json(r.body, "GET " + target);
}

std::vector<ForgeReview> gitlab_change_requests(const std::vector<GitLabReviewer>& reviewers,
                                                const std::string& now) {
  std::vector<ForgeReview> out;
  for (const GitLabReviewer& v : reviewers) {
    if (v.state != "requested_changes") continue;
    ForgeReview r;
    r.id = v.user.id;
    r.author = v.user.user;
    r.state = "CHANGES_REQUESTED";
    r.submitted_at = now;
    out.push_back(std::move(r));
  }
  return out;
}

Result<IssueRef> parse_mr_ref(const std::string& text) {
  size_t bang = text.rfind('!');
  std::string num = bang == std::string::npos ? "" : text.substr(bang + 1);
  bool digits =
      !num.empty() && num.size() <= 12 && num.find_first_not_of("0123456789") == std::string::npos;
  if (bang == std::string::npos) return parse_issue_ref(text);
  if (bang == 0 || !digits || num[0] == '0')
    return fail("--pr '{}': write NAME!N (a repos: name) or GROUP/PROJECT!N, e.g. app!3", text);
  return IssueRef{text.substr(0, bang), std::stoll(num)};
}

MrNotes mr_notes(const std::vector<GitLabDiscussion>& discussions) {
  MrNotes out;
  for (const GitLabDiscussion& d : discussions) {
    std::vector<const GitLabDiscussionNote*> notes;
    for (const GitLabDiscussionNote& n : d.notes) {
      out.ids[n.note.comment.author.login] = n.note.author_id;
      // GitLab's own record of changes ("added 1 commit", "resolved all threads"): nobody's words.
      if (!n.note.system) notes.push_back(&n);
    }
    if (notes.empty()) continue;
    const GitLabDiscussionNote& first = *notes.front();
    bool diff = !d.individual && first.type == "DiffNote" && !first.path.empty();
    if (diff && first.resolved) {
      // A reviewer (or the author) marked it done: it asks for nothing.
      ++out.resolved;
      continue;
    }
    for (const GitLabDiscussionNote* n : notes) {
      const ForgeComment& c = n->note.comment;
      if (diff) {
        ForgeReviewComment r;
        r.id = c.id;
        r.in_reply_to = n == &first ? 0 : first.note.comment.id;
        r.line = first.line;
        r.path = first.path;
        r.author = c.author;
        r.body = c.body;
        r.created_at = whole_seconds(c.created_at);
        r.updated_at = whole_seconds(c.updated_at);
        out.threads.push_back(std::move(r));
      } else {
        ForgeComment g = c;
        g.created_at = whole_seconds(c.created_at);
        g.updated_at = whole_seconds(c.updated_at);
        out.conversation.push_back(std::move(g));
      }
    }
    if (diff) out.discussion_of[first.note.comment.id] = d.id;
  }
  return out;
}

Result<GitLabMrRun> gitlab_mr_run(const Config& cfg, const std::string& repo, int64_t iid) {
  AW_TRY(RepoConfig r, with_context(find_forge_repo(cfg, repo), "--pr"));
  if (r.forge.gitlab.empty()) return fail("--pr {}: not a gitlab: project", repo);
  AW_TRY(std::unique_ptr<GitLabSession> opened, with_context(open_gitlab(cfg, r), "repo " + repo));
  GitLabMrRun run;
  run.session = std::move(opened);
  GitLabSession& s = *run.session;
  MrNotes notes;
  auto read = [&]() -> Status {
    std::string base = fmt::format("{}/merge_requests/{}", s.project_target(), iid);
    AW_TRY(nlohmann::json mj, s.gl.get(base));
    AW_TRY(run.mr, gitlab_mr_from_json(mj, "GET " + base));
    AW_CHECK(gitlab_followable(run.mr, s));
    std::string talk = base + "/discussions";
    AW_TRY(nlohmann::json dj, s.gl.get_all(talk + "?per_page=100"));
    AW_TRY(auto discussions, gitlab_discussions_from_json(dj, "GET " + talk));
    notes = mr_notes(discussions);
    // A reviewer's request for changes asks for work as GitHub's review does; its words are
    // the reviewer's notes, read above. Their ids for admission's members lookup.
    AW_TRY(auto reviewers, gitlab_mr_reviewers(s, iid));
    for (const GitLabReviewer& v : reviewers) notes.ids.emplace(v.user.user.login, v.user.id);
    Admission adm(r.forge.trust, r.forge.stop_after, s.self.user.login, gitlab_roles(s, notes.ids),
                  ::time(nullptr));
    PullTask t;
    t.repo_task = kDefaultGitlabMrTask;  // the repository's task: is written for issues
    t.repo = s.project;
    t.pull = run.mr;
    AW_TRY(t.opening_task, opening_task(cfg, run.mr));
    t.reviews = gitlab_change_requests(reviewers, utc_now());
    t.comments = notes.threads;
    t.conversation = notes.conversation;
    t.self_login = s.self.user.login;
    AW_TRY(t.since, follow_up_since(cfg, run.mr));
    if (r.follow_ci) {
      // The head the unit will start from: its merge request's pipeline's failing jobs, with their
      // traces (never another ref's pipeline on the same commit: forge/gitlab/pipeline.h).
      AW_TRY(t.checks, gitlab_failing_jobs(s, run.mr, mj));
      // follow_up.max_ci_attempts, GitHub's rule (pr_source.cc, forge/ci_attempts.h): counted
      // from this machine's record of the merge request's follow-ups; the one marked note saying
      // the limit is reached goes on the merge request, made inert as every GitLab post is.
      std::vector<std::string> failing;
      for (const FailingCheck& c : t.checks) failing.push_back(c.name);
      AW_TRY(auto tried, ci_fixes_tried(cfg, run.mr, failing));
      AW_CHECK(within_ci_limit(
          tried, failing, r.follow_up.max_ci_attempts, iid, t.conversation, s.self.user.login,
          "merge request", [&](const std::string& text, const std::string& marker) -> Status {
            AW_CHECK(s.gl.post(base + "/notes",
                               nlohmann::json{{"body", with_marker(gitlab_inert(text), marker)}}));
            return {};
          }));
    }
    run.follow = build_pull_task(t, [&](const ForgeUser& u) { return adm.check(u); });
    run.discussion_of = notes.discussion_of;
    if (run.follow.asks_nothing())
      return fail(
          "nothing to follow up: no admitted discussion, note or request for changes asks for "
          "work{} ({} by people "
          "not admitted, {} edited, {} resolved discussion(s), left out)",
          r.follow_ci ? " and no job fails in the head's pipeline" : "", run.follow.left_out,
          run.follow.edited, notes.resolved);
    return {};
  };
  if (auto ok = with_context(read(), fmt::format("merge request {}!{}", s.project, iid)); !ok) {
    // No unit will record what the session spent: it is recorded here (a failure to is not one),
    // as GitHub's run --pr does.
    if (auto store = Store::open(state_dir_of(cfg))) (void)save_forge_usage(*store, s);
    return tl::unexpected(ok.error());
  }
  RunRequest& req = run.request;
  req.repo = repo;
  req.prompt = run.follow.prompt;
  // The clone is the head the notes were read on; if the branch moves meanwhile, the publish
  // finds it moved and pushes nothing.
  req.base = run.mr.head_ref;
  req.base_commit = run.mr.head_sha;
  req.instructions_from = run.mr.base_ref;
  req.origin.source = "pull_request";  // the follow-up kind serve and the record know
  req.origin.issue = iid;
  req.origin.title = run.mr.title;
  req.origin.url = run.mr.html_url;
  // The record's follow-up note (record.h is_follow_up) names it as GitHub's does.
  req.origin.notes.push_back(fmt::format("{}{} (branch {}, GitLab merge request !{})",
                                         kFollowUpNote, iid, run.mr.head_ref, iid));
  // What `apply ID` of this unit needs to publish as this run would (mr_publisher.h): the
  // discussions to reply in and the reviewers to ask again, as GitHub's follow-up records them.
  if (!run.follow.threads.empty())
    req.origin.notes.push_back(
        fmt::format("{}{}", kFollowUpThreadsNote, fmt::join(run.follow.threads, ", ")));
  if (!run.follow.reviewers.empty()) {
    req.origin.asked_by = fmt::format("{}", fmt::join(run.follow.reviewers, ", "));
    req.origin.notes.push_back(
        fmt::format("{}{}", kFollowUpReviewersNote, fmt::join(run.follow.reviewers, ", ")));
  }
  if (run.follow.left_out > 0)
    req.origin.notes.push_back(fmt::format(
        "{} note(s) by people not admitted were left out of the task", run.follow.left_out));
  if (run.follow.edited > 0)
    req.origin.notes.push_back(
        fmt::format("{} edited note(s) were left out of the task", run.follow.edited));
  if (!run.follow.failing.empty())
    req.origin.notes.push_back(
        fmt::format("{}{}", kFollowUpChecksNote, fmt::join(run.follow.failing, ", ")));
  return run;
}

}  // namespace aw
