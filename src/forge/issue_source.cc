#include "forge/issue_source.h"

#include <ctime>

#include <fmt/format.h>

#include "forge/issue.h"
#include "forge/usage.h"
#include "record/store.h"

namespace aw {

Result<IssueRun> issue_request(const Config& cfg, const std::string& repo, int64_t number) {
  AW_TRY(RepoConfig r, with_context(find_forge_repo(cfg, repo), "--issue"));
  AW_TRY(std::unique_ptr<ForgeSession> opened, with_context(open_forge(cfg, r), "repo " + repo));
  IssueRun run;
  run.session = std::move(opened);
  auto work = with_context(issue_work(*run.session, r, number, ::time(nullptr)),
                           fmt::format("issue {}#{}", run.session->owner_repo, number));
  if (!work) {
    // No unit will record what the session spent: it is recorded here (a failure to is not one).
    if (auto store = Store::open(state_dir_of(cfg))) (void)save_forge_usage(*store, *run.session);
    return tl::unexpected(work.error());
  }
  run.request = issue_run_request(repo, number, *work, "comment(s)");
  return run;
}

RunRequest issue_run_request(const std::string& repo, int64_t number, const IssueWork& work,
                             std::string_view left_out_what) {
  RunRequest req;
  req.repo = repo;
  req.prompt = work.prompt;
  req.origin.source = "issue";
  req.origin.issue = number;
  req.origin.title = work.issue.title;
  req.origin.url = work.issue.html_url;
  req.origin.asked_by = work.issue.author.login;
  if (work.left_out > 0)
    req.origin.notes.push_back(
        fmt::format("{} {} on the issue by people not admitted were left out of the task",
                    work.left_out, left_out_what));
  return req;
}

}  // namespace aw
