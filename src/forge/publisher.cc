#include "forge/publisher.h"

#include <algorithm>

#include "forge/progress.h"
#include "forge/publish.h"
#include "forge/usage.h"
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

Result<ForgePublishInput> forge_publish_input(const ApplyInput& in) {
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
  // A command on someone else's pull request (publish.h kForeignPullNote): the unit's own draft
  // pull request, against that pull request's branch (the unit's base), is all it publishes. No
  // "Closes #N" (N is the person's pull request), no labels on it, no new issues; the agent's
  // checked comments stay (posted on that pull request, marked, as on an issue).
  bool foreign = std::any_of(in.record->notes.begin(), in.record->notes.end(),
                             [](const std::string& n) { return n.starts_with(kForeignPullNote); });
  // A fork's pull request (kForkPullNote): as foreign, but the branch starts on the fork's head
  // and the compare link is commented instead of a pull request opened.
  bool fork = std::any_of(in.record->notes.begin(), in.record->notes.end(),
                          [](const std::string& n) { return n.starts_with(kForkPullNote); });
  if (fork && in.record->issue > 0) f.fork_pull = in.record->issue;
  if (foreign || fork) {
    f.closing_keyword = false;
    std::erase_if(f.requests, [](const Request& r) {
      return r.type == "add_labels" || r.type == "create_issue";
    });
  }
  return f;
}

Result<Applied> ForgePublisher::publish(const ApplyInput& in) {
  if (!in.record) return fail("a forge repository's apply needs its forge session");
  AW_TRY(ForgePublishInput f, forge_publish_input(in));
  AW_TRY(ForgePublished p, publish_to_forge(*s_, f));
  return Applied{p.branch, s_->owner_repo, p.pull_url, p.compare_url, p.posted, p.already};
}

std::optional<ApplyTarget> ForgePublisher::source_remote() const {
  return forge_git_target(s_->forge, s_->repo.clone_url, s_->token);
}

Status ForgePublisher::end_note(const UnitRecord& u, const std::string& pull_url,
                                const std::string& state, const std::string& reason) {
  return end_progress(*s_, u, pull_url, state, reason);
}

void ForgePublisher::record_usage(Store& store) {
  (void)save_forge_usage(store, *s_);
}

OpenPublisher forge_publishers(std::shared_ptr<ForgeSession> opened) {
  return [opened](const Config& cfg, const RepoConfig& repo) -> Result<std::unique_ptr<Publisher>> {
    if (repo.forge.github.empty()) return std::unique_ptr<Publisher>();
    if (opened && opened->owner_repo == repo.forge.github)
      return std::unique_ptr<Publisher>(new ForgePublisher(opened));
    AW_TRY(std::unique_ptr<ForgeSession> s, open_forge(cfg, repo));
    std::shared_ptr<ForgeSession> shared = std::move(s);
    return std::unique_ptr<Publisher>(new ForgePublisher(std::move(shared)));
  };
}

}  // namespace aw
