#include "forge/pr_publisher.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <string_view>

#include "config/repos.h"
#include "forge/follow_up_push.h"
#include "forge/gitlab/mr_publisher.h"
#include "forge/marker.h"

namespace aw {

using nlohmann::json;

Result<Applied> PullPublisher::publish(const ApplyInput& in) {
  ForgeSession& s = *s_;
  ApplyTarget head = forge_git_target(s.forge, s.repo.clone_url, s.token);
  head.branch = pull_.head_ref;
  AW_TRY(Applied a, push_follow_up(in, std::move(head), {s.owner_repo, pull_.html_url},
                                   fmt::format("pull request {}#{}", s.owner_repo, pull_.number)));
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
                                   a.result.commit.substr(0, 12), in.unit_id);
    json body = {{"body", with_marker(text, item_marker(in.unit_id, item, a.result.commit))}};
    AW_CHECK(with_context(s.gh.post(fmt::format("{}/comments/{}/replies", base, thread), body),
                          fmt::format("replying in review thread {}", thread)));
    a.posted.push_back(item);
  }
  if (!follow_.reviewers.empty()) {
    // Only those not requested already: a second publish (`apply ID`) writes nothing.
    AW_TRY(json asked, s.gh.get(base + "/requested_reviewers"));
    std::vector<std::string> again;
    for (const std::string& who : follow_.reviewers) {
      bool there = false;
      if (asked.is_object() && asked.contains("users") && asked["users"].is_array())
        for (const json& u : asked["users"])
          there = there || (u.is_object() && u.value("login", "") == who);
      if (!there) again.push_back(who);
    }
    if (again.empty()) {
      a.already.push_back("review-request");
    } else {
      AW_CHECK(with_context(s.gh.post(base + "/requested_reviewers", json{{"reviewers", again}}),
                            "requesting review again"));
      a.posted.push_back("review-request");
    }
  }
  return a;
}

namespace {

// The text after the note starting with prefix, or nullopt.
std::optional<std::string> note_after(const UnitRecord& u, std::string_view prefix) {
  for (const std::string& n : u.notes)
    if (n.starts_with(prefix)) return n.substr(prefix.size());
  return std::nullopt;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= s.size();) {
    size_t end = s.find(", ", at);
    if (end == std::string::npos) end = s.size();
    if (end > at) out.push_back(s.substr(at, end - at));
    at = end + 2;
  }
  return out;
}

}  // namespace

Result<OpenPublisher> follow_up_publishers(const Config& cfg, const UnitRecord& u) {
  // "follow-up of pull request #9 (branch awaywork/ID)": the number and the branch.
  auto of = note_after(u, kFollowUpNote);
  int64_t number = 0;
  std::string branch;
  if (of) {
    size_t open = of->find(" (branch ");
    if (open != std::string::npos && open > 0 && of->ends_with(")")) {
      auto parsed = std::from_chars(of->data(), of->data() + open, number);
      if (parsed.ec != std::errc() || parsed.ptr != of->data() + open) number = 0;
      branch = of->substr(open + 9, of->size() - open - 10);
      // A GitLab merge request's: "(branch B, GitLab merge request !N)"; a branch name holds no
      // space.
      branch = branch.substr(0, branch.find(", "));
    }
  }
  if (number <= 0 || branch.empty())
    return fail("unit {}: its record names no pull request it follows up", u.id);
  PullFollowUp follow;
  if (auto threads = note_after(u, kFollowUpThreadsNote))
    for (const std::string& t : split_list(*threads)) {
      int64_t id = 0;
      auto parsed = std::from_chars(t.data(), t.data() + t.size(), id);
      if (parsed.ec != std::errc() || parsed.ptr != t.data() + t.size() || id <= 0)
        return fail("unit {}: its note of review threads is not a list of ids: {}", u.id, t);
      follow.threads.push_back(id);
    }
  if (auto who = note_after(u, kFollowUpReviewersNote)) follow.reviewers = split_list(*who);
  AW_TRY(RepoConfig r, with_context(find_forge_repo(cfg, u.repo), "unit " + u.id));
  // A gitlab: project's unit follows up a merge request: GitLab's publisher, on the same rules.
  if (!r.forge.gitlab.empty())
    return gitlab_follow_up_publishers(cfg, u, r, number, branch, std::move(follow));
  AW_TRY(std::unique_ptr<ForgeSession> opened, with_context(open_forge(cfg, r), "repo " + u.repo));
  PullRun run;
  run.session = std::move(opened);
  ForgeSession& s = *run.session;
  std::string target = fmt::format("/repos/{}/pulls/{}", s.owner_repo, number);
  AW_TRY(json pj, s.gh.get(target));
  AW_TRY(run.pull, pull_from_json(pj, "GET " + target));
  AW_CHECK(with_context(followable(run.pull, s.owner_repo, s.self_login),
                        fmt::format("pull request {}#{}", s.owner_repo, number)));
  if (run.pull.head_ref != branch)
    return fail("pull request {}#{} is on branch {} now, not on {} where unit {} was made",
                s.owner_repo, number, run.pull.head_ref, branch, u.id);
  run.follow = std::move(follow);
  return pull_publishers(run);
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
