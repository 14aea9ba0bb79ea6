// A GitLab project's forge, opened: its config, the token (from the secret store, or the owner's
// `glab` login), a client, the token's user (awaywork's own, never admitted) and the project.
// The token stays on awaywork's side: it goes to the API in PRIVATE-TOKEN and to git through the
// askpass (as the password of user `oauth2`), never to a phase, an argv, a file or the record.
//
//   AW_TRY(auto s, open_gitlab(cfg, repo));
//   AW_TRY(auto j, s->gl.get(s->project_target() + "/issues/5"));
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "forge/gitlab/client.h"
#include "forge/gitlab/model.h"

namespace aw {

struct GitLabSession {
  ForgeConfig forge;
  std::string project;  // group/subgroup/project, as the repository's `gitlab:` names it
  std::string token;
  GitLab gl;
  GitLabUser self;  // GET /user
  ForgeRepo repo;   // GET /projects/:id (http_url_to_repo, default_branch)
  // Work left for after a publish (the push's scratch folder removed); joined when it ends.
  std::vector<std::jthread> background;

  // "/projects/grp%2Fsub%2Fapp": the project's API path.
  std::string project_target() const { return "/projects/" + gitlab_project_id(project); }
};

// The token of a GitLab forge: `credential: glab` asks the owner's glab for its stored token of
// the forge's host (`glab config get token --host HOST`, a minimal environment); any other name
// is read from the secret store. The Error names the credential and the fix, never the value.
Result<std::string> gitlab_token(const ForgeConfig& forge);

// Opens the repository's GitLab forge: the token's user and the project. An Error (a refused
// token, an unreachable host, a project the token cannot see) means nothing was done there.
Result<std::unique_ptr<GitLabSession>> open_gitlab(const Config& cfg, const RepoConfig& repo);

}  // namespace aw
