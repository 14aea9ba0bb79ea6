#include "forge/gitlab/mr_publisher.h"

#include <fmt/format.h>

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
  return a;
}

Status GitLabMrPublisher::end_note(const UnitRecord& u, const std::string& pull_url,
                                   const std::string& state, const std::string& reason) {
  return gitlab_end_progress(*s_, u, pull_url, state, reason, "merge_requests");
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
