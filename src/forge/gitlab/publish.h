// Publishing a checked unit to its GitLab project (the apply step, on awaywork's side, after the
// check), as forge/publish.h does on GitHub: the branch pushed through the askpass (user
// `oauth2`, the token as its password; never in a URL) and verified, a **draft** merge request
// (`draft: true` and the `Draft: ` title prefix, for instances older than the draft parameter)
// with awaywork's footer, a note on the issue naming it, then the checked notes and allowed
// labels. Every posted text goes through the sanitizer and gitlab_inert (forge/gitlab/text.h: no
// line is a quick action, no reference is live) and carries a hidden marker, so a replayed publish
// finds what is there and posts nothing twice; it stops at the first failure.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "forge/gitlab/session.h"
#include "forge/publish.h"  // ForgePublishInput, ForgePublished: what both forges take and give

namespace aw {

Result<ForgePublished> publish_to_gitlab(GitLabSession& s, const ForgePublishInput& in);

// A branch of the project read through the API (GET /projects/:id/repository/branches/:name, on
// the session's kept-alive connection: about a millisecond) instead of git's ls-remote (a git, an
// askpass and GitLab's git side: tens of milliseconds, twice per publish, before the push and
// verifying it): ApplyTarget::read_ref's answer, the commit `refs/heads/NAME` names, nullopt
// when there is no such branch. s must outlive the function.
std::function<Result<std::optional<std::string>>(const std::string& ref)> gitlab_read_ref(
    GitLabSession& s);

// The text of a post as it reaches GitLab: sanitized (links kept only to the forge's host and
// GitLab's own), cut to room code points, then made inert for GitLab.
std::string gitlab_post_text(const GitLabSession& s, std::string_view text, size_t room = 60000);

}  // namespace aw
