#include "forge/session.h"

#include <fmt/format.h>
#include <stdlib.h>

#include "forge/self_login.h"
#include "proc/capture.h"
#include "secrets/store.h"

namespace aw {

namespace {

// gh reads its login from its config folder; nothing else of the owner's environment is passed.
std::vector<std::string> gh_env() {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "GH_PROMPT_DISABLED=1",
                                  "NO_COLOR=1"};
  for (const char* name : {"HOME", "XDG_CONFIG_HOME", "GH_CONFIG_DIR"})
    if (const char* v = ::getenv(name)) env.push_back(std::string(name) + "=" + v);
  return env;
}

Result<std::string> gh_token(const ForgeConfig& forge) {
  std::vector<std::string> argv = {"gh", "auth", "token"};
  const std::string https = "https://";
  if (forge.api_url != "https://api.github.com" && forge.api_url.starts_with(https)) {
    std::string host = forge.api_url.substr(https.size());
    argv.insert(argv.end(), {"--hostname", host.substr(0, host.find('/'))});
  }
  std::vector<std::string> env = gh_env();
  AW_TRY(argv[0], with_context(find_program("gh", env[0].substr(5)),
                               "credential: gh needs the gh program (apt install gh)"));
  AW_TRY(Captured c, capture({.argv = argv, .env = env, .cwd = "/", .stdin_data = ""}));
  std::string token = c.out.substr(0, c.out.find('\n'));
  if (c.exit_code != 0 || token.empty())
    return fail("`gh auth token` gave no token (exit {}); log in with `gh auth login`{}",
                c.exit_code, argv.size() > 3 ? " --hostname " + argv[4] : "");
  return token;
}

}  // namespace

Result<std::string> forge_token(const ForgeConfig& forge) {
  if (forge.credential == "gh") return gh_token(forge);
  AW_TRY(auto store, with_context(open_secret_store({}), "the secret store"));
  auto value = store->get(forge.credential);
  if (!value || value->empty())
    return fail(
        "forge {}: the credential {} is not in the secret store; store the token with "
        "`awaywork secret set {}` (or write credential: gh to use your gh login)",
        forge.name, forge.credential, forge.credential);
  return *value;
}

Result<const ForgeConfig*> forge_of_repo(const Config& cfg, const RepoConfig& repo) {
  auto it = cfg.forges.find(repo.forge.forge);
  if (it == cfg.forges.end())
    return fail("repo {}: forge '{}' is not defined under forges:", repo.name, repo.forge.forge);
  return &it->second;
}

Result<std::unique_ptr<Transport>> forge_transport(const ForgeConfig& forge) {
  TransportOptions topt;
  topt.api_url = forge.api_url;
  topt.ca_file = forge.ca_file;
  return with_context(beast_transport(topt), "forge " + forge.name);
}

Error first_answer_error(const Error& e, const ForgeConfig& forge, const std::string& more) {
  if (e.message.find("certificate not accepted") == std::string::npos) return e;
  return Error{fmt::format(
      "{}; if {} is served under a private CA, give its bundle as `ca_file:` of forge {} (it is "
      "trusted for the API and git){}",
      e.message, forge.api_url, forge.name, more)};
}

Result<std::unique_ptr<ForgeSession>> open_forge(
    const Config& cfg, const RepoConfig& repo, const std::map<std::string, GitHub::Cached>& known) {
  AW_TRY(const ForgeConfig* found, forge_of_repo(cfg, repo));
  const ForgeConfig& forge = *found;
  AW_TRY(std::string token, forge_token(forge));
  AW_TRY(GitHub gh, (forge_client<GitHub, GitHubOptions>(forge, token)));
  auto s = std::unique_ptr<ForgeSession>(
      new ForgeSession{forge, repo.forge.github, token, std::move(gh), "", {}, {}});
  for (const auto& [target, c] : known) s->gh.remember(target, c);
  // call, not get: an installation token's 403 is an answer self_login_of reads.
  auto user = s->gh.call("GET", "/user");
  if (!user)
    return tl::unexpected(first_answer_error(
        user.error(), forge,
        forge.ca_file.empty() ? "" : "; the ca_file " + forge.ca_file + " does not sign it"));
  // The workflow's job commands say so through cfg (cli sets it); the environment alone does not
  // make an installation token github-actions[bot]'s (forge/self_login.h).
  AW_TRY(s->self_login,
         self_login_of(s->gh, *user, forge, cfg.workflow_job, ::getenv("GITHUB_ACTIONS")));
  std::string target = "/repos/" + repo.forge.github;
  AW_TRY(nlohmann::json r, s->gh.get(target));
  AW_TRY(s->repo, repo_from_json(r, "GET " + target));
  return s;
}

}  // namespace aw
