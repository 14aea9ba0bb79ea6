#include "forge/pr_source.h"

#include <algorithm>
#include <ctime>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/utc.h"
#include "config/repos.h"
#include "forge/admission.h"
#include "forge/ci_attempts.h"
#include "forge/follow_up_history.h"
#include "forge/marker.h"
#include "forge/pr_checks.h"
#include "forge/pr_files.h"
#include "forge/publish.h"
#include "forge/usage.h"
#include "git/git.h"
#include "record/store.h"
#include "unit/apply.h"

namespace aw {

namespace {

std::string folded_ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The command of the repository's watch: entry (`command:`), else watch's default.
std::string command_of(const Config& cfg, const std::string& owner_repo) {
  for (const WatchRepoConfig& w : cfg.watch.repos) {
    auto r = find_forge_repo(cfg, w.repo);
    if (r && folded_ascii(r->forge.github) == folded_ascii(owner_repo)) return w.command;
  }
  // A named default, not WatchRepoConfig{}.command: GCC 12 at -O3 reads the temporary's other
  // members as maybe-uninitialized (the Release unity build).
  static const WatchRepoConfig kWatchDefaults;
  return kWatchDefaults.command;
}

// What every unit answering a pull request takes from it, whoever's it is: the task its source
// built, the head it was read on as the clone (pinned: the reviews and commands were read on that
// commit), the agent's instruction files from the base branch (a pull request's author must not
// instruct the agent) and where the unit came from. `base` names the clone's branch.
void start_on_pull(RunRequest& req, const PullRun& run, int64_t number, std::string base,
                   std::string source) {
  req.prompt = run.follow.prompt;
  req.base = std::move(base);
  req.base_commit = run.pull.head_sha;
  req.instructions_from = run.pull.base_ref;
  req.origin.source = std::move(source);
  req.origin.issue = number;
  req.origin.title = run.pull.title;
  req.origin.url = run.pull.html_url;
}

// The note a unit answering this command records (publish.h kForeignPullNote).
std::string foreign_note(const ForgePull& pull, const ForgeComment& c) {
  return fmt::format("{}{} (branch {}), for the command of @{} (comment {})", kForeignPullNote,
                     pull.number, pull.head_ref, c.author.login, c.id);
}

// The note of a unit answering a command on a fork's pull request (publish.h kForkPullNote).
std::string fork_note(const ForgePull& pull, const ForgeComment& c) {
  return fmt::format("{}{} ({} branch {}), for the command of @{} (comment {})", kForkPullNote,
                     pull.number, pull.head_repo, pull.head_ref, c.author.login, c.id);
}

// A unit of this machine that answered this command already (done, or still running): its id.
// One command makes one draft pull request; a new command asks again.
std::string answered_by(const Config& cfg, const std::string& note) {
  auto store = Store::open(state_dir_of(cfg));
  if (!store) return "";
  auto units = store->list(1000);
  if (!units) return "";
  for (const UnitRecord& u : *units)
    if ((u.state == UnitState::done || u.state == UnitState::running) &&
        std::find(u.notes.begin(), u.notes.end(), note) != u.notes.end())
      return u.id;
  return "";
}

// `follow_up.max_ci_attempts` without watch (forge/ci_attempts.h, issue 26): counted from this
// machine's record, not from watch's state, so a hand-run follow-up honours it too. When the last
// follow-ups of this pull request recorded here each quoted a check that still fails on the head,
// as many in a row as the limit, no unit starts: another fix would most likely fail it again, and
// every unit costs. The one marked comment saying so (watch's marker: either's counts) is posted
// unless awaywork's login already did; a failed post is named in the refusal, never retried here.
Status within_ci_limit(const Config& cfg, const RepoConfig& r, ForgeSession& s,
                       const ForgePull& pull, const std::vector<FailingCheck>& checks,
                       const std::vector<ForgeComment>& conversation) {
  std::vector<std::string> failing;
  for (const FailingCheck& c : checks) failing.push_back(c.name);
  AW_TRY(auto tried, ci_fixes_tried(cfg, pull, failing));
  return aw::within_ci_limit(
      tried, failing, r.follow_up.max_ci_attempts, pull.number, conversation, s.self_login,
      "pull request", [&](const std::string& text, const std::string& marker) -> Status {
        AW_CHECK(s.gh.post(fmt::format("/repos/{}/issues/{}/comments", s.owner_repo, pull.number),
                           nlohmann::json{{"body", with_marker(text, marker)}}));
        return {};
      });
}

}  // namespace

std::optional<ForgeComment> admitted_command(const std::vector<ForgeComment>& comments,
                                             const std::string& command,
                                             const std::string& self_login, const AdmitFn& admit) {
  std::optional<ForgeComment> newest;
  if (command.empty()) return newest;
  for (const ForgeComment& c : comments) {
    const std::string& b = c.body;
    bool is_command =
        b.compare(0, command.size(), command) == 0 &&
        (b.size() == command.size() || b[command.size()] == ' ' || b[command.size()] == '\t' ||
         b[command.size()] == '\n' || b[command.size()] == '\r');
    bool edited = !c.updated_at.empty() && c.updated_at != c.created_at;
    if (!is_command || edited) continue;
    if (!self_login.empty() && folded_ascii(c.author.login) == folded_ascii(self_login)) continue;
    if (!admit(c.author).admitted) continue;
    if (!newest || std::tie(c.created_at, c.id) > std::tie(newest->created_at, newest->id))
      newest = c;
  }
  return newest;
}

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
  // Not awaywork's pull request: only an admitted person's command asks for work on it.
  auto read_foreign = [&](Status refused) -> Status {
    std::string talk = fmt::format("/repos/{}/issues/{}/comments", s.owner_repo, number);
    AW_TRY(nlohmann::json tj, s.gh.get_all(talk + "?per_page=100"));
    AW_TRY(auto conversation, comments_from_json(tj, "GET " + talk));
    Admission adm(r.forge.trust, r.forge.stop_after, s.self_login, github_roles(s.gh, s.owner_repo),
                  ::time(nullptr));
    std::string command = command_of(cfg, s.owner_repo);
    auto asked = admitted_command(conversation, command, s.self_login,
                                  [&](const ForgeUser& u) { return adm.check(u); });
    if (!asked)
      return fail(
          "{}; and no admitted person's command (a comment starting with `{}`) asks for "
          "work on it",
          refused.error().message, command.empty() ? "/awaywork" : command);
    // A fork's pull request: its head is in another repository, which awaywork never pushes to;
    // the unit's branch goes to this one, on top of the head GitHub serves here.
    run.fork = folded_ascii(run.pull.head_repo) != folded_ascii(s.owner_repo);
    if (run.fork && run.pull.head_repo.empty())
      return fail("pull request #{}'s head repository was deleted: there is no head to start from",
                  number);
    if (run.pull.head_ref.empty() || run.pull.head_sha.empty() || run.pull.base_ref.empty())
      return fail("pull request #{}: the answer names no head or base branch", number);
    std::string note = run.fork ? fork_note(run.pull, *asked) : foreign_note(run.pull, *asked);
    if (std::string by = answered_by(cfg, note); !by.empty())
      return fail(
          "nothing to do: the newest command (comment {} by @{}) was answered by unit {}; "
          "`awaywork apply {}` finishes its publish, a new command asks again",
          asked->id, asked->author.login, by, by);
    ForeignPullTask t;
    t.repo = s.owner_repo;
    t.pull = run.pull;
    t.command = *asked;
    AW_TRY(t.diff, read_pull_files(s.gh, s.owner_repo, number));
    run.foreign = true;
    run.command = *asked;
    run.follow.prompt = build_foreign_pull_task(t);
    if (run.fork) {
      // The default task says where the change goes; on a fork's pull request it goes elsewhere.
      // Only awaywork's own text, which comes before every quoted one, is replaced.
      const std::string said =
          "your change becomes a draft pull request of awaywork's against "
          "its branch (its branch itself is not changed).";
      size_t at = run.follow.prompt.find(said);
      if (at != std::string::npos)
        run.follow.prompt.replace(
            at, said.size(),
            "that pull request comes from a fork, so your change becomes one commit on that head, "
            "on a branch of awaywork's in this repository, offered to its author by a link (their "
            "branch itself is not changed).");
    }
    return {};
  };
  auto read = [&]() -> Status {
    std::string base = fmt::format("/repos/{}/pulls/{}", s.owner_repo, number);
    AW_TRY(nlohmann::json pj, s.gh.get(base));
    AW_TRY(run.pull, pull_from_json(pj, "GET " + base));
    Status own = followable(run.pull, s.owner_repo, s.self_login);
    if (!own && !s.self_login.empty() &&
        folded_ascii(run.pull.author.login) != folded_ascii(s.self_login))
      return read_foreign(std::move(own));
    AW_CHECK(own);
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
    AW_TRY(t.opening_task, opening_task(cfg, run.pull));
    t.reviews = std::move(reviews);
    t.comments = std::move(comments);
    t.conversation = std::move(conversation);
    t.self_login = s.self_login;
    AW_TRY(t.since, follow_up_since(cfg, run.pull));
    // What the pull request changes now, as the reviewers see it (capped: pr_files.h).
    AW_TRY(t.diff, read_pull_files(s.gh, s.owner_repo, number));
    t.has_diff = true;
    if (r.follow_ci) {
      // The head the unit will start from: its failing checks, with annotations and log tails.
      AW_TRY(t.checks,
             read_failing_checks(s, run.pull.head_sha, run.pull.base_ref, /*details=*/true));
      AW_CHECK(within_ci_limit(cfg, r, s, run.pull, t.checks, t.conversation));
    }
    run.follow = build_pull_task(t, [&](const ForgeUser& u) { return adm.check(u); });
    if (run.follow.asks_nothing())
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
  if (run.foreign && run.fork) {
    // The fork's head reaches the mirror as the base repository serves it, refs/pull/N/head:
    // that one ref, fetched for this unit (the mirror fetches no pull request's head else).
    ForgeSession& s = *run.session;
    ApplyTarget remote = forge_git_target(s.forge, s.repo.clone_url, s.token);
    std::string askpass;
    if (!remote.credential.empty()) {
      AW_TRY(askpass, askpass_program());
    }
    AW_CHECK(with_context(
        fetch_pull_head(remote, mirror_dir_for(state_dir_of(cfg), remote.url), askpass, number),
        fmt::format("pull request {}#{}", s.owner_repo, number)));
    // "pull/N/head" names refs/pull/N/head in the mirror (and the clone's branch); the clone is
    // pinned to the head the command was read on.
    start_on_pull(req, run, number, fmt::format("pull/{}/head", number), "pull_request_command");
    req.origin.asked_by = run.command.author.login;
    req.origin.notes.push_back(fork_note(run.pull, run.command));
    return run;
  }
  if (run.foreign) {
    // The clone is the head the command was read on; the unit's branch and draft pull request
    // start from it and target its branch, which is never pushed to.
    // Not "pull_request": the unit opens a pull request of its own, and continues no agent
    // session of the person's pull request (`resume:` keeps sessions of awaywork's own).
    start_on_pull(req, run, number, run.pull.head_ref, "pull_request_command");
    req.origin.asked_by = run.command.author.login;
    req.origin.notes.push_back(foreign_note(run.pull, run.command));
    return run;
  }
  // The clone is the head the reviews were read on; if the branch moves meanwhile, the publish
  // finds it moved and pushes nothing.
  start_on_pull(req, run, number, run.pull.head_ref, "pull_request");
  req.origin.asked_by = fmt::format("{}", fmt::join(run.follow.reviewers, ", "));
  req.origin.notes.push_back(
      fmt::format("{}{} (branch {})", kFollowUpNote, number, run.pull.head_ref));
  if (!run.follow.threads.empty())
    req.origin.notes.push_back(
        fmt::format("{}{}", kFollowUpThreadsNote, fmt::join(run.follow.threads, ", ")));
  if (!run.follow.reviewers.empty())
    req.origin.notes.push_back(
        fmt::format("{}{}", kFollowUpReviewersNote, fmt::join(run.follow.reviewers, ", ")));
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
