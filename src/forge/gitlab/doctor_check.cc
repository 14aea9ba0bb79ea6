// The GitLab token's scope check of `awaywork doctor` (issue 29, item 8): one GET of the token's
// own description, its scopes compared with what publishing needs.
#include "forge/gitlab/doctor_check.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "forge/gitlab/session.h"  // gitlab_token: the secret store or glab's login
#include "forge/session.h"         // forge_transport: the forge's ca_file trusted

namespace aw {

namespace {

constexpr const char* kSelf = "/personal_access_tokens/self";

// "https://gitlab.example/api/v4" -> "gitlab.example": the host glab's login is kept for.
std::string api_host(const std::string& api_url) {
  size_t start = api_url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  return api_url.substr(start, api_url.find('/', start) - start);
}

// How to get a token with the scopes: GitLab cannot add scopes to an existing token, so the fix
// is always a new one, stored where the credential says.
std::string new_token_fix(const ForgeConfig& forge) {
  std::string scopes = fmt::format("{}", fmt::join(kGitlabPublishScopes, " and "));
  std::string make = fmt::format(
      "create a token with the {} scope(s) (User Settings > Access Tokens, or the project's or "
      "group's Settings > Access Tokens, role Developer or above); GitLab cannot add scopes to an "
      "existing token",
      scopes);
  if (forge.credential == "glab")
    return make +
           fmt::format(", then `glab auth login --hostname {}` with it", api_host(forge.api_url));
  return make + fmt::format(", then `awaywork secret set {}`", forge.credential);
}

// A string of GitLab's answer as doctor prints it: control characters (a terminal's escapes) left
// out, at most 100 bytes.
std::string printable(const nlohmann::json& v) {
  std::string out;
  if (!v.is_string()) return out;
  for (unsigned char ch : v.get_ref<const std::string&>())
    if (ch >= 0x20 && ch != 0x7f && out.size() < 100) out += static_cast<char>(ch);
  return out;
}

}  // namespace

Check gitlab_token_check(const ForgeConfig& forge, GitLab& gl) {
  Check c{fmt::format("forge {}: GitLab token (credential {}) has the api and write_repository "
                      "scopes",
                      forge.name, forge.credential),
          false, "", ""};
  auto r = gl.call("GET", kSelf);
  if (!r) {
    c.detail = r.error().message;
    c.fix = fmt::format("check that {} is reachable (api_url, ca_file of forge {})", forge.api_url,
                        forge.name);
    return c;
  }
  if (r->status == 404) {
    // GitLab before 15.5 has no such endpoint, and some answer 404 there for project and group
    // access tokens: the token may be fine, its scopes just cannot be read.
    c.ok = true;
    c.detail = fmt::format(
        "warning; GitLab answered 404 to GET {} (GitLab before 15.5, or a project or group "
        "access token it does not describe): the scopes cannot be checked; make sure the token "
        "has {} (its page under Settings > Access Tokens lists them)",
        kSelf, fmt::join(kGitlabPublishScopes, " and "));
    return c;
  }
  if (r->status < 200 || r->status >= 300) {
    c.detail = gl.describe("GET", kSelf, *r);
    // 403: GitLab refuses a token's description to a token too narrow to read it (no api
    // scope), which is also too narrow to publish.
    if (r->status == 403)
      c.detail += "; a token without the api scope may not read its own scopes, nor publish";
    c.fix = r->status == 401 || r->status == 403 ? new_token_fix(forge) : "see the message above";
    return c;
  }
  const nlohmann::json& b = r->body;
  std::vector<std::string> scopes;
  if (b.is_object() && b.contains("scopes") && b["scopes"].is_array())
    for (const auto& s : b["scopes"])
      if (s.is_string()) scopes.push_back(printable(s));
  std::vector<std::string> missing;
  for (const auto& need : kGitlabPublishScopes)
    if (std::find(scopes.begin(), scopes.end(), need) == scopes.end()) missing.push_back(need);
  std::string name = b.is_object() && b.contains("name") ? printable(b["name"]) : "";
  std::string expires = b.is_object() && b.contains("expires_at") ? printable(b["expires_at"]) : "";
  std::string listed = scopes.empty() ? "none" : fmt::format("{}", fmt::join(scopes, ", "));
  std::string about = fmt::format("token {}scopes: {}{}", name.empty() ? "" : "'" + name + "', ",
                                  listed, expires.empty() ? "" : ", expires " + expires);
  // json::value throws on a key of another type: GitLab's answer is read, never trusted to be
  // shaped.
  auto flag = [&b](const char* key, bool otherwise) {
    return b.is_object() && b.contains(key) && b[key].is_boolean() ? b[key].get<bool>() : otherwise;
  };
  bool active = flag("active", true);
  bool revoked = flag("revoked", false);
  if (!active || revoked) {
    c.detail = about + (revoked ? "; revoked" : "; not active (expired?)");
    c.fix = new_token_fix(forge);
    return c;
  }
  if (!missing.empty()) {
    c.detail = fmt::format(
        "{}; missing: {} (needed to publish: api for the merge request, notes "
        "and labels, write_repository for the push)",
        about, fmt::join(missing, ", "));
    c.fix = new_token_fix(forge);
    return c;
  }
  c.ok = true;
  c.detail = about;
  return c;
}

std::vector<Check> gitlab_checks(const Config& cfg) {
  std::vector<Check> out;
  for (const auto& [name, forge] : cfg.forges) {
    if (forge.kind != "gitlab") continue;
    Check c{fmt::format("forge {}: GitLab token (credential {}) has the api and write_repository "
                        "scopes",
                        name, forge.credential),
            false, "", ""};
    auto token = gitlab_token(forge);
    if (!token) {
      c.detail = token.error().message;
      c.fix = forge.credential == "glab"
                  ? fmt::format("glab auth login --hostname {}", api_host(forge.api_url))
                  : fmt::format("awaywork secret set {}   # the token, read from stdin",
                                forge.credential);
      out.push_back(std::move(c));
      continue;
    }
    auto transport = forge_transport(forge);
    if (!transport) {
      c.detail = transport.error().message;
      c.fix = fmt::format("fix api_url or ca_file of forge {}", name);
      out.push_back(std::move(c));
      continue;
    }
    GitLabOptions opt;
    opt.api_url = forge.api_url;
    opt.credential = forge.credential;
    opt.max_retries = 1;  // doctor answers now; a busy instance is reported, not waited out
    opt.max_wait_seconds = 10;
    GitLab gl(opt, *token, std::move(*transport), system_clock());
    out.push_back(gitlab_token_check(forge, gl));
  }
  return out;
}

}  // namespace aw
