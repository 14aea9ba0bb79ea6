// For the watch benchmarks (watch_bench, gitlab_watch_bench): what both set up alike before the
// watcher runs. HOME and the file secret backend, for this process and the awaywork it runs, and
// the forge's token stored with `awaywork secret set` before the config is loaded.
#pragma once

#include <stdlib.h>

#include <cstdio>
#include <string>

#include "base/fs.h"
#include "base/result.h"
#include "config/config.h"
#include "proc/capture.h"

namespace aw::bench {

// The awaywork binary of this build tree (AW_BINARY_DIR: bench/CMakeLists.txt).
inline std::string awaywork_exe() {
  return std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
}

// ROOT/home, made, as HOME, with the file secret backend: where `secret set` below writes the
// token and the watcher of this process reads it.
inline std::string bench_home(const std::string& root) {
  std::string home = root + "/home";
  (void)make_dirs(home);
  ::setenv("HOME", home.c_str(), 1);
  ::setenv("AWAYWORK_SECRET_BACKEND", "file", 1);
  return home;
}

// `awaywork secret set NAME` with the token on its stdin (never on an argv), then the config at
// path loaded. A failure is said on stderr ("setup failed: ...") and returned as an Error.
inline Result<Config> secret_and_config(const std::string& exe, const std::string& home,
                                        const std::string& name, const std::string& token,
                                        const std::string& path) {
  auto set = capture({.argv = {exe, "secret", "set", name},
                      .env = {"PATH=/usr/bin:/bin", "HOME=" + home, "AWAYWORK_SECRET_BACKEND=file"},
                      .cwd = "/",
                      .stdin_data = token});
  auto cfg = load_config(path, true);
  if (!set || set->exit_code != 0 || !cfg) {
    std::fprintf(stderr, "setup failed: %s\n", cfg ? "secret set" : cfg.error().message.c_str());
    return fail(std::string("setup failed"));
  }
  return cfg;
}

}  // namespace aw::bench
