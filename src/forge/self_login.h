// Whose token a forge session holds: GitHub's answer to GET /user, and the one answer that is not
// a user's. An installation token (a GitHub App's, such as a workflow's `github.token`) belongs to
// no user: GitHub answers GET /user with 403 "Resource not accessible by integration". In the
// reusable workflow's job commands (`run ... --artifact`, `apply --from`: Config::workflow_job,
// set by the command line) inside GitHub Actions (GITHUB_ACTIONS=true) such a token is taken as
// the workflow's github.token, whose login is github-actions[bot] (what the reusable workflow hands
// its jobs; docs/scale-out.md). Anywhere else it is an Error naming the credential and the fix:
// outside Actions no one can say whose it is, and a wrong login would make awaywork miss its own
// markers and post twice. watch, serve and a plain run are refused even inside a job: with self
// github-actions[bot], every pull request any workflow opens would be awaywork's own
// (pr_source.cc followable), and the environment alone says nothing of which command this is.
//   AW_TRY(ApiReply r, gh.call("GET", "/user"));
//   AW_TRY(s->self_login, self_login_of(gh, r, forge, cfg.workflow_job, getenv("GITHUB_ACTIONS")));
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "config/config.h"
#include "forge/client.h"

namespace aw {

// The login of a workflow's github.token (an installation of the GitHub Actions app).
inline constexpr std::string_view kActionsLogin = "github-actions[bot]";

// GitHub's answer to an installation token's GET /user: 403 with that message.
bool installation_refusal(const ApiReply& r);

// The login of GET /user's answer r. workflow_job: the command is one of the reusable workflow's
// job commands (Config::workflow_job); github_actions: the value of GITHUB_ACTIONS (null when
// unset). Only both, workflow_job and "true", make an installation token's refusal
// github-actions[bot]'s login.
Result<std::string> self_login_of(const GitHub& gh, const ApiReply& r, const ForgeConfig& forge,
                                  bool workflow_job, const char* github_actions);

}  // namespace aw
