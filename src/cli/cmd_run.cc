#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_write.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/render.h"
#include "cli/signals.h"
#include "config/config.h"
#include "forge/gitlab/issue_source.h"
#include "forge/gitlab/mr_publisher.h"
#include "forge/gitlab/mr_source.h"
#include "forge/gitlab/progress.h"
#include "forge/gitlab/publisher.h"
#include "forge/issue.h"
#include "forge/issue_source.h"
#include "forge/pr_publisher.h"
#include "forge/progress_observer.h"
#include "forge/publisher.h"
#include "unit/artifact.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

int exit_for(UnitState s) {
  switch (s) {
    case UnitState::done:
      return kExitDone;
    case UnitState::timed_out:
      return kExitTimedOut;
    case UnitState::lost:
      return kExitLost;
    case UnitState::refused:
      return kExitRefused;
    case UnitState::skipped:
      return kExitSkipped;
    case UnitState::interrupted:
      return kExitInterrupted;
    default:
      return kExitFailed;
  }
}

Result<std::string> prompt_text(const RunOptions& o) {
  if (!o.prompt.empty() && !o.prompt_file.empty())
    return fail("give --prompt or --prompt-file, not both");
  if (!o.prompt_file.empty()) {
    AW_TRY(std::string text, read_file(o.prompt_file, 1 << 20));
    if (text.empty()) return fail("--prompt-file {} is empty", o.prompt_file);
    return text;
  }
  if (o.prompt.empty()) return fail("a task is required: --prompt TEXT or --prompt-file FILE");
  return o.prompt;
}

// The unit as the terminal shows it: progress on stderr, Ctrl-C polled.
class Display : public UnitObserver {
 public:
  Display(Progress& p, const std::function<bool()>& interrupted)
      : progress_(p), interrupted_(interrupted) {}
  void started(UnitRecord& u) override { progress_.started(u); }
  void phase_started(UnitRecord&, const std::string& p) override { progress_.phase(p); }
  void phase_ended(const PhaseRecord& p) override { progress_.phase_done(p); }
  bool cancelled() override {
    progress_.tick();
    return interrupted_();
  }

 private:
  Progress& progress_;
  const std::function<bool()>& interrupted_;
};

// What could not be read for the run (its issue, pull request or prompt): a usage error.
int usage_error(const Error& e) {
  fmt::print(stderr, "awaywork run: {}\n", e.message);
  return kExitUsage;
}

// A follow-up's request as its source built it, with the agent and limits of the command line.
RunRequest follow_up_request(RunRequest r, const RunOptions& o) {
  r.agent = o.agent, r.profile = o.profile, r.unit_seconds = o.unit_seconds;
  return r;
}

}  // namespace

int cmd_run(const GlobalOptions& g, const RunOptions& o) {
  auto interrupted = install_interrupt_handlers();
  auto cfg = load_given_config(g.config);
  if (!cfg) {
    fmt::print(stderr, "awaywork: {}\n", cfg.error().message);
    return kExitUsage;
  }
  // With --artifact this is the reusable workflow's agent job, which publishes nothing: only here
  // (and in apply --from) is an installation token github-actions[bot]'s (forge/self_login.h).
  cfg->workflow_job = !o.artifact.empty();
  RunRequest req;
  req.repo = o.repo, req.agent = o.agent, req.base = o.base, req.profile = o.profile;
  req.unit_seconds = o.unit_seconds;
  req.instructions_from = o.instructions_from;
  req.hold = !o.artifact.empty();
  std::shared_ptr<ForgeSession> session;      // the issue's forge, opened by its source
  std::shared_ptr<GitLabSession> lab;         // or its GitLab project's (the forge's kind picks)
  std::unique_ptr<ProgressObserver> comment;  // the issue's progress comment
  if (!o.issue.empty()) {
    auto ref = parse_issue_ref(o.issue);
    if (!ref || !o.prompt.empty() || !o.prompt_file.empty()) {
      fmt::print(stderr, "awaywork run: {}\n",
                 ref ? "--issue builds the task from the issue; drop --prompt/--prompt-file"
                     : ref.error().message);
      return kExitUsage;
    }
    // The forge is the source: the task and the issue come in the request, as data. The forge's
    // kind picks GitLab's source, progress note and publisher for a gitlab: project.
    if (gitlab_repo(*cfg, ref->repo)) {
      auto issue = gitlab_issue_request(*cfg, ref->repo, ref->number);
      if (!issue) return usage_error(issue.error());
      lab = issue->session;
      req.repo = issue->request.repo;
      req.prompt = issue->request.prompt;
      req.origin = issue->request.origin;
      std::unique_ptr<GitLabProgressObserver> note;
      if (!o.no_progress_comment && !req.hold)
        note = std::make_unique<GitLabProgressObserver>(*lab, ref->number);
      return run_and_report(g, *cfg, req, any_forge_publishers(forge_publishers(), lab),
                            interrupted, "run", o.artifact, note.get());
    }
    auto issue = issue_request(*cfg, ref->repo, ref->number);
    if (!issue) return usage_error(issue.error());
    session = issue->session;
    req.repo = issue->request.repo;
    req.prompt = issue->request.prompt;
    req.origin = issue->request.origin;
    // Not with --artifact: the agent job's token is read-only; the apply job ends the comment.
    if (!o.no_progress_comment && !req.hold)
      comment = std::make_unique<ProgressObserver>(*session, ref->number);
  } else if (!o.pr.empty()) {
    // NAME!N (GitLab's reference to a merge request) or NAME#N: a gitlab: project's is a merge
    // request's follow-up (forge/gitlab/mr_source.h), on the same rules.
    auto ref = parse_mr_ref(o.pr);
    if (!ref || !o.prompt.empty() || !o.prompt_file.empty() || !o.base.empty() ||
        !o.instructions_from.empty()) {
      fmt::print(stderr, "awaywork run: --pr {}\n",
                 ref ? "builds the task from the pull request's reviews and starts from its head; "
                       "drop --prompt/--prompt-file/--base/--instructions-from"
                     : fmt::format("'{}': write NAME#N (a repos: name) or OWNER/REPO#N, e.g. "
                                   "web#9 (on GitLab NAME!N, e.g. app!3)",
                                   o.pr));
      return kExitUsage;
    }
    if (gitlab_repo(*cfg, ref->repo)) {
      auto mr = gitlab_mr_run(*cfg, ref->repo, ref->number);
      if (!mr) return usage_error(mr.error());
      RunRequest follow = follow_up_request(mr->request, o);
      // With --artifact, as on GitHub: held (nothing pushed, no reply, no re-request, no
      // progress note) and written to the folder, which `apply --from` publishes on the merge
      // request (forge/gitlab/mr_publisher.h gitlab_follow_up_publishers).
      follow.hold = req.hold;
      std::unique_ptr<GitLabProgressObserver> note;
      if (!o.no_progress_comment && !follow.hold)
        note =
            std::make_unique<GitLabProgressObserver>(*mr->session, ref->number, "merge_requests");
      return run_and_report(g, *cfg, follow, gitlab_mr_publishers(*mr), interrupted, "run",
                            o.artifact, note.get());
    }
    // The forge is the source: the pull request's head, reviews and review comments.
    auto pull = pull_request_run(*cfg, ref->repo, ref->number);
    if (!pull) return usage_error(pull.error());
    RunRequest follow = follow_up_request(pull->request, o);
    // With --artifact, as for an issue: the unit is checked, held (nothing pushed, no reply, no
    // progress comment: the agent job's token may read only) and written to the folder, which
    // `apply --from` publishes on the pull request (cmd_artifact.cc).
    follow.hold = req.hold;
    if (!o.no_progress_comment && !follow.hold)
      comment = std::make_unique<ProgressObserver>(*pull->session, ref->number);
    return run_and_report(g, *cfg, follow, pull_publishers(*pull), interrupted, "run", o.artifact,
                          comment.get());
  } else if (o.repo.empty()) {
    fmt::print(stderr, "awaywork run: --repo NAME (or --issue NAME#N) is required\n");
    return kExitUsage;
  } else {
    auto prompt = prompt_text(o);
    if (!prompt) return usage_error(prompt.error());
    req.prompt = *prompt;
  }
  return run_and_report(g, *cfg, req, any_forge_publishers(forge_publishers(session), nullptr),
                        interrupted, "run", o.artifact, comment.get());
}

int run_and_report(const GlobalOptions& g, const Config& cfg, const RunRequest& req,
                   const OpenPublisher& publishers, const std::function<bool()>& interrupted,
                   const char* command, const std::string& artifact, UnitObserver* also) {
  Progress progress(::isatty(STDERR_FILENO) == 1);
  Display display(progress, interrupted);
  Observers obs({&display, also});
  auto unit = run_unit(cfg, req, obs, publishers);
  progress.clear();
  if (!unit) {
    fmt::print(stderr, "awaywork {}: {}\n", command, unit.error().message);
    return kExitUsage;
  }
  if (g.json)
    fmt::print("{}\n", json_text(to_json(*unit), 2));
  else
    fmt::print("{}", render_summary(*unit));
  if (!artifact.empty() && !unit->verdict.empty()) {
    if (auto ok = export_artifact(*unit, artifact); !ok) {
      fmt::print(stderr, "awaywork {}: --artifact: {}\n", command, ok.error().message);
      return kExitFailed;
    }
    fmt::print(stderr, "artifact of unit {} written to {}\n", unit->id, artifact);
  }
  return exit_for(unit->state);
}

}  // namespace aw
