// Who the runner is: the user the job's steps (and awaywork) run as, whose home `host lock`
// closes and who gets the two sudoers lines.
//   AW_TRY(std::string runner, find_runner(flag, std::getenv));
#pragma once

#include <string>

#include "base/result.h"
#include "config/host_env.h"

namespace aw {

// In order: `--runner USER`; SUDO_USER (sudo awaywork host lock, as action.yml runs it); the
// owner of $GITHUB_WORKSPACE or $RUNNER_TEMP (root with the job's environment). Never root.
Result<std::string> find_runner(const std::string& flag, const EnvLookup& env);

}  // namespace aw
