#include "forge/gitlab/publisher.h"

#include "forge/gitlab/progress.h"
#include "forge/gitlab/publish.h"
#include "unit/apply.h"

namespace aw {

namespace {

UnitFacts facts_of(const UnitRecord& u) {
  UnitFacts f{u.id, u.agent, u.isolation, u.sandbox, u.verdict, {}};
  for (const PhaseRecord& p : u.phases)
    if (p.name.starts_with("check")) f.checks.emplace_back(p.name, p.exit_code);
  return f;
}

}  // namespace

Result<Applied> GitLabPublisher::publish(const ApplyInput& in) {
  if (!in.record) return fail("a GitLab project's apply needs its forge session");
  ForgePublishInput f;
  f.unit = facts_of(*in.record);
  f.issue = in.record->issue;
  f.branch_prefix = in.repo.forge.branch_prefix;
  f.closing_keyword = in.repo.forge.closing_keyword;
  f.base_ref = in.base_ref;
  f.base_commit = in.base_commit;
  f.patch = in.patch;
  f.paths = in.paths;
  f.commit_message = commit_message(in);
  f.fallback_title = task_title_of(in.prompt, 120);
  f.requests = in.requests;
  f.allowed_labels = in.repo.bounds.allowed_labels;
  f.scratch_dir = in.scratch_dir;
  f.mirror_dir = in.mirror_dir;
  AW_TRY(f.askpass, askpass_program());
  AW_TRY(ForgePublished p, publish_to_gitlab(*s_, f));
  return Applied{p.branch, s_->project, p.pull_url, p.compare_url, p.posted, p.already};
}

std::optional<ApplyTarget> GitLabPublisher::source_remote() const {
  ApplyTarget remote;
  remote.url = s_->repo.clone_url;
  remote.credential = s_->forge.credential;
  remote.username = "oauth2";
  remote.secret_value = s_->token;
  remote.ca_file = s_->forge.ca_file;
  return remote;
}

Status GitLabPublisher::end_note(const UnitRecord& u, const std::string& pull_url,
                                 const std::string& state, const std::string& reason) {
  return gitlab_end_progress(*s_, u, pull_url, state, reason);
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
