#include "forge/pr_publisher.h"

#include <fmt/format.h>

#include "check/sanitize.h"
#include "forge/marker.h"
#include "unit/apply.h"

namespace aw {

using nlohmann::json;

Result<Applied> PullPublisher::publish(const ApplyInput& in) {
  ForgeSession& s = *s_;
  FastForwardRequest ff;
  ff.target = forge_git_target(s.forge, s.repo.clone_url, s.token);
  ff.target.branch = pull_.head_ref;
  ff.target.borrow_objects_of = in.mirror_dir;
  ff.unit_id = in.unit_id;
  ff.base_commit = in.base_commit;
  ff.patch = in.patch;
  ff.checked_paths = in.paths;
  ff.message = sanitize_commit_message(commit_message(in));  // whoever built it
  ff.scratch_dir = in.scratch_dir;
  AW_TRY(ff.askpass, askpass_program());
  AW_TRY(FastForwardResult pushed,
         with_context(publish_fast_forward(ff),
                      fmt::format("pull request {}#{}", s.owner_repo, pull_.number)));

  Applied a;
  a.result = PublishResult{pushed.branch, pushed.commit, pushed.already_applied};
  a.target = s.owner_repo;
  a.pull_url = pull_.html_url;
  std::string base = fmt::format("/repos/{}/pulls/{}", s.owner_repo, pull_.number);
  // What an earlier run of this unit posted: only awaywork's own comments count.
  AW_TRY(json listed, s.gh.get_all(base + "/comments?per_page=100"));
  AW_TRY(auto existing, review_comments_from_json(listed, "GET " + base + "/comments"));
  for (int64_t thread : follow_.threads) {
    std::string item = fmt::format("reply-{}", thread);
    bool posted = std::any_of(existing.begin(), existing.end(), [&](const ForgeReviewComment& c) {
      return c.author.login == s.self_login && has_marker(c.body, in.unit_id, item);
    });
    if (posted) {
      a.already.push_back(item);
      continue;
    }
    std::string text = fmt::format("awaywork addressed this in {} (unit {}).",
                                   pushed.commit.substr(0, 12), in.unit_id);
    json body = {{"body", with_marker(text, item_marker(in.unit_id, item, pushed.commit))}};
    AW_CHECK(with_context(s.gh.post(fmt::format("{}/comments/{}/replies", base, thread), body),
                          fmt::format("replying in review thread {}", thread)));
    a.posted.push_back(item);
  }
  if (!follow_.reviewers.empty()) {
    // Asking again is idempotent on GitHub: a reviewer already requested stays requested.
    AW_CHECK(with_context(
        s.gh.post(base + "/requested_reviewers", json{{"reviewers", follow_.reviewers}}),
        "requesting review again"));
    a.posted.push_back("review-request");
  }
  return a;
}

OpenPublisher pull_publishers(const PullRun& run) {
  OpenPublisher others = forge_publishers(run.session);
  // A command on someone else's pull request: awaywork's own branch and draft pull request
  // against it, as an issue's unit publishes (its note tells forge_publish_input).
  if (run.foreign) return others;
  return [run, others](const Config& cfg,
                       const RepoConfig& repo) -> Result<std::unique_ptr<Publisher>> {
    if (repo.forge.github != run.session->owner_repo) return others(cfg, repo);
    return std::unique_ptr<Publisher>(new PullPublisher(run.session, run.pull, run.follow));
  };
}

}  // namespace aw
