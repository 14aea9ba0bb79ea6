// `awaywork doctor`'s GitLab checks (issue 29): each `kind: gitlab` forge's token reaches the API
// and holds the scopes publishing needs, `api` (the merge request, notes, labels) and
// `write_repository` (the push over HTTPS). GitLab (15.5 and later) says a token's own scopes at
// GET /personal_access_tokens/self; older instances answer 404 there for project and group access
// tokens, which is a warning (the scopes cannot be read), not a failure.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "doctor/doctor.h"
#include "forge/gitlab/client.h"

namespace aw {

// The scopes publishing needs, in the order the fix names them.
inline const std::vector<std::string> kGitlabPublishScopes = {"api", "write_repository"};

// The scope check of forge `forge_name`'s token, asked through gl (the token inside it): ok with
// the scopes found; a failure naming the missing scopes (or the refusal) and the fix; ok with a
// "warning; ..." detail when GitLab has no such endpoint (404). One request.
Check gitlab_token_check(const ForgeConfig& forge, GitLab& gl);

// The check of every `kind: gitlab` forge of cfg: its token read (secret store or glab), a client
// over the forge's transport (its ca_file trusted), then gitlab_token_check. None without such a
// forge.
std::vector<Check> gitlab_checks(const Config& cfg);

}  // namespace aw
