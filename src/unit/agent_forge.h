// The read-only forge for the agent (`agent_forge: read`, issue 27 item 2): the phases may read
// their own repository on the forge's API (issues, pull requests, checks, job logs) with `gh api`
// or `curl`, and hold only a placeholder for the credential. It is one injection rule made from the
// repository's forge config, so that the egress proxy's machinery (the unit's CA, verified TLS
// upstream, placeholders refused elsewhere) applies unchanged: the forge's API host, GET and HEAD
// only, the repository's own paths only, and exclusive, so that any other request to that host (a
// write, another repository, GraphQL) is refused instead of sent on without the credential.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "proxy/egress_policy.h"
#include "unit/unit_injection.h"

namespace aw {

// The name the egress log and the record give the forge's credential when the proxy adds it
// (its placeholder is awaywork-placeholder-AGENT_FORGE-<random>).
inline constexpr std::string_view kAgentForgeSecret = "AGENT_FORGE";

struct AgentForgeRead {
  EgressInjection rule;  // everything but the value
  // The variables that hold the placeholder (GH_TOKEN, GITHUB_TOKEN...; GITLAB_TOKEN), so that the
  // forge's CLI sends a request at all.
  std::vector<std::string> token_vars;
  // What points the CLIs at the forge and the repository (GH_HOST, GH_REPO, GITHUB_API_URL...).
  std::vector<std::pair<std::string, std::string>> env;
};

// The rule and variables for repo on forge. GitHub: Authorization: Bearer, under
// API_PATH/repos/OWNER/REPO/ (and that path itself); GitLab: PRIVATE-TOKEN, under
// API_PATH/projects/GROUP%2FPROJECT/. With repo_id (the forge's number for the repository, > 0)
// also the numeric form clients use: GitHub's API_PATH/repositories/ID/ (gh follows pagination
// links there), GitLab's API_PATH/projects/ID/; each as a whole segment, so that id 12 never
// covers /repositories/123. An Error when the api_url is not https:// at a host name.
Result<AgentForgeRead> agent_forge_read(const ForgeConfig& forge, const ForgeRepoConfig& repo,
                                        int64_t repo_id = 0);

// Adds the read-only forge of repo (when it says agent_forge: read; else nothing) to u: the rule
// with token (the forge's credential, as the publisher read it), a new placeholder in the token
// variables, the other variables, the literals the record is redacted of, and the unit's CA made
// again to cover the API host. repo_id: the forge's number for the repository, as the publisher's
// session read it (Publisher::host_repo_id; 0 = unknown, and the numeric paths stay refused). An
// Error names the repository; it never holds the token.
Status add_agent_forge(UnitInjection& u, const Config& cfg, const RepoConfig& repo,
                       const std::string& token, int64_t repo_id = 0);

}  // namespace aw
