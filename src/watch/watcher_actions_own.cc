// run_on: actions (issue 26, docs/pull-requests.md#run_on-actions-follow-ups-on-github-actions):
// the pull request a dispatched workflow's apply job opens is authored by the login of the
// workflow's token (github.token: github-actions[bot]), not by watch's. Watch takes such a pull
// request as its own (reviews, review comments and failing checks followed up, pushes to its
// branch) only when all of these hold:
//   - its author is the watch entry's actions_login (config.h WatchRepoConfig);
//   - its body ends with awaywork's marker of a unit's pull request, `<!-- awaywork:unit=U
//     item=pull sha=S -->`, and its head is this repository's branch branch_prefix + U (the branch
//     that unit's apply pushed), its base the repository's configured base (base:, else its
//     default branch);
//   - a run this watch dispatched for an issue (its record, written at dispatch:
//     actions_run/REPO/RUN, with "pull": false) holds the artifact awaywork-pull-U-N, N this pull
//     request's number (forge/actions.h), which the apply job uploads only once `apply --from`
//     opened pull request N, and which on GitHub only that run's own jobs can upload;
//   - no other pull request was taken for U before (actions_pull/REPO/U, written when one is).
// The marker alone proves nothing: anyone who can open a pull request can write it, and every
// workflow of the repository publishes as github-actions[bot]. Nor does the unit's artifact
// awaywork-unit-U: it is uploaded whatever the run's end (`if: always()`), so it also names the
// unit of a follow-up's run (which pushes to an existing pull request and never opens branch_prefix
// + U) and of an issue run whose check refused or whose apply failed; someone who can push a branch
// reads U from the run's artifacts and opens the pull request that run never did. Only the pull
// artifact ties this number to a run watch dispatched for an issue. Any other pull request by that
// login is someone else's: only an admitted person's command counts there, as before.
//
// The records are pruned (prune_dispatched_runs, at most once an hour, before the list is
// examined): a run's record once the pull request tied to it is closed or merged (with the records
// of the follow-up runs dispatched on that pull request), any run's record past 401 days (GitHub
// keeps a run's artifacts 90 days at most in a public repository, 400 in a private one: no run that
// old holds one), then each pull record whose run's record is gone. Why pruning never makes a
// forged pull request awaywork's own:
//   - a missing run record refuses (the loop below finds no run of this watch), so erasing one
//     can only take "own" away, never give it; a pull request already taken keeps its slot's
//     verdict (watcher_pulls.cc reads whose it is once), one read again (its slot lost, or
//     reopened by hand in a fresh state) is refused;
//   - a run record is written only here, at dispatch, under the id GitHub's dispatch answer gave
//     this watch, and GitHub never gives a run id twice: no one can make an erased record, or the
//     run it named, count again (another run, anyone's, has a new id this watch never recorded);
//   - the pull record (one pull request per unit; its absence lets the first one in) goes only
//     after the record of the run it names, so it no longer guards a unit whose artifact a
//     recorded run holds: unit ids are made once per run (unit/unit_id.h), and only that run's
//     jobs upload awaywork-pull-U-N (a follow-up's run opens no pull request).
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include "forge/actions.h"
#include "forge/marker.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"

namespace aw {

using nlohmann::json;

using namespace watch_detail;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The unit a pull request's marker names: "unit=U item=pull sha=S", U as make_unit_id writes it
// ([a-z0-9-], unit/unit_id.h); "" for any other marker, or none.
std::string pull_marker_unit(const std::string& body) {
  auto m = trailing_marker(body);
  if (!m) return "";
  std::string_view v = *m;
  constexpr std::string_view head = "unit=";
  size_t sp = v.find(' ');
  if (!v.starts_with(head) || sp == std::string_view::npos) return "";
  std::string unit(v.substr(head.size(), sp - head.size()));
  if (unit.empty() || unit.size() > 80) return "";
  for (char c : unit)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      return "";
  // Exactly the marker awaywork writes on the pull request it opens (marker.h).
  return has_marker(body, unit, "pull") ? unit : "";
}

std::string run_key(const std::string& repo, int64_t run) {
  return fmt::format("actions_run/{}/{}", repo, run);
}

std::string pull_key(const std::string& repo, const std::string& unit) {
  return fmt::format("actions_pull/{}/{}", repo, unit);
}

// GitHub's longest artifact retention (a private repository's, 400 days; a public one's is 90)
// and a day for clocks: a run dispatched longer ago holds no artifact, so its record can make no
// pull request awaywork's own.
constexpr int64_t kRunRecordKeep = 401 * int64_t{86400};
constexpr int64_t kPruneEvery = 3600;  // seconds between two passes of prune_dispatched_runs

// An integer field of a record, or 0 when it is not one (a record not as written).
int64_t int_field(const json& v, const char* key) {
  if (!v.is_object()) return 0;
  auto it = v.find(key);
  return it != v.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

void Watcher::record_dispatched_run(const IssueSlot& slot, int64_t run, int64_t now) {
  auto ok = store_->watch_put(run_key(slot.repo, run),
                              {{"number", slot.number}, {"pull", slot.pull}, {"at", now}});
  // Unrecorded, the run's pull request is someone else's to this watch: said, not fatal.
  if (!ok)
    log_.write("error", with(where(slot),
                             {{"run", run}, {"error", "state database: " + ok.error().message}}));
}

Result<bool> Watcher::actions_own(Repo& r, const ForgePull& pull) {
  const std::string login = actions_login_of(r.watch);
  if (login.empty() || lower(pull.author.login) != lower(login)) return false;
  json at = {{"repo", r.watch.repo}, {"pull", pull.number}, {"author", pull.author.login}};
  auto refused = [&](const std::string& why) {
    log_.write("actions_pull_refused", with(at, {{"reason", why}}));
    return false;
  };
  std::string unit = pull_marker_unit(pull.body);
  if (unit.empty())
    return refused("its body does not end with awaywork's marker of a unit's pull request");
  at["unit"] = unit;
  if (lower(pull.head_repo) != lower(r.s->owner_repo) ||
      pull.head_ref != r.repo.forge.branch_prefix + unit)
    return refused(fmt::format("its head is not the branch {}{} of {}", r.repo.forge.branch_prefix,
                               unit, r.s->owner_repo));
  // Against the base an issue run's unit targets (the repository's base:, else its default
  // branch): a pull request into another branch is no unit's of this watch.
  const std::string base = r.repo.base.empty() ? r.s->repo.default_branch : r.repo.base;
  if (pull.base_ref != base)
    return refused(
        fmt::format("its base is the branch {}, not the configured base {}", pull.base_ref, base));
  AW_TRY(auto taken, store_->watch_get(pull_key(r.watch.repo, unit)));
  if (taken && taken->is_object() && taken->value("pull", int64_t{0}) != pull.number)
    return refused(fmt::format("unit {} already has pull request #{}", unit,
                               taken->value("pull", int64_t{0})));
  // The proof that this run opened this pull request: the apply job uploads it once `apply
  // --from` opened pull request N (awaywork-unit-U is uploaded always: by a follow-up's run, and
  // by a run whose check refused or whose apply failed, which open nothing).
  const std::string proof = pull_artifact_name(unit, pull.number);
  AW_TRY(std::vector<int64_t> runs, runs_with_artifact(*r.s, proof));
  bool not_issue_run = false;
  for (int64_t run : runs) {
    AW_TRY(auto mine, store_->watch_get(run_key(r.watch.repo, run)));
    if (!mine) continue;  // not a run this watch dispatched
    // Only an issue run opens a pull request; a follow-up's (input pull-request, "pull": true)
    // pushes to the one it follows. A record not as written is not an issue run's either.
    auto on_pull = mine->is_object() ? mine->find("pull") : mine->end();
    if (!mine->is_object() || on_pull == mine->end() || !on_pull->is_boolean() ||
        on_pull->get<bool>()) {
      not_issue_run = true;
      continue;
    }
    AW_CHECK(
        store_->watch_put(pull_key(r.watch.repo, unit), {{"pull", pull.number}, {"run", run}}));
    log_.write("actions_pull_own", with(at, {{"run", run}}));
    return true;
  }
  return refused(fmt::format(
      "no workflow run this watch dispatched for an issue holds the artifact {}, which only the "
      "apply job that opened pull request #{} uploads (its marker can be written by anyone who "
      "opens a pull request){}",
      proof, pull.number,
      not_issue_run ? "; a run this watch dispatched holds it, but to follow up a pull request (or "
                      "its record is not as written), and such a run opens none"
                    : ""));
}

void Watcher::prune_dispatched_runs(Repo& r, int64_t now) {
  if (!r.s || now < r.next_prune) return;
  r.next_prune = now + kPruneEvery;
  const std::string& repo = r.watch.repo;
  auto failed = [&](const std::string& why) {
    log_.write("error", {{"repo", repo}, {"error", why}});
  };
  const std::string run_prefix = fmt::format("actions_run/{}/", repo);
  const std::string pull_prefix = pull_key(repo, "");
  auto runs = store_->watch_list(run_prefix);
  if (!runs) return failed("state database: " + runs.error().message);
  auto pulls = store_->watch_list(pull_prefix);
  if (!pulls) return failed("state database: " + pulls.error().message);
  std::map<int64_t, json> recorded;  // by run id: the run records still kept
  for (auto& [key, v] : *runs) {
    std::string_view id = std::string_view(key).substr(run_prefix.size());
    int64_t run = 0;
    auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), run);
    if (ec == std::errc() && end == id.data() + id.size() && run > 0) recorded[run] = v;
  }
  // Erased, then said; false (said as an error) when the database refused.
  auto erase = [&](const std::string& key, const std::string& event, const json& at) {
    if (auto ok = store_->watch_erase(key); !ok) {
      failed("state database: " + ok.error().message);
      return false;
    }
    log_.write(event, with(json{{"repo", repo}}, at));
    return true;
  };
  auto erase_run = [&](int64_t run, const std::string& why) {
    if (erase(run_key(repo, run), "actions_run_pruned", {{"run", run}, {"reason", why}}))
      recorded.erase(run);
  };
  // Past the longest artifact retention, or not as written (its time unknown): either way
  // erasing it can only refuse.
  for (auto it = recorded.begin(); it != recorded.end();) {
    int64_t run = it->first, at = int_field(it->second, "at");
    ++it;
    if (at <= 0)
      erase_run(run, "its record is not as written");
    else if (now - at > kRunRecordKeep)
      erase_run(run,
                "dispatched more than 401 days ago (GitHub keeps an artifact 400 days at most)");
  }
  // The runs tied to a pull request that is closed or merged (one GET each, conditional: an
  // unchanged one answers 304). A pull record not as written is kept: it still guards its unit.
  std::set<int64_t> closed;
  for (const auto& [key, v] : *pulls) {
    int64_t pull = int_field(v, "pull"), run = int_field(v, "run");
    if (pull <= 0 || run <= 0 || !recorded.count(run)) continue;
    std::string what = fmt::format("/repos/{}/pulls/{}", r.s->owner_repo, pull);
    auto pj = r.s->gh.get(what);
    if (!pj) {
      failed(pj.error().message);
      continue;  // asked again at the next pass
    }
    auto state = pj->is_object() ? pj->find("state") : pj->end();
    if (!pj->is_object() || state == pj->end() || !state->is_string() || *state == "open") continue;
    closed.insert(pull);
    erase_run(run, fmt::format("its pull request #{} is closed", pull));
  }
  // The follow-up runs dispatched on one of those (input pull-request): their units push to its
  // branch and open no pull request of their own.
  for (auto it = recorded.begin(); it != recorded.end();) {
    int64_t run = it->first, number = int_field(it->second, "number");
    auto follow_up = it->second.find("pull");
    bool on_pull =
        follow_up != it->second.end() && follow_up->is_boolean() && follow_up->get<bool>();
    ++it;
    if (on_pull && closed.count(number))
      erase_run(run, fmt::format("it followed up pull request #{}, which is closed", number));
  }
  // Last, each pull record whose run's record is gone (now, or at an earlier pass that stopped
  // between the two): no recorded run holds its unit's artifact any more.
  for (const auto& [key, v] : *pulls) {
    int64_t pull = int_field(v, "pull"), run = int_field(v, "run");
    if (pull <= 0 || run <= 0 || recorded.count(run)) continue;
    (void)erase(key, "actions_pull_pruned",
                {{"unit", key.substr(pull_prefix.size())},
                 {"pull", pull},
                 {"run", run},
                 {"reason", "the record of its run is gone"}});
  }
}

}  // namespace aw
