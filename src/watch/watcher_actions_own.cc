// run_on: actions (issue 26, docs/pull-requests.md#run_on-actions-follow-ups-on-github-actions):
// the pull request a dispatched workflow's apply job opens is authored by the login of the
// workflow's token (github.token: github-actions[bot]), not by watch's. Watch takes such a pull
// request as its own (reviews, review comments and failing checks followed up, pushes to its
// branch) only when all of these hold:
//   - its author is the watch entry's actions_login (config.h WatchRepoConfig);
//   - its body ends with awaywork's marker of a unit's pull request, `<!-- awaywork:unit=U
//     item=pull sha=S -->`, and its head is this repository's branch branch_prefix + U (the branch
//     that unit's apply pushed);
//   - a run this watch dispatched (its record, written at dispatch: actions_run/REPO/RUN) holds the
//     artifact awaywork-unit-U (forge/actions.h), which on GitHub only that run's own jobs can
//     upload;
//   - no other pull request was taken for U before (actions_pull/REPO/U, written when one is).
// The marker alone proves nothing: anyone who can open a pull request can write it, and every
// workflow of the repository publishes as github-actions[bot]. The artifact is where only the run
// watch dispatched writes. Any other pull request by that login is someone else's: only an
// admitted person's command counts there, as before.
#include <fmt/format.h>

#include <cctype>

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
  AW_TRY(auto taken, store_->watch_get(pull_key(r.watch.repo, unit)));
  if (taken && taken->is_object() && taken->value("pull", int64_t{0}) != pull.number)
    return refused(fmt::format("unit {} already has pull request #{}", unit,
                               taken->value("pull", int64_t{0})));
  AW_TRY(std::vector<int64_t> runs, runs_with_artifact(*r.s, unit_artifact_name(unit)));
  for (int64_t run : runs) {
    AW_TRY(auto mine, store_->watch_get(run_key(r.watch.repo, run)));
    if (!mine) continue;  // not a run this watch dispatched
    AW_CHECK(
        store_->watch_put(pull_key(r.watch.repo, unit), {{"pull", pull.number}, {"run", run}}));
    log_.write("actions_pull_own", with(at, {{"run", run}}));
    return true;
  }
  return refused(fmt::format(
      "no workflow run this watch dispatched holds the artifact {} (its marker can be written by "
      "anyone who opens a pull request)",
      unit_artifact_name(unit)));
}

}  // namespace aw
