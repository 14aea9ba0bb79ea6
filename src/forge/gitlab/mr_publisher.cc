#include "forge/gitlab/mr_publisher.h"

#include <fmt/format.h>

#include <algorithm>

#include "forge/follow_up_push.h"
#include "forge/gitlab/progress.h"
#include "forge/gitlab/text.h"
#include "forge/marker.h"
#include "forge/publisher.h"

namespace aw {

using nlohmann::json;

Result<Applied> GitLabMrPublisher::publish(const ApplyInput& in) {
  GitLabSession& s = *s_;
  ApplyTarget head = forge_git_target(s.forge, s.repo.clone_url, s.token);
  head.username = "oauth2";  // GitLab's user for a token over HTTPS
  head.branch = mr_.head_ref;
  AW_TRY(Applied a, push_follow_up(in, std::move(head), {s.project, mr_.html_url},
                                   fmt::format("merge request {}!{}", s.project, mr_.number)));
  std::string base =
      fmt::format("{}/merge_requests/{}/discussions", s.project_target(), mr_.number);
  // What an earlier run of this unit posted: only awaywork's own notes count (anyone may write a
  // marker into a note).
  AW_TRY(json listed, s.gl.get_all(base + "?per_page=100"));
  AW_TRY(auto existing, gitlab_discussions_from_json(listed, "GET " + base));
  for (int64_t thread : follow_.threads) {
    auto id = discussion_of_.find(thread);
    if (id == discussion_of_.end()) continue;  // not a diff discussion: nowhere to reply
    std::string item = fmt::format("reply-{}", thread);
    bool posted = false;
    for (const GitLabDiscussion& d : existing)
      for (const GitLabDiscussionNote& n : d.notes)
        posted = posted || (d.id == id->second && !n.note.system &&
                            n.note.comment.author.login == s.self.user.login &&
                            has_marker(n.note.comment.body, in.unit_id, item));
    if (posted) {
      a.already.push_back(item);
      continue;
    }
    std::string text = fmt::format("awaywork addressed this in {} (unit {}).",
                                   a.result.commit.substr(0, 12), in.unit_id);
    json body = {
        {"body", with_marker(gitlab_inert(text), item_marker(in.unit_id, item, a.result.commit))}};
    AW_CHECK(with_context(s.gl.post(fmt::format("{}/{}/notes", base, id->second), body),
                          fmt::format("replying in discussion {}", id->second)));
    a.posted.push_back(item);
  }
  if (!follow_.reviewers.empty()) AW_CHECK(request_review_again(a));
  return a;
}

Status GitLabMrPublisher::request_review_again(Applied& a) {
  // GitLab's REST API has no re-request (GitLab's own is the GraphQL mutation
  // mergeRequestReviewerRereview and the /request_review quick action, which awaywork never
  // posts): a reviewer taken off the merge request's reviewer_ids and put back is a new review
  // request to GitLab (their review's state unreviewed again, a to-do and an email), as the
  // reviewers API then shows. Only the reviewers the task named; only while their review still
  // requests changes, so a second publish (`apply ID`) writes nothing. One cut short between its
  // two writes leaves the reviewer off: the next publish finds them missing and puts them back.
  GitLabSession& s = *s_;
  AW_TRY(std::vector<GitLabReviewer> now, gitlab_mr_reviewers(s, mr_.number));
  auto named = [&](const std::string& login) {
    return std::find(follow_.reviewers.begin(), follow_.reviewers.end(), login) !=
           follow_.reviewers.end();
  };
  std::vector<int64_t> kept, back;
  std::vector<std::string> present;
  for (const GitLabReviewer& v : now) {
    present.push_back(v.user.user.login);
    if (named(v.user.user.login) && v.state == "requested_changes")
      back.push_back(v.user.id);
    else
      kept.push_back(v.user.id);
  }
  std::vector<int64_t> missing;
  for (const std::string& login : follow_.reviewers) {
    if (std::find(present.begin(), present.end(), login) != present.end()) continue;
    // GET /users?username=NAME: the id reviewer_ids takes (none: the account is gone).
    std::string target = "/users?username=" + gitlab_project_id(login);
    AW_TRY(json found, s.gl.get(target));
    if (found.is_array() && !found.empty() && found[0].is_object())
      if (auto id = found[0].find("id"); id != found[0].end() && id->is_number_integer())
        missing.push_back(id->get<int64_t>());
  }
  if (back.empty() && missing.empty()) {
    a.already.push_back("review-request");
    return {};
  }
  std::string target = fmt::format("{}/merge_requests/{}", s.project_target(), mr_.number);
  if (!back.empty())
    AW_CHECK(with_context(s.gl.put(target, json{{"reviewer_ids", kept}}),
                          "taking the reviewers who requested changes off, to ask them again"));
  std::vector<int64_t> all = kept;
  all.insert(all.end(), back.begin(), back.end());
  all.insert(all.end(), missing.begin(), missing.end());
  AW_CHECK(with_context(s.gl.put(target, json{{"reviewer_ids", all}}), "requesting review again"));
  a.posted.push_back("review-request");
  return {};
}

Status GitLabMrPublisher::end_note(const UnitRecord& u, const std::string& pull_url,
                                   const std::string& state, const std::string& reason) {
  return gitlab_end_progress(*s_, u, pull_url, state, reason, "merge_requests");
}

Result<OpenPublisher> gitlab_follow_up_publishers(const Config& cfg, const UnitRecord& u,
                                                  const RepoConfig& r, int64_t iid,
                                                  const std::string& branch, PullFollowUp follow) {
  AW_TRY(std::unique_ptr<GitLabSession> opened,
         with_context(open_gitlab(cfg, r), "repo " + u.repo));
  GitLabMrRun run;
  run.session = std::move(opened);
  GitLabSession& s = *run.session;
  auto read = [&]() -> Status {
    // The merge request now: still awaywork's, from a branch of the project, and on the branch
    // the unit was made on (the push is a fast-forward of the unit's start on it, or nothing).
    std::string base = fmt::format("{}/merge_requests/{}", s.project_target(), iid);
    AW_TRY(json mj, s.gl.get(base));
    AW_TRY(run.mr, gitlab_mr_from_json(mj, "GET " + base));
    AW_CHECK(gitlab_followable(run.mr, s));
    if (run.mr.head_ref != branch)
      return fail("it is on branch {} now, not on {} where unit {} was made", run.mr.head_ref,
                  branch, u.id);
    // Where to reply: each quoted thread's discussion, read again (a reply goes to its id).
    std::string talk = base + "/discussions";
    AW_TRY(json dj, s.gl.get_all(talk + "?per_page=100"));
    AW_TRY(auto discussions, gitlab_discussions_from_json(dj, "GET " + talk));
    run.discussion_of = mr_notes(discussions).discussion_of;
    return {};
  };
  AW_CHECK(with_context(read(), fmt::format("merge request {}!{}", s.project, iid)));
  run.follow = std::move(follow);
  return gitlab_mr_publishers(run);
}

OpenPublisher gitlab_mr_publishers(const GitLabMrRun& run) {
  OpenPublisher others = any_forge_publishers(forge_publishers(), run.session);
  return [run, others](const Config& cfg,
                       const RepoConfig& repo) -> Result<std::unique_ptr<Publisher>> {
    if (repo.forge.gitlab != run.session->project) return others(cfg, repo);
    return std::unique_ptr<Publisher>(
        new GitLabMrPublisher(run.session, run.mr, run.follow, run.discussion_of));
  };
}

}  // namespace aw
