// A repository's forge, opened: its config, the token (from the secret store, or the owner's
// `gh auth token`), a client, and the login the token belongs to (awaywork's own, never admitted).
// The token stays on awaywork's side: it goes to the API in a header and to git through the
// askpass, never to a phase, an argv, a file or the record.
//
//   AW_TRY(auto s, open_forge(cfg, repo));
//   AW_TRY(auto j, s->gh.get("/repos/" + repo.forge.github));
#pragma once

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "config/repos.h"  // find_forge_repo, which watch and the issue source use
#include "forge/client.h"
#include "forge/model.h"

namespace aw {

struct ForgeSession {
  ForgeConfig forge;
  std::string owner_repo;  // OWNER/REPO
  std::string token;
  GitHub gh;
  std::string self_login;  // GET /user
  ForgeRepo repo;          // GET /repos/OWNER/REPO (clone_url, default_branch)
  // Work left for after a publish, off its critical path: the push's scratch folder removed
  // (its unlinks cost tens of milliseconds on a busy disk). Joined when the session ends.
  std::vector<std::jthread> background;
};

// The token of a forge: `credential: gh` runs `gh auth token` (for GHES with --hostname) as the
// owner, with a minimal environment; any other name is read from the secret store. The Error
// names the credential and the fix; it never holds the value.
Result<std::string> forge_token(const ForgeConfig& forge);

// The forge repo names (forge:), defined under forges:, or an Error naming the repository; and
// the HTTP transport to a forge's API, trusting its ca_file. Both forges' sessions open with
// them (gitlab/session.cc).
Result<const ForgeConfig*> forge_of_repo(const Config& cfg, const RepoConfig& repo);
Result<std::unique_ptr<Transport>> forge_transport(const ForgeConfig& forge);
// A forge's client (GitHub with GitHubOptions, GitLab with GitLabOptions) on forge_transport, with
// the forge's api_url and credential: how both forges' sessions open theirs.
//   AW_TRY(GitLab gl, (forge_client<GitLab, GitLabOptions>(forge, token)));
template <typename Client, typename Options>
Result<Client> forge_client(const ForgeConfig& forge, const std::string& token) {
  AW_TRY(auto transport, forge_transport(forge));
  Options opt;
  opt.api_url = forge.api_url;
  opt.credential = forge.credential;
  return Client(opt, token, std::move(transport), system_clock());
}
// The Error of a session's first answer (GET /user), with the hint a private CA needs when the
// forge's certificate was not accepted; more: what the forge says after the hint.
Error first_answer_error(const Error& e, const ForgeConfig& forge, const std::string& more = "");

// Opens the repository's forge and reads the token's login and the repository. known: answers an
// earlier session kept (by target, "/user" and "/repos/OWNER/REPO"); both are then asked with
// If-None-Match, and a 304, which GitHub does not count against the rate limit, reuses the kept
// body. Afterwards s->gh.cached(target) holds what to keep for the next session.
Result<std::unique_ptr<ForgeSession>> open_forge(
    const Config& cfg, const RepoConfig& repo,
    const std::map<std::string, GitHub::Cached>& known = {});

}  // namespace aw
