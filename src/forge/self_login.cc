#include "forge/self_login.h"

#include <fmt/format.h>

#include <cstring>

#include "forge/model.h"

namespace aw {

bool installation_refusal(const ApiReply& r) {
  // GitHub's words exactly: a 403 for another reason (a rate limit, SSO) is not this.
  return r.status == 403 && r.body.is_object() && r.body.contains("message") &&
         r.body["message"].is_string() &&
         r.body["message"].get<std::string>() == "Resource not accessible by integration";
}

Result<std::string> self_login_of(const GitHub& gh, const ApiReply& r, const ForgeConfig& forge,
                                  bool workflow_job, const char* github_actions) {
  if (r.status >= 200 && r.status <= 299) {
    AW_TRY(ForgeUser me, user_from_json(r.body, "GET /user"));
    return me.login;
  }
  if (!installation_refusal(r)) return fail("{}", gh.describe("GET", "/user", r));
  bool in_actions = github_actions && std::strcmp(github_actions, "true") == 0;
  if (workflow_job && in_actions) return std::string(kActionsLogin);
  std::string from =
      forge.credential == "gh" ? "your gh login" : fmt::format("credential '{}'", forge.credential);
  std::string fix = forge.credential == "gh"
                        ? " with `gh auth login`"
                        : fmt::format(" with `awaywork secret set {}`", forge.credential);
  if (in_actions)
    // Inside a job, but not one of the workflow's job commands: watch, serve or a plain run
    // would take every pull request any workflow opens as awaywork's own.
    return fail(
        "GitHub GET /user: 403 \"Resource not accessible by integration\": the token of {} (forge "
        "{}) is a GitHub App's installation token (such as a workflow's github.token), which "
        "belongs to no user. Even with GITHUB_ACTIONS=true awaywork takes it as "
        "github-actions[bot]'s only in the reusable workflow's job commands (`run ... --artifact "
        "DIR`, `apply --from DIR`), never in watch, serve or a run that publishes: every workflow "
        "of the repository publishes as github-actions[bot]. Give it a token of the user or bot "
        "account it acts as (a personal access token){}",
        from, forge.name, fix);
  return fail(
      "GitHub GET /user: 403 \"Resource not accessible by integration\": the token of {} (forge "
      "{}) is a GitHub App's installation token (such as a workflow's github.token), which "
      "belongs to no user. awaywork takes it as github-actions[bot]'s only inside GitHub Actions "
      "(GITHUB_ACTIONS=true), in the reusable workflow's job commands (`run ... --artifact DIR`, "
      "`apply --from DIR`); here, give it a token of the user or bot account it acts as (a "
      "personal access token){}",
      from, forge.name, fix);
}

}  // namespace aw
