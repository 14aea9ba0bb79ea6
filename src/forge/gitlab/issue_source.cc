#include "forge/gitlab/issue_source.h"

#include <fmt/format.h>

#include <ctime>

#include "config/paths.h"
#include "config/repos.h"
#include "forge/gitlab/issue.h"
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
  const IssueWork& work = *found;
  RunRequest& req = run.request;
  req.repo = repo;
  req.prompt = work.prompt;
  req.origin.source = "issue";
  req.origin.issue = number;
  req.origin.title = work.issue.title;
  req.origin.url = work.issue.html_url;
  req.origin.asked_by = work.issue.author.login;
  if (work.left_out > 0)
    req.origin.notes.push_back(fmt::format(
        "{} note(s) on the issue by people not admitted were left out of the task", work.left_out));
  return run;
}

}  // namespace aw
