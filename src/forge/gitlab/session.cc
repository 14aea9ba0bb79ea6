#include "forge/gitlab/session.h"

#include <fmt/format.h>
#include <stdlib.h>

#include "forge/session.h"  // forge_token: a secret of the store, as for GitHub
#include "proc/capture.h"

namespace aw {

namespace {

// glab reads its login from its config folder; nothing else of the owner's environment is passed.
std::vector<std::string> glab_env() {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "NO_COLOR=1",
                                  "GLAB_SEND_TELEMETRY=0", "GLAB_CHECK_UPDATE=false"};
  for (const char* name : {"HOME", "XDG_CONFIG_HOME", "GLAB_CONFIG_DIR"})
    if (const char* v = ::getenv(name)) env.push_back(std::string(name) + "=" + v);
  return env;
}

// The host of an API URL: "https://gitlab.example/api/v4" -> "gitlab.example".
std::string host_of(const std::string& api_url) {
  size_t start = api_url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  return api_url.substr(start, api_url.find('/', start) - start);
}

Result<std::string> glab_token(const ForgeConfig& forge) {
  std::string host = host_of(forge.api_url);
  std::vector<std::string> argv = {"glab", "config", "get", "token", "--host", host};
  std::vector<std::string> env = glab_env();
  AW_TRY(argv[0], with_context(find_program("glab", env[0].substr(5)),
                               "credential: glab needs the glab program (apt install glab)"));
  AW_TRY(Captured c, capture({.argv = argv, .env = env, .cwd = "/", .stdin_data = ""}));
  std::string token = c.out.substr(0, c.out.find('\n'));
  if (c.exit_code != 0 || token.empty())
    return fail("glab has no token for {} (exit {}); log in with `glab auth login --hostname {}`",
                host, c.exit_code, host);
  return token;
}

}  // namespace

Result<std::string> gitlab_token(const ForgeConfig& forge) {
  if (forge.credential == "glab") return glab_token(forge);
  return forge_token(forge);
}

Result<std::unique_ptr<GitLabSession>> open_gitlab(const Config& cfg, const RepoConfig& repo) {
  AW_TRY(const ForgeConfig* found, forge_of_repo(cfg, repo));
  const ForgeConfig& forge = *found;
  if (forge.kind != "gitlab" || repo.forge.gitlab.empty())
    return fail("repo {}: not a GitLab project (gitlab: GROUP/PROJECT on a forge of kind gitlab)",
                repo.name);
  AW_TRY(std::string token, gitlab_token(forge));
  AW_TRY(GitLab gl, (forge_client<GitLab, GitLabOptions>(forge, token)));
  auto s = std::unique_ptr<GitLabSession>(
      new GitLabSession{forge, repo.forge.gitlab, token, std::move(gl), {}, {}, {}});
  auto user = s->gl.get("/user");
  if (!user) return tl::unexpected(first_answer_error(user.error(), forge));
  AW_TRY(s->self, gitlab_user_from_json(*user, "GET /user"));
  std::string target = s->project_target();
  AW_TRY(nlohmann::json p, s->gl.get(target));
  AW_TRY(s->repo, gitlab_project_from_json(p, "GET " + target));
  return s;
}

}  // namespace aw
