// Follow-ups in watch (issue 26, docs/pull-requests.md): the pull requests of the polled list.
// On awaywork's own pull request (its login opened it from a branch of the repository), an
// admitted review requesting changes, review comment or command comment queues a follow-up unit,
// `awaywork run --pr NAME#N` as a child, as issues run `run --issue`; what arrives while it runs
// is batched into the next one, started after follow_up.cooldown, and follow_up.max_units_per_pr
// ends it with a marked comment. On someone else's pull request only an admitted person's command
// counts (reviews are not read), and it queues `run --pr NAME#N` the same way, with the same
// claims, limits and batching: from a branch of the repository that run opens awaywork's own draft
// pull request against the person's branch; from a fork it pushes a branch of awaywork's to this
// repository (on the head GitHub serves as refs/pull/N/head) and comments its compare link. It
// never pushes to the person's branch or to the fork, and answers each command once
// (forge/pr_source.h). A pull request whose head is gone (its fork deleted, its branch or commit
// not named), or awaywork's own from a fork, is one run --pr refuses: its command is logged as
// refused and nothing is started. GitLab's merge requests come here through take_pull_triggers
// and queue_pull too (watcher_gitlab_mrs.cc): one set of follow-up rules for both forges.
//
// With run_on: actions, a claimed follow-up is dispatched to the repository's workflow (input
// pull-request) instead of run here, followed and ended by watcher_actions.cc; the same limits,
// claims and batching apply. A pull request the workflow's apply job opened is
// github-actions[bot]'s (actions_login): awaywork's own only when tied to a run this watch
// dispatched (watcher_actions_own.cc); any other of that login is not dispatched at all.
//
// With follow_ci (triggers_ci.h), a check failing on the head of awaywork's own idle pull request
// (on GitLab: a failed job of its merge request's head pipeline) queues a follow-up too, once per
// head and check; past follow_up.max_ci_attempts heads in a row
// failing the same check it stops, with one marked comment (`item=ci-limit`). Checks do not change
// the issue list, so every poll also looks at the pull requests watch already knows (sweep_ci),
// each with conditional requests: an unchanged pull request and checks answer 304 (free on
// GitHub). GitLab counts a 304, so there one list of the project's pipelines changed since the
// last poll stands for all of them, and only a merge request whose pipeline changed is read.
//
// Several watchers of one forge (two machines) each see the same trigger; a follow-up is claimed
// on the pull request before it starts (claim.h claim_follow_up, on WatchForge::changes(): one
// code for GitHub and GitLab), by the newest admitted trigger of its batch, so only one of them
// runs it and a watcher that polls late yields to the claim that ran its batch.
//
// Counted requests: a pull request is examined only when the issue list (polled with its ETag,
// a 304 when nothing changed) shows it changed; then its answer once (whose it is, kept in the
// slot: it never changes; a refused one's each time), its reviews and review comments (only on
// awaywork's own), and its conversation comments when it has any and a command is configured.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <tuple>

#include "base/fs.h"
#include "base/json_read.h"
#include "forge/admission.h"
#include "forge/gitlab/model.h"
#include "forge/gitlab/pipeline.h"
#include "forge/gitlab/session.h"
#include "forge/gitlab/watch_source.h"
#include "forge/marker.h"
#include "forge/pr_checks.h"
#include "forge/pr_source.h"
#include "forge/self_login.h"
#include "unit/pipeline.h"
#include "watch/iso_time.h"
#include "watch/poll_state.h"
#include "watch/triggers_ci.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"

namespace aw {

using nlohmann::json;

using namespace watch_detail;

Status Watcher::say_on_pull(Repo& r, IssueSlot& slot, const std::string& item,
                            const std::string& text) {
  // The marker names the pull request and what was said: a reader (and a later watch) tells
  // watch's notes from the units' posts and from people's text.
  std::string body = with_marker(
      text, fmt::format("<!-- awaywork:follow-up pr={} item={} -->", slot.number, item));
  return r.forge->post_on_change(slot.number, body);
}

bool Watcher::said_on_pull(Repo& r, IssueSlot& slot, const std::string& item,
                           const std::string& text) {
  auto ok = say_on_pull(r, slot, item, text);
  if (!ok) log_.write("error", with(where(slot), {{"error", ok.error().message}}));
  return static_cast<bool>(ok);
}

bool Watcher::examine_pull(Repo& r, const json& item, int64_t now) {
  auto number = JsonRead(item, "GitHub's issue list").int_or("number", int64_t{0});
  if (!number) {
    log_.write("error", {{"repo", r.watch.repo}, {"error", number.error().message}});
    return false;
  }
  int64_t n = *number;
  if (n <= 0) return true;
  IssueSlot slot;
  if (!slot_of(r, n, slot)) return false;
  slot.repo = r.watch.repo;
  slot.number = n;
  slot.pull = true;
  auto failed = [&](const std::string& why) {
    log_.write("error", {{"repo", r.watch.repo}, {"pull", n}, {"error", why}});
    return false;
  };
  std::string pulls = fmt::format("/repos/{}/pulls/{}", r.s->owner_repo, n);
  // A refused one is read again when it changes: a state kept by an older watch names every
  // fork's pull request refused, and one answer tells it from one whose head is gone.
  if (slot.pull_own == 0 || slot.pull_own == 3) {
    auto pj = r.s->gh.get(pulls);
    if (!pj) return failed(pj.error().message);
    auto pull = pull_from_json(*pj, "GET " + pulls);
    if (!pull) return failed(pull.error().message);
    // Whose it is never changes, so it is read once. Someone else's, from a branch of the
    // repository or from a fork, is answered by run --pr without a push to its branch (a draft
    // pull request against it, or a branch here and a compare link); run --pr refuses the rest:
    // a head that is gone (GitHub names no repository once the fork is deleted), and awaywork's
    // own from a fork (followable: its branch is not awaywork's to push to).
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    bool gone = pull->head_repo.empty() || pull->head_ref.empty() || pull->head_sha.empty();
    bool theirs = lower(pull->author.login) != lower(r.s->self_login);
    bool own = static_cast<bool>(followable(*pull, r.s->owner_repo, r.s->self_login));
    // run_on: actions: one the workflow's apply job opened (its token's login), verified
    // against the runs this watch dispatched (watcher_actions_own.cc). A forge that could not
    // say leaves it unread, for the next look.
    bool jobs_own = false;
    if (!own && theirs && !gone) {
      auto ours = actions_own(r, *pull);
      if (!ours) return failed(ours.error().message);
      own = *ours;
      // The workflow's jobs are github-actions[bot] (forge/self_login.h) and keep no record of
      // runs: they would take any pull request of that login as their own and push to its
      // branch. One not tied to a run this watch dispatched is therefore not dispatched at all.
      jobs_own = !own && r.watch.on_actions && lower(pull->author.login) == kActionsLogin;
    }
    slot.pull_own = own ? 1 : theirs && !gone && !jobs_own ? 2 : 3;
  }
  json reviews, review_comments, comments;
  if (slot.pull_own == 1) {
    auto v = r.s->gh.get_all(pulls + "/reviews?per_page=100");
    if (!v) return failed(v.error().message);
    auto c = r.s->gh.get_all(pulls + "/comments?per_page=100");
    if (!c) return failed(c.error().message);
    reviews = std::move(*v);
    review_comments = std::move(*c);
  }
  auto said = JsonRead(item, "GitHub's issue list").int_or("comments", int64_t{0});
  if (!said) return failed(said.error().message);
  if (!r.watch.command.empty() && *said > 0) {
    auto c = r.s->gh.get_all(
        fmt::format("/repos/{}/issues/{}/comments?per_page=100", r.s->owner_repo, n));
    if (!c) return failed(c.error().message);
    comments = std::move(*c);
  }
  Admission adm(r.repo.forge.trust, stop_after_of(r), r.s->self_login,
                github_roles(r.s->gh, r.s->owner_repo), now);
  TriggerScan scan =
      scan_pull_triggers(r.watch.command, reviews, review_comments, comments, slot.seen,
                         r.s->self_login, [&](const ForgeUser& u) { return adm.check(u); });
  bool admitted = take_pull_triggers(r, slot, scan, now);
  bool ok = true;
  if (!admitted && slot.pull_own == 1 && r.repo.follow_ci && slot.phase == "idle")
    ok = check_ci(r, slot, now);
  keep(slot);
  return ok;
}

bool Watcher::take_pull_triggers(Repo& r, IssueSlot& slot, const TriggerScan& scan, int64_t now) {
  slot.seen = scan.seen;
  const TriggerFinding* admitted = nullptr;
  for (const TriggerFinding& f : scan.found) {
    log_.write(f.admitted ? "trigger_admitted" : "trigger_refused",
               with(where(slot), {{"kind", f.kind}, {"actor", f.actor}, {"reason", f.reason}}));
    if (f.admitted && !admitted) admitted = &f;
  }
  if (!admitted) return false;
  // The batch's key is its newest admitted trigger (claim.h follow_up_key): a follow-up reads
  // every admitted trigger up to its start, so the newest names what it answers, and watchers that
  // saw the same triggers name the batch alike. Ordered by time, then kind and id (a review's and
  // a comment's ids are two sequences): the same answer on every watcher.
  const TriggerFinding* newest = nullptr;
  for (const TriggerFinding& f : scan.found)
    if (f.admitted &&
        (!newest || std::tie(f.at, f.kind, f.id) > std::tie(newest->at, newest->kind, newest->id)))
      newest = &f;
  std::string key = follow_up_key(newest->kind, std::to_string(newest->id));
  std::string what = r.forge->change_name();
  if (slot.pull_own == 3) {
    // Only a command reaches here (reviews of another's pull request are not read). Said in the
    // log only: run --pr would refuse it, and a comment per command would be noise.
    log_.write("follow_up_refused",
               with(where(slot),
                    {{"reason", fmt::format("the {}'s head is gone (its repository deleted, or no "
                                            "branch or commit named), or it is awaywork's own "
                                            "from another repository, or (run_on: actions) it is "
                                            "github-actions[bot]'s and not tied to a run this "
                                            "watch dispatched, which the workflow's jobs would "
                                            "push to as their own: there is nothing awaywork "
                                            "may start from or push to",
                                            what)},
                     {"trigger", admitted->reason}}));
  } else if (slot.phase == "running" || slot.phase == "dispatched") {
    // Batched: the next unit starts when this one (here, or its workflow run) ends.
    slot.pending = true;
    slot.trigger_key = key;
    log_.write("follow_up_batched", with(where(slot), {{"trigger", admitted->reason}}));
  } else if (slot.phase == "idle") {
    queue_pull(r, slot, admitted->reason, key, now);
  } else {
    log_.write(
        "trigger_ignored",
        with(where(slot), {{"reason", fmt::format("the {} is already {}", what, slot.phase)}}));
  }
  return true;
}

namespace {

std::string ci_key(const std::string& repo, int64_t number) {
  return fmt::format("pullci/{}/{:012}", repo, number);
}

}  // namespace

bool Watcher::check_ci(Repo& r, IssueSlot& slot, int64_t now) {
  auto failed = [&](const std::string& why) {
    log_.write("error", with(where(slot), {{"error", why}}));
    return false;
  };
  std::string key = ci_key(slot.repo, slot.number);
  auto kept = store_->watch_get(key);
  if (!kept) return failed("state database: " + kept.error().message);
  CiState st;
  if (*kept) {
    auto s = ci_state_from_json(**kept, "watch state " + key);
    if (!s) return failed(s.error().message);
    st = std::move(*s);
  }
  if (st.closed) return true;
  auto save = [&] {
    if (auto ok = store_->watch_put(key, to_json(st)); !ok)
      return failed("state database: " + ok.error().message);
    return true;
  };
  // The head and whether it is open: GitHub's pull request, or GitLab's merge request (state
  // "opened"); then the names of what fails on that head: GitHub's checks, or the failed jobs of
  // the merge request's own pipeline (its head_pipeline, never another ref's on the same commit;
  // no trace read: the follow-up reads them itself).
  std::string what = r.gl ? fmt::format("{}/merge_requests/{}", r.gl->project_target(), slot.number)
                          : fmt::format("/repos/{}/pulls/{}", r.s->owner_repo, slot.number);
  auto pj = r.gl ? r.gl->gl.get(what) : r.s->gh.get(what);
  if (!pj) return failed(pj.error().message);
  auto pull = r.gl ? gitlab_mr_from_json(*pj, "GET " + what) : pull_from_json(*pj, "GET " + what);
  if (!pull) return failed(pull.error().message);
  if (pj->value("state", r.gl ? "opened" : "open") != (r.gl ? "opened" : "open")) {
    st.closed = true;  // a closed (or merged) pull request's checks ask for nothing
    return save();
  }
  auto failing = r.gl
                     ? gitlab_failing_jobs(*r.gl, *pull, *pj, /*traces=*/false)
                     : read_failing_checks(*r.s, pull->head_sha, pull->base_ref, /*details=*/false);
  if (!failing) return failed(failing.error().message);
  std::vector<std::string> names;
  for (const FailingCheck& f : *failing) names.push_back(f.name);
  const int max = r.repo.follow_up.max_ci_attempts;
  CiVerdict v = judge_ci(st, pull->head_sha, names, max);
  if (v.stop) {
    log_.write("follow_up_ci_limit",
               with(where(slot),
                    {{"check", ci_name_for_post(v.check)}, {"failed", v.streak}, {"max", max}}));
    if (!st.said) {
      // Said once: a marked comment of awaywork's already there (an answer lost after the post,
      // a state database restored, or run --pr's own: the same marker) counts as said. The
      // conversation of the pull request, or the merge request's notes (WatchForge::changes).
      std::string marker = ci_limit_marker(slot.number);
      auto talk = r.gl ? r.forge->changes()->comments(slot.number)
                       : r.s->gh.get_all(fmt::format("/repos/{}/issues/{}/comments?per_page=100",
                                                     r.s->owner_repo, slot.number));
      if (!talk) return failed(talk.error().message);
      auto said = comments_from_json(*talk, "GET comments");
      if (!said) return failed(said.error().message);
      const std::string& self = r.forge->self_login();
      for (const ForgeComment& c : *said)
        if (c.author.login == self && c.body.find(marker) != std::string::npos) st.said = true;
      if (!st.said) {
        // Not said: tried again at the next failing head.
        st.said = said_on_pull(r, slot, "ci-limit",
                               ci_limit_comment(ci_name_for_post(v.check), v.streak - 1, max));
      }
    }
  } else if (v.trigger) {
    log_.write("trigger_admitted",
               with(where(slot), {{"kind", "check"}, {"actor", ""}, {"reason", v.reason}}));
    // A failing check's batch is its head and name: every watcher judges the same head alike.
    queue_pull(r, slot, v.reason, follow_up_key("check", pull->head_sha + "-" + v.check), now);
  }
  return save();
}

void Watcher::sweep_ci(Repo& r, int64_t now) {
  // GitHub's checks, or a GitLab project's pipelines (a pipeline that ends does not always touch
  // the merge request's updated_at, so the merge request list may not show it).
  if (!r.repo.follow_ci || (r.repo.forge.github.empty() && !r.gl)) return;
  auto known = store_->watch_list("pullci/" + r.watch.repo + "/");
  if (!known) {
    log_.write("error",
               {{"repo", r.watch.repo}, {"error", "state database: " + known.error().message}});
    return;
  }
  std::vector<int64_t> followed;  // those seen before and not closed
  for (const auto& [key, value] : *known) {
    if (value.is_object() && value.value("closed", false)) continue;
    try {
      followed.push_back(std::stoll(key.substr(key.rfind('/') + 1)));
    } catch (const std::exception&) {
      continue;  // not a key this file wrote
    }
  }
  bool mr = r.gl != nullptr;  // a GitLab project's pull requests are its merge requests
  // Looks at one: true when it is settled (judged, or nothing of awaywork's to judge); false when
  // the forge or the state could not be read, or a follow-up of it is queued or running (its
  // head is judged when it is idle again).
  auto look = [&](int64_t n) {
    IssueSlot slot;
    if (auto it = slots_.find(slot_key(r.watch.repo, n, mr)); it != slots_.end()) {
      slot = it->second;
    } else if (auto loaded = load_slot(*store_, r.watch.repo, n, mr); loaded) {
      slot = *loaded;
    } else {
      log_.write("error", {{"repo", r.watch.repo}, {"pull", n}, {"error", loaded.error().message}});
      return false;
    }
    if (!slot.pull || slot.pull_own != 1) return true;  // not awaywork's own (or never examined)
    // A running or queued follow-up reads the checks itself; the head it pushes is judged later.
    if (slot.phase != "idle") return false;
    bool ok = check_ci(r, slot, now);
    keep(slot);
    return ok;
  };
  if (!r.gl) {
    // GitHub: each one's head and checks, conditional (an unchanged one answers 304, free).
    for (int64_t n : followed) (void)look(n);
    return;
  }
  // GitLab counts a 304 as any request, so a request per merge request per poll is not asked:
  // one list of the project's pipelines changed since the last poll ("pollci/REPO", a poll state
  // as the issues'), and only the merge requests a changed pipeline may be the head pipeline of
  // (by its ref: GitLabWatchReader::pipeline_mrs) are read, each once a poll. A pipeline whose
  // merge request has a follow-up queued or running is not settled: looked at again each poll
  // (no request) until that one is idle, so the end of a pipeline on the follow-up's head is
  // never passed over.
  std::string key = "pollci/" + r.watch.repo;
  PollState st;
  if (followed.empty() && r.glr->mr_branches().empty()) {
    // Nothing to follow: no request. The state starts again from now when there is.
    if (auto kept = store_->watch_get(key);
        kept && *kept && !poll_state_from_json(**kept).since.empty())
      if (auto ok = store_->watch_put(key, to_json(PollState{})); !ok)
        log_.write("error",
                   {{"repo", r.watch.repo}, {"error", "state database: " + ok.error().message}});
    return;
  }
  if (!poll_state_of(r, key, now, st)) return;
  std::map<int64_t, bool> looked;  // this poll's: each merge request read once
  auto look_once = [&](int64_t n) {
    auto it = looked.find(n);
    return it != looked.end() ? it->second : (looked[n] = look(n));
  };
  // One followed before and missing from a whole list of the open ones was closed or merged:
  // read once (check_ci keeps it closed), so that a project whose merge requests are all closed
  // asks for pipelines no more.
  if (r.glr->mrs_whole())
    for (int64_t n : followed)
      if (!r.glr->mr_branches().count(n)) (void)look_once(n);
  if (st.since.empty()) {
    // The first sweep (or the first since nothing was followed): every known one is read as
    // before, and the pipelines' list starts an hour back (GitLab's clock may differ from this
    // one; what changed earlier was judged by this read).
    st.since = iso_utc(now - 3600);
    for (int64_t n : followed) (void)look_once(n);
  }
  auto list = r.glr->changed_pipelines(st.since);
  if (!list) {
    log_.write("poll_failed",
               {{"repo", r.watch.repo}, {"what", "pipelines"}, {"error", list.error().message}});
    return;
  }
  ListAnswer answer;
  answer.items = json::array();
  for (const json& p : *list) answer.items.push_back(gitlab_pipeline_as_listed(p));
  answer.server_time = now;
  settle(r, key, st, answer, [&](const json& pipeline) {
    auto which = r.glr->pipeline_mrs(pipeline);
    std::vector<int64_t> targets = which ? *which : followed;
    if (!which)
      for (const auto& [n, branch] : r.glr->mr_branches()) targets.push_back(n);
    bool ok = true;
    for (int64_t n : targets) ok = look_once(n) && ok;
    return ok;
  });
}

void Watcher::queue_pull(Repo& r, IssueSlot& slot, const std::string& trigger,
                         const std::string& key, int64_t now) {
  const FollowUpLimits& lim = r.repo.follow_up;
  if (slot.follow_units >= lim.max_units_per_pr) {
    log_.write("follow_up_limit",
               with(where(slot), {{"units", slot.follow_units}, {"max", lim.max_units_per_pr}}));
    if (!slot.limit_said) {
      // Not said: tried again at the next trigger.
      std::string note = fmt::format(
          "awaywork stopped following up this {}: it has run {} follow-up unit(s) on it, the "
          "repository's limit (follow_up: {{max_units_per_pr: {}}}). Nothing more starts here; a "
          "person takes it from here, or raises the limit in awaywork's config.",
          r.forge->change_name(), slot.follow_units, lim.max_units_per_pr);
      slot.limit_said = said_on_pull(r, slot, "limit", note);
    }
    slot.phase = "idle";
    return;
  }
  queue_slot(slot, now, trigger);
  slot.trigger_key = key;
  // The cooldown counts from the end of the previous follow-up of this pull request.
  slot.not_before = slot.follow_ended > 0 ? slot.follow_ended + lim.cooldown : 0;
  log_.write("queued", with(where(slot), {{"trigger", trigger}, {"not_before", slot.not_before}}));
}

namespace {

// Who claims a follow-up: this watcher, for the slot's batch. A slot queued before follow-up
// claims existed has no key: one of its own (no other watcher's names it), so only the live-claim
// rule holds it.
Claimant follow_up_claimant(const Claimant& me, const IssueSlot& slot) {
  Claimant c = me;
  c.key = !slot.trigger_key.empty() ? slot.trigger_key
                                    : follow_up_key("queued", std::to_string(slot.queued_at));
  return c;
}

}  // namespace

bool Watcher::claim_pull(Repo& r, IssueSlot& slot, int64_t now) {
  Claimant me = follow_up_claimant(me_, slot);
  std::unique_ptr<WatchForge> changes = r.forge->changes();
  OwnClaims own{slot.ended_claim, {slot.attempt_host, slot.attempt_pid}, slot.attempt_since};
  auto result = claim_follow_up(*changes, slot.number, me, cfg_.watch.claim_ttl, now,
                                trusted(r, now), own, [&] { keep_attempt(slot, now); });
  if (!result) {
    claim_failed(slot, now, result.error());
    return false;
  }
  slot.ended_claim = 0;
  slot.attempt_host.clear();
  slot.attempt_pid = slot.attempt_since = 0;
  if (!result->left.empty())
    log_.write("error", with(where(slot), {{"error", "claims of this watcher left on the " +
                                                         std::string(r.forge->change_name()) +
                                                         ": " + result->left}}));
  if (!result->won) {
    // Another watcher runs this batch (or has run it); what arrives later its watcher batches.
    log_.write("yield", with(where(slot), {{"winner_host", result->winner.host},
                                           {"winner_comment", result->winner.comment_id},
                                           {"key", me.key},
                                           {"posted", result->comment_id != 0}}));
    slot.phase = "idle";
    slot.pending = false;
    keep(slot);
    return false;
  }
  slot.claim_key = me.key;
  slot.claim_comment = result->comment_id;
  slot.claim_since = result->since;
  slot.claim_touched = now;
  slot.claim_note = result->note;
  log_.write("claim", with(where(slot), {{"comment", slot.claim_comment},
                                         {"key", me.key},
                                         {"note", result->note},
                                         {"resumed", result->resumed}}));
  return true;
}

void Watcher::end_pull_claim(Repo& r, IssueSlot& slot, const std::string& text) {
  if (slot.claim_comment <= 0) return;
  Claimant me = me_;
  me.key = slot.claim_key;
  std::unique_ptr<WatchForge> changes = r.forge->changes();
  // Ended, not deleted: the claim stays as the record that its batch was run, so a watcher that
  // polls late yields to it (claim.h claim_follow_up).
  auto ok = release_claim(*changes, slot.number, slot.claim_comment, me, slot.claim_since,
                          {"ended", text, {}, {}});
  if (!ok) log_.write("error", with(where(slot), {{"error", ok.error().message}}));
}

void Watcher::start_pull(Repo& r, IssueSlot& slot, int64_t now) {
  if (!claim_pull(r, slot, now)) return;
  // run_on: actions: claimed here, run by the repository's workflow (watcher_actions.cc). GitLab
  // projects cannot set it (config/parse_watch.cc); a merge request never gets here.
  if (r.watch.on_actions && !slot.mr) return dispatch(r, slot, now);
  std::string log;
  // GitLab's own reference to a merge request is NAME!N (its iids are apart from the issues').
  auto child = spawn_unit(
      {"run", "--pr", fmt::format("{}{}{}", slot.repo, slot.mr ? "!" : "#", slot.number), "--json"},
      fmt::format("{}-{}{}", slot.repo, slot.mr ? "mr" : "pr", slot.number), now, log);
  if (!child) {
    log_.write("error", with(where(slot), {{"error", child.error().message}}));
    end_pull_claim(r, slot,
                   "Ended: the follow-up unit could not be started: " + child.error().message);
    slot.claim_comment = 0;
    slot.phase = "idle";
    slot.follow_ended = now;
    return keep(slot);
  }
  take_child(r, slot, std::move(*child));
  slot.unit_id.clear();
  slot.phases_logged = 0;
  slot.stop_reason.clear();
  slot.pending = false;  // what arrived until now is in this unit's task
  ++slot.follow_units;
  keep(slot);
  log_.write(
      "unit_spawned",
      with(where(slot), {{"pid", slot.child_pid}, {"log", log}, {"follow_up", slot.follow_units}}));
}

void Watcher::finish_pull(Repo& r, IssueSlot& slot, int exit_status, int64_t now) {
  r.running = std::max(r.running - 1, 0);
  std::optional<UnitRecord> unit = ended_unit(slot);
  bool stopped = slot.stop_reason == "window ended" || slot.stop_reason == "watch stopped";
  // A run that made no unit (nothing admitted left to follow up, the branch not followable) or
  // one watch stopped is not a follow-up spent.
  if (!unit || stopped) slot.follow_units = std::max(slot.follow_units - 1, 0);
  log_.write("follow_up_ended",
             with(where(slot), {{"unit", unit ? unit->id : ""},
                                {"state", unit ? to_string(unit->state) : "none"},
                                {"reason", unit ? unit->reason : ""},
                                {"exit", exit_status},
                                {"commit", unit ? unit->commit : ""}}));
  slot.follow_ended = now;
  slot.phase = "idle";
  slot.child_pid = 0;
  slot.child_start.clear();
  slot.unit_id.clear();
  slot.phases_logged = 0;
  std::string reason = slot.stop_reason;
  slot.stop_reason.clear();
  // The claim's end says how the follow-up went; its trigger batch is handled unless watch
  // stopped it (then queued again below, and the next claim of this watcher replaces it).
  end_pull_claim(
      r, slot,
      stopped ? fmt::format("Ended: {}; the follow-up is queued again.", reason)
      : unit  ? fmt::format("Ended: follow-up unit `{}`: {}.", unit->id, to_string(unit->state))
              : "Ended: the follow-up run made no unit.");
  slot.ended_claim = stopped ? slot.claim_comment : 0;
  slot.claim_comment = 0;
  if (stopped) {
    // Its triggers were not followed up: queued again, without the cooldown.
    slot.phase = "queued";
    slot.queued_at = now;
    slot.not_before = 0;
    slot.requeued = true;
  } else if (slot.pending) {
    slot.pending = false;
    queue_pull(r, slot, "batched: arrived while the previous follow-up ran", slot.trigger_key, now);
  }
  keep(slot);
}

}  // namespace aw
