// Making the read-only forge's injection rule from the forge config: the one place that knows
// which API paths are a repository's own on GitHub and on GitLab.
#include "unit/agent_forge.h"

#include <fmt/format.h>

#include "config/validate.h"
#include "secrets/injected.h"

namespace aw {

Result<AgentForgeRead> agent_forge_read(const ForgeConfig& forge, const ForgeRepoConfig& repo,
                                        int64_t repo_id) {
  auto where = api_host_of(forge.api_url);
  if (!where)
    return fail(
        "agent_forge: forge '{}' has api_url {}: the egress proxy reaches a forge's API for the "
        "agent over verified https:// only, at a host name",
        forge.name, forge.api_url);
  if (repo.path().empty()) return fail("agent_forge: not a forge repository");
  const auto& [host, api_path] = *where;
  // host[:port] as the URL writes it: what GH_HOST and GITLAB_HOST name.
  std::string rest = forge.api_url.substr(std::string_view("https://").size());
  std::string hostport = rest.substr(0, rest.find('/'));
  AgentForgeRead out;
  EgressInjection& r = out.rule;
  r.secret = std::string(kAgentForgeSecret);
  r.host = host;
  r.methods = {"GET", "HEAD"};
  r.exclusive = true;
  // The numeric form, when the publisher's session read the id (its GET of the repository, made
  // anyway): a prefix ending in '/' and the exact path, as for the name, so that the id is a
  // whole segment (12 does not cover 123).
  std::string id = repo_id > 0 ? std::to_string(repo_id) : "";
  if (forge.kind == "gitlab") {
    // GitLab names a project by its id or its URL-encoded path: the encoded path, in both
    // spellings of the escape clients use, and the id when known.
    std::string upper, lower;
    for (char c : repo.gitlab) {
      upper += c == '/' ? std::string("%2F") : std::string(1, c);
      lower += c == '/' ? std::string("%2f") : std::string(1, c);
    }
    r.header = "PRIVATE-TOKEN";
    r.value_template = "{secret}";
    std::vector<std::string> names = {upper, lower};
    if (!id.empty()) names.push_back(id);
    for (const std::string& p : names) {
      r.paths.push_back(fmt::format("{}/projects/{}/", api_path, p));
      r.exact_paths.push_back(fmt::format("{}/projects/{}", api_path, p));
    }
    out.token_vars = {"GITLAB_TOKEN"};
    out.env = {{"GITLAB_HOST", "https://" + hostport},
               {"CI_API_V4_URL", forge.api_url},
               {"CI_PROJECT_PATH", repo.gitlab}};
    return out;
  }
  r.header = "Authorization";
  r.value_template = "Bearer {secret}";
  r.paths = {fmt::format("{}/repos/{}/", api_path, repo.github)};
  r.exact_paths = {fmt::format("{}/repos/{}", api_path, repo.github)};
  if (!id.empty()) {
    // GitHub links a repository's list pages by its id (/repositories/ID/issues?page=2), and gh
    // follows those links.
    r.paths.push_back(fmt::format("{}/repositories/{}/", api_path, id));
    r.exact_paths.push_back(fmt::format("{}/repositories/{}", api_path, id));
  }
  // gh takes GH_TOKEN for github.com and GH_ENTERPRISE_TOKEN for any other host (GHES, whose
  // api_url is https://HOST/api/v3 and whose GH_HOST is HOST).
  bool dotcom = host == "api.github.com";
  std::string gh_host = dotcom ? "github.com" : hostport;
  out.token_vars = {"GH_TOKEN", "GITHUB_TOKEN"};
  if (!dotcom) {
    out.token_vars.push_back("GH_ENTERPRISE_TOKEN");
    out.token_vars.push_back("GITHUB_ENTERPRISE_TOKEN");
  }
  out.env = {{"GH_HOST", gh_host},
             {"GH_REPO", dotcom ? repo.github : gh_host + "/" + repo.github},
             {"GITHUB_API_URL", forge.api_url},
             {"GITHUB_REPOSITORY", repo.github},
             {"GH_PROMPT_DISABLED", "1"}};
  return out;
}

Status add_agent_forge(UnitInjection& u, const Config& cfg, const RepoConfig& repo,
                       const std::string& token, int64_t repo_id) {
  if (!repo.forge.agent_forge_read) return {};
  auto forge = cfg.forges.find(repo.forge.forge);
  if (forge == cfg.forges.end())
    return fail("repos.{}: agent_forge: read needs the repository's forge, and '{}' is not one",
                repo.name, repo.forge.forge);
  if (token.empty())
    return fail(
        "repos.{}: agent_forge: read: the forge's credential was not read (the repository's "
        "publisher holds none), so the egress proxy has nothing to add",
        repo.name);
  for (const EgressInjection& r : u.rules)
    if (r.secret == kAgentForgeSecret)
      return fail("secrets.{} is the name of the read-only forge's credential; rename that secret",
                  kAgentForgeSecret);
  AW_TRY(AgentForgeRead read,
         with_context(agent_forge_read(forge->second, repo.forge, repo_id), "repos." + repo.name));
  AW_TRY(std::string placeholder, make_placeholder(std::string(kAgentForgeSecret)));
  read.rule.value = token;
  u.rules.push_back(std::move(read.rule));
  u.placeholders[placeholder] = std::string(kAgentForgeSecret);
  for (const std::string& name : read.token_vars) u.env.push_back(name + "=" + placeholder);
  for (const auto& [name, value] : read.env) u.env.push_back(name + "=" + value);
  u.literals.push_back(token);
  u.literals.push_back(placeholder);
  // The CA, made again for every bound host: its name constraints must cover the API host.
  std::vector<std::string> hosts;
  for (const EgressInjection& r : u.rules) hosts.push_back(r.host);
  AW_TRY(u.ca, UnitCa::make(hosts));
  return {};
}

}  // namespace aw
