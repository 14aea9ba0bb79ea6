// The awaywork binary as the end-to-end tests run it: the test's config, its HOME (where the file
// secret store lives) and an environment from nothing, without the host's git config:
//   Captured c = run_awaywork(config, home, {"run", "--issue", "web#1", "--json"});
//   std::vector<std::string> env = awaywork_env(home);  // for a start in the background
#pragma once

#include <string>
#include <vector>

#include "proc/capture.h"

namespace aw::test {

inline std::string awaywork_binary() {
  return std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
}

inline std::vector<std::string> awaywork_env(const std::string& home) {
  return {"PATH=/usr/bin:/bin",           "HOME=" + home,          "LC_ALL=C",
          "AWAYWORK_SECRET_BACKEND=file", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"};
}

// awaywork [--config CONFIG] ARGS (config "": without --config); a failure to start is exit -1.
inline Captured run_awaywork(const std::string& config, const std::string& home,
                             const std::vector<std::string>& args,
                             const std::string& stdin_data = "") {
  CaptureSpec s;
  s.argv = {awaywork_binary()};
  if (!config.empty()) s.argv.insert(s.argv.end(), {"--config", config});
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.env = awaywork_env(home);
  s.stdin_data = stdin_data;
  auto r = capture(s);
  return r ? *r : Captured{-1, "", r.error().message};
}

}  // namespace aw::test
