// The fixture of the pipeline tests under isolation `user`: real owner and worker users
// (tests/isolate/user's fixture), the real awaywork binary run AS THE OWNER (never root).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../isolate/user/user_fixture.h"
#include "proc/capture.h"
#include "unit_fixture.h"

namespace aw::test {

// awaywork --config CONFIG ARGS..., as u's owner (setpriv), with an environment of the owner's
// plus `env`, in "/".
inline CaptureSpec owner_capture_spec(const Users& u, const std::string& config,
                                      const std::vector<std::string>& args,
                                      const std::vector<std::string>& env = {}) {
  CaptureSpec spec;
  spec.argv = {"/usr/bin/setpriv",
               fmt::format("--reuid={}", u.owner_uid),
               fmt::format("--regid={}", u.owner_gid),
               "--init-groups",
               "--",
               awaywork_binary(),
               "--config",
               config};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {"PATH=/usr/bin:/bin", "HOME=" + u.owner_home, "LANG=C", "USER=" + u.owner,
              "LOGNAME=" + u.owner};
  spec.env.insert(spec.env.end(), env.begin(), env.end());
  spec.cwd = "/";
  return spec;
}

// Prepares the world for a unit of the owner's and runs awaywork as the owner.
class UserPipeline : public UnitTest {
 protected:
  // The world made reachable: root 711 (the worker reaches the agent scripts, lists nothing),
  // the repository and the state owned by the owner and closed.
  void world(const Users& u, const std::map<std::string, std::string>& files) {
    users_ = &u;
    make_repo(files);
    std::filesystem::create_directories(root + "/state");
    ASSERT_EQ(sh(fmt::format("chmod 711 {0} && chmod 755 {0}/agents && chown -R {1}: {0}/src "
                             "{0}/state && chmod 700 {0}/src {0}/state",
                             root, u.owner)),
              0);
  }

  // config.yml for isolation user; `repo` lines go under repos.src. Isolation user does not
  // layer the sandbox yet, so it runs only where the owner accepts that: mode preferred (the
  // default, required, refuses it; the last test pins that).
  void configure(const std::string& agent, const std::string& repo = "") {
    write_config(agent, repo + "isolation: user\nworker_user: " + std::string(kWorker) +
                            "\nsandbox: {mode: preferred}\n");
    ::chmod(config.c_str(), 0644);
  }

  // awaywork ARGS, as the owner, with an environment of the owner's plus `env`.
  CaptureSpec owner_spec(const std::vector<std::string>& args,
                         const std::vector<std::string>& env = {}) {
    return owner_capture_spec(*users_, config, args, env);
  }

  RunOutput owner_awaywork(const std::vector<std::string>& args,
                           const std::vector<std::string>& env = {}) {
    RunOutput o = run_captured(owner_spec(args, env));
    if (std::getenv("AW_SHOW")) std::fprintf(stderr, "%s\n%s\n", o.out.c_str(), o.err.c_str());
    return o;
  }

  // awaywork run, as the owner, with an environment of the owner's plus `env`.
  RunOutput run_as_owner(const std::string& prompt, const std::vector<std::string>& env = {},
                         const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"run", "--repo", "src", "--prompt", prompt, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return owner_awaywork(args, env);
  }

  // The same started in the background (stdio on /dev/null); returns awaywork's pid.
  pid_t start_as_owner(const std::vector<std::string>& args) {
    CaptureSpec spec = owner_spec(args);
    std::vector<char*> argv, envp;
    for (auto& a : spec.argv) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : spec.env) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
      if (::chdir("/") != 0) ::_exit(126);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    return pid;
  }

  // git in a repository of the owner's, as the owner (root's git refuses another user's repo).
  std::string owner_git(const std::string& repo, const std::string& args) {
    return sh_out(fmt::format("runuser -u {} -- git -C {} {} 2>&1", users_->owner, repo, args));
  }

  nlohmann::json locations(const RunOutput& r) {
    std::string dir = r.record.value("run_dir", "");
    return nlohmann::json::parse(read(dir + "/isolation.json"), nullptr, false);
  }

  static mode_t mode_of(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
  }

  const Users* users_ = nullptr;
};

}  // namespace aw::test
