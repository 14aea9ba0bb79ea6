// Publishing a checked unit to its forge (the apply step, on awaywork's side, after the check):
// the branch pushed through the askpass and verified, a draft pull request with awaywork's footer,
// then the checked comments, allowed labels and new issues. Every posted item carries a hidden
// marker, <!-- awaywork:unit=ID item=K sha=COMMIT -->, so a replayed publish finds what is there
// and posts nothing twice; it stops at the first failure (nothing after it is posted) and a later
// run finishes what was left.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/result.h"
#include "check/requests.h"
#include "forge/marker.h"
#include "forge/session.h"
#include "git/git.h"

namespace aw {

// The record note of a unit asked for by a command on a pull request that is not awaywork's
// (pr_source.h): "draft pull request against pull request #9 (branch feature), for the command
// of @maint (comment 1234)". Its publish opens awaywork's own draft pull request against that
// branch, without a closing keyword, labels or new issues (forge_publish_input): it never touches
// another person's pull request but to say where its work is.
inline constexpr std::string_view kForeignPullNote = "draft pull request against pull request #";

// The record note of a unit asked for by a command on a FORK's pull request (its head in another
// repository): "compare link on fork pull request #9 (forker/web branch feature), for the command
// of @maint (comment 1234)". awaywork never pushes to the fork: its publish pushes its branch in
// the base repository on top of the fork's head (refs/pull/9/head) and comments the compare link
// on the pull request (ForgePublishInput::fork_pull).
inline constexpr std::string_view kForkPullNote = "compare link on fork pull request #";

// What the footer says about the unit.
struct UnitFacts {
  std::string unit_id, agent, isolation;
  std::string sandbox;  // the record's note (UnitRecord::sandbox); posts say published_sandbox's
  std::string verdict;
  std::vector<std::pair<std::string, int>> checks;  // name, exit code
};

struct ForgePublishInput {
  UnitFacts unit;
  int64_t issue = 0;  // 0 = the unit came from no issue
  std::string branch_prefix = "awaywork/";
  bool closing_keyword = false;
  std::string base_ref, base_commit;
  std::string patch;
  std::vector<std::string> paths;  // the checked paths
  std::string commit_message;
  std::string fallback_title;     // when no create_pull_request: the task's first line
  std::vector<Request> requests;  // as the check accepted them (sanitized)
  std::vector<std::string> allowed_labels;
  std::string scratch_dir, askpass, mirror_dir;
  // A fork's pull request (kForkPullNote; it is issue too): the branch starts on its head,
  // refs/pull/N/head (PublishRequest::start_ref), and instead of a pull request the compare link
  // is commented on it, item "compare". 0 = not one.
  int64_t fork_pull = 0;
};

struct ForgePublished {
  PublishResult branch;
  std::string pull_url;  // "" when drafts were refused (then compare_url)
  std::string compare_url;
  std::vector<std::string> posted;   // items posted now ("pull", "comment-1", ...)
  std::vector<std::string> already;  // items found by their marker
};

Result<ForgePublished> publish_to_forge(ForgeSession& s, const ForgePublishInput& in);

// A repository's git remote as a session of either forge reaches it: its clone URL, the forge's
// credential (token, through the askpass) and CA bundle. Publish, a pull request's follow-up and
// the mirror's fetch push and fetch there; GitLab adds its user (gitlab/publish.cc).
ApplyTarget forge_git_target(const ForgeConfig& forge, const std::string& clone_url,
                             const std::string& token);

// The git request of a publish as both forges fill it from in (publish.cc, gitlab/publish.cc),
// to the forge's target (forge_git_target and what that forge adds). The scratch is
// removed on a thread of background, which the session joins: it holds nothing secret (the
// token reaches git through the askpass's environment) and nothing reuses it.
PublishRequest forge_publish_request(const ForgePublishInput& in, ApplyTarget target,
                                     std::vector<std::jthread>& background);

// Each add_comment request of in, as item "comment-K" (K from 1): in out.already when
// found(item) (awaywork's own post with its marker), else post(request, item), which posts it and
// records it in out.posted; the first failure stops. Both forges' comment loops.
template <class Found, class Post>
Status post_comments(const ForgePublishInput& in, ForgePublished& out, Found found, Post post) {
  int k = 0;
  for (const Request& r : in.requests) {
    if (r.type != "add_comment") continue;
    std::string item = "comment-" + std::to_string(++k);
    if (found(item)) {
      out.already.push_back(item);
      continue;
    }
    AW_CHECK(post(r, item));
  }
  return {};
}

// The labels of in's add_labels requests that the repository allows.
std::set<std::string> wanted_labels(const ForgePublishInput& in);

// awaywork's footer of the pull request body.
std::string pull_footer(const UnitFacts& u, int64_t issue, bool closing_keyword);

// What a post says of a unit's sandbox: "on, network none|allowlist|host" or "off". A reviewer
// needs no more; the record's note also names the owner's folders in view and the tools' paths
// there (`~/.cargo (toolchain: PATH /root/.cargo/bin)`), the engine's image and why a sandbox
// was off, which stay in the local record.
std::string published_sandbox(std::string_view note);

}  // namespace aw
