#include "forge/gitlab/issue_source.h"

#include <fmt/format.h>

#include <ctime>

#include "config/paths.h"
#include "config/repos.h"
#include "forge/gitlab/issue.h"
#include "forge/issue_source.h"
#include "forge/usage.h"
#include "record/store.h"

namespace aw {

bool gitlab_repo(const Config& cfg, const std::string& repo) {
  auto r = find_forge_repo(cfg, repo);
  return r && !r->forge.gitlab.empty();
}

Result<GitLabIssueRun> gitlab_issue_request(const Config& cfg, const std::string& repo,
                                            int64_t number) {
  AW_TRY(RepoConfig r, with_context(find_forge_repo(cfg, repo), "--issue"));
  AW_TRY(std::unique_ptr<GitLabSession> opened, with_context(open_gitlab(cfg, r), "repo " + repo));
  GitLabIssueRun run;
  run.session = std::move(opened);
  auto found = with_context(gitlab_issue_work(*run.session, r, number, ::time(nullptr)),
                            fmt::format("issue {}#{}", run.session->project, number));
  if (!found) {
    // No unit will record what the session spent: it is recorded here (a failure to is not one),
    // as GitHub's run --issue does.
    if (auto store = Store::open(state_dir_of(cfg))) (void)save_forge_usage(*store, *run.session);
    return tl::unexpected(found.error());
  }
  run.request = issue_run_request(repo, number, *found, "note(s)");
  return run;
}

}  // namespace aw
