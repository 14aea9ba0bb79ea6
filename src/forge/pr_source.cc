#include "forge/pr_source.h"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "forge/admission.h"
#include "forge/follow_up_history.h"
#include "forge/pr_checks.h"
#include "forge/usage.h"
#include "record/store.h"

namespace aw {

namespace {

std::string folded_ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Status followable(const ForgePull& pull, const std::string& owner_repo,
                  const std::string& self_login) {
  if (self_login.empty() || folded_ascii(pull.author.login) != folded_ascii(self_login))
    return fail(
        "pull request #{} was opened by {}, not by awaywork ({}): awaywork follows up only its "
        "own pull requests and never pushes to another's branch",
        pull.number, pull.author.login, self_login.empty() ? "unknown login" : self_login);
  if (folded_ascii(pull.head_repo) != folded_ascii(owner_repo))
    return fail(
        "pull request #{}'s head is in {}, not in {}: awaywork never pushes to another "
        "repository's branch",
        pull.number, pull.head_repo.empty() ? "a deleted repository" : pull.head_repo, owner_repo);
  if (pull.head_ref.empty() || pull.head_sha.empty() || pull.base_ref.empty())
    return fail("pull request #{}: the answer names no head or base branch", pull.number);
  return {};
}

Result<PullRun> pull_request_run(const Config& cfg, const std::string& repo, int64_t number) {
  AW_TRY(RepoConfig r, with_context(find_forge_repo(cfg, repo), "--pr"));
  AW_TRY(std::unique_ptr<ForgeSession> opened, with_context(open_forge(cfg, r), "repo " + repo));
  PullRun run;
  run.session = std::move(opened);
  ForgeSession& s = *run.session;
  auto read = [&]() -> Status {
    std::string base = fmt::format("/repos/{}/pulls/{}", s.owner_repo, number);
    AW_TRY(nlohmann::json pj, s.gh.get(base));
    AW_TRY(run.pull, pull_from_json(pj, "GET " + base));
    AW_CHECK(followable(run.pull, s.owner_repo, s.self_login));
    AW_TRY(nlohmann::json vj, s.gh.get_all(base + "/reviews?per_page=100"));
    AW_TRY(auto reviews, reviews_from_json(vj, "GET " + base + "/reviews"));
    AW_TRY(nlohmann::json cj, s.gh.get_all(base + "/comments?per_page=100"));
    AW_TRY(auto comments, review_comments_from_json(cj, "GET " + base + "/comments"));
    std::string talk = fmt::format("/repos/{}/issues/{}/comments", s.owner_repo, number);
    AW_TRY(nlohmann::json tj, s.gh.get_all(talk + "?per_page=100"));
    AW_TRY(auto conversation, comments_from_json(tj, "GET " + talk));
    Admission adm(r.forge.trust, r.forge.stop_after, s.self_login, github_roles(s.gh, s.owner_repo),
                  ::time(nullptr));
    PullTask t;
    // t.repo_task stays the follow-up default: the repository's task: is written for issues.
    t.repo = s.owner_repo;
    t.pull = run.pull;
    t.opening_task = opening_task(cfg, run.pull);
    t.reviews = std::move(reviews);
    t.comments = std::move(comments);
    t.conversation = std::move(conversation);
    t.self_login = s.self_login;
    t.since = follow_up_since(cfg, run.pull);
    if (r.follow_ci) {
      // The head the unit will start from: its failing checks, with annotations and log tails.
      AW_TRY(t.checks, read_failing_checks(s, run.pull.head_sha, /*details=*/true));
    }
    run.follow = build_pull_task(t, [&](const ForgeUser& u) { return adm.check(u); });
    if (run.follow.threads.empty() && run.follow.reviewers.empty() && run.follow.quoted == 0 &&
        run.follow.failing.empty())
      return fail(
          "nothing to follow up: no admitted review, review comment or conversation comment asks "
          "for work{} ({} by "
          "people not admitted, {} edited, left out)",
          r.follow_ci ? " and no check fails on the head" : "", run.follow.left_out,
          run.follow.edited);
    return {};
  };
  if (auto ok = with_context(read(), fmt::format("pull request {}#{}", s.owner_repo, number));
      !ok) {
    // No unit will record what the session spent: it is recorded here (a failure to is not one).
    if (auto store = Store::open(state_dir_of(cfg))) (void)save_forge_usage(*store, s);
    return tl::unexpected(ok.error());
  }
  RunRequest& req = run.request;
  req.repo = repo;
  req.prompt = run.follow.prompt;
  // The clone is the head the reviews were read on; if the branch moves meanwhile, the publish
  // finds it moved and pushes nothing.
  req.base = run.pull.head_ref;
  req.base_commit = run.pull.head_sha;
  req.instructions_from = run.pull.base_ref;
  req.origin.source = "pull_request";
  req.origin.issue = number;
  req.origin.title = run.pull.title;
  req.origin.url = run.pull.html_url;
  req.origin.asked_by = fmt::format("{}", fmt::join(run.follow.reviewers, ", "));
  req.origin.notes.push_back(
      fmt::format("{}{} (branch {})", kFollowUpNote, number, run.pull.head_ref));
  if (run.follow.left_out > 0)
    req.origin.notes.push_back(fmt::format(
        "{} review(s) or review comment(s) by people not admitted were left out of the task",
        run.follow.left_out));
  if (!run.follow.failing.empty())
    req.origin.notes.push_back(
        fmt::format("{}{}", kFollowUpChecksNote, fmt::join(run.follow.failing, ", ")));
  if (run.follow.edited > 0)
    req.origin.notes.push_back(
        fmt::format("{} edited review comment(s) were left out of the task", run.follow.edited));
  return run;
}

}  // namespace aw
