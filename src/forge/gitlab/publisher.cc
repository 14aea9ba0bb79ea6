#include "forge/gitlab/publisher.h"

#include "forge/gitlab/progress.h"
#include "forge/gitlab/publish.h"
#include "forge/publisher.h"
#include "forge/usage.h"
#include "unit/apply.h"

namespace aw {

Result<Applied> GitLabPublisher::publish(const ApplyInput& in) {
  if (!in.record) return fail("a GitLab project's apply needs its forge session");
  AW_TRY(ForgePublishInput f, forge_publish_input(in));
  AW_TRY(ForgePublished p, publish_to_gitlab(*s_, f));
  return Applied{p.branch, s_->project, p.pull_url, p.compare_url, p.posted, p.already};
}

std::optional<ApplyTarget> GitLabPublisher::source_remote() const {
  ApplyTarget remote = forge_git_target(s_->forge, s_->repo.clone_url, s_->token);
  remote.username = "oauth2";
  return remote;
}

Status GitLabPublisher::end_note(const UnitRecord& u, const std::string& pull_url,
                                 const std::string& state, const std::string& reason) {
  return gitlab_end_progress(*s_, u, pull_url, state, reason);
}

void GitLabPublisher::record_usage(Store& store) {
  (void)save_forge_usage(store, *s_);
}

OpenPublisher gitlab_publishers(std::shared_ptr<GitLabSession> opened) {
  return [opened](const Config& cfg, const RepoConfig& repo) -> Result<std::unique_ptr<Publisher>> {
    if (repo.forge.gitlab.empty()) return std::unique_ptr<Publisher>();
    if (opened && opened->project == repo.forge.gitlab)
      return std::unique_ptr<Publisher>(new GitLabPublisher(opened));
    AW_TRY(std::unique_ptr<GitLabSession> s, open_gitlab(cfg, repo));
    std::shared_ptr<GitLabSession> shared = std::move(s);
    return std::unique_ptr<Publisher>(new GitLabPublisher(std::move(shared)));
  };
}

OpenPublisher any_forge_publishers(OpenPublisher github, std::shared_ptr<GitLabSession> gitlab) {
  OpenPublisher lab = gitlab_publishers(std::move(gitlab));
  return [github, lab](const Config& cfg,
                       const RepoConfig& repo) -> Result<std::unique_ptr<Publisher>> {
    if (!repo.forge.gitlab.empty()) return lab(cfg, repo);
    if (github) return github(cfg, repo);
    return std::unique_ptr<Publisher>();
  };
}

}  // namespace aw
