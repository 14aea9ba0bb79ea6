// `awaywork probe` under isolation user: the worker's probes run as the real worker through the
// unit's isolator, run by the real awaywork as the real owner (tests/isolate/user's fixture: real
// users, real sudoers lines). Every probe is ok; with one protection removed, its probe says LEAK.
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "../isolate/user/user_fixture.h"
#include "../unit/unit_fixture.h"
#include "proc/capture.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kWorkerProbes = {"env-file",    "owner-home", "awaywork-environ",
                                                "any-environ", "gh-hosts",   "ssh-agent",
                                                "sudo",        "crontab",    "leftover-sleep"};

std::set<std::string> tmp_entries(const std::string& pattern) {
  std::set<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.insert(g.gl_pathv[i]);
  ::globfree(&g);
  return out;
}

class UserProbe : public UnitTest {
 protected:
  // root 711 (the worker lists nothing there), the state the owner's and closed, the config
  // readable (it is the owner's file in a real setup; here root writes it).
  void world(const Users& u, const std::string& sandbox) {
    users_ = &u;
    fs::create_directories(root + "/state");
    std::ofstream(config) << "state_dir: " << root
                          << "/state\nisolation: user\nworker_user: " << kWorker
                          << "\nsandbox: " << sandbox << "\n";
    ASSERT_EQ(sh(fmt::format("chmod 711 {0} && chmod 644 {1} && chown -R {2}: {0}/state && "
                             "chmod 700 {0}/state",
                             root, config, u.owner)),
              0);
  }

  RunOutput probe(bool json = true) {
    CaptureSpec spec;
    spec.argv = {"/usr/bin/setpriv",
                 fmt::format("--reuid={}", users_->owner_uid),
                 fmt::format("--regid={}", users_->owner_gid),
                 "--init-groups",
                 "--",
                 awaywork_binary(),
                 "--config",
                 config,
                 "probe"};
    if (json) spec.argv.push_back("--json");
    spec.env = {"PATH=/usr/bin:/bin", "HOME=" + users_->owner_home, "LANG=C",
                "USER=" + users_->owner, "LOGNAME=" + users_->owner};
    spec.cwd = "/";
    RunOutput o = run_captured(spec);
    if (std::getenv("AW_SHOW")) std::fprintf(stderr, "%s\n%s\n", o.out.c_str(), o.err.c_str());
    return o;
  }

  static std::map<std::string, nlohmann::json> by_name(const RunOutput& r) {
    std::map<std::string, nlohmann::json> out;
    if (r.record.is_object())
      for (const auto& p : r.record["probes"]) out[p["name"].get<std::string>()] = p;
    return out;
  }

  const Users* users_ = nullptr;
};

TEST_F(UserProbe, EveryWorkerProbeIsOkAndTheCanariesAreRemoved) {
  AW_NEED_USERS(u);
  world(*u, "{mode: off}");
  auto ssh_before = tmp_entries("/tmp/ssh-*");
  // The unit's folders and the worker's helper folder (handoff.cc, worker_sandbox.cc); not every
  // /tmp/awaywork-*: a test running beside this one (a provider doctor's HOME) makes its own.
  auto unit_folders = [] {
    auto all = tmp_entries("/tmp/awaywork-??????");
    for (auto& h : tmp_entries("/tmp/awaywork-helper-*")) all.insert(h);
    return all;
  };
  auto folders_before = unit_folders();
  std::string env_file = u->owner_home + "/.config/awaywork/env";
  ASSERT_FALSE(exists(env_file));
  auto r = probe();
  ASSERT_TRUE(r.record.is_object()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.record["isolation"], "user");
  EXPECT_EQ(r.record["ok"], true) << r.out;
  auto probes = by_name(r);
  for (const auto& n : kWorkerProbes) {
    ASSERT_TRUE(probes.count(n)) << n << " missing: " << r.out;
    EXPECT_TRUE(probes[n]["ok"].get<bool>()) << probes[n].dump();
  }
  // The canaries were there (the probes saw them refused, not missing) and are gone again.
  EXPECT_NE(probes["env-file"]["detail"].get<std::string>().find("Permission denied"),
            std::string::npos)
      << probes["env-file"].dump();
  EXPECT_FALSE(exists(env_file));
  EXPECT_FALSE(exists(u->owner_home + "/.config"));
  EXPECT_EQ(tmp_entries("/tmp/ssh-*"), ssh_before);
  EXPECT_EQ(unit_folders(), folders_before);  // the unit's folders went too
}

TEST_F(UserProbe, TextOutputHasOneLinePerProbe) {
  AW_NEED_USERS(u);
  world(*u, "{mode: off}");
  auto r = probe(false);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind(fmt::format("isolation user (worker {}), unsandboxed", kWorker), 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("\nok   owner-home\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("LEAK"), std::string::npos) << r.out;
}

// Positive controls: the owner's home opened (chmod o+rx), then an env file made 0644 in an open
// folder. `run` refuses both (doctor's checks); the probe runs in spite of them, says LEAK, and
// repeats doctor's finding with its fix.
TEST_F(UserProbe, OpenedHomeAndAReadableEnvFileLeak) {
  AW_NEED_USERS(u);
  world(*u, "{mode: off}");
  const std::string h = u->owner_home;
  ASSERT_EQ(sh(fmt::format("chmod o+rx {}", h)), 0);
  auto open_home = probe();
  auto p = by_name(open_home);
  EXPECT_EQ(open_home.exit_code, 1) << open_home.out << open_home.err;
  ASSERT_TRUE(p.count("owner-home")) << open_home.out << open_home.err;
  EXPECT_FALSE(p["owner-home"]["ok"].get<bool>()) << p["owner-home"].dump();
  EXPECT_TRUE(p["env-file"]["ok"].get<bool>()) << p["env-file"].dump();  // planted 0600
  EXPECT_NE(open_home.err.find("chmod o-rwx " + h), std::string::npos) << open_home.err;

  ASSERT_EQ(sh(fmt::format("mkdir -p {0}/.config/awaywork && echo 'K=sk-ant-FAKE' > "
                           "{0}/.config/awaywork/env && chmod 755 {0}/.config "
                           "{0}/.config/awaywork && chmod 644 {0}/.config/awaywork/env && "
                           "chown -R {1}: {0}/.config",
                           h, u->owner)),
            0);
  auto open_env = probe();
  p = by_name(open_env);
  EXPECT_EQ(sh(fmt::format("test -f {0}/.config/awaywork/env", h)), 0);  // the owner's: kept
  sh(fmt::format("rm -rf {0}/.config; chmod 750 {0}", h));
  EXPECT_EQ(open_env.exit_code, 1) << open_env.out << open_env.err;
  ASSERT_TRUE(p.count("env-file")) << open_env.out << open_env.err;
  EXPECT_FALSE(p["env-file"]["ok"].get<bool>()) << p["env-file"].dump();
  EXPECT_NE(open_env.err.find("chmod 600 " + h + "/.config/awaywork/env"), std::string::npos)
      << open_env.err;
}

// User + sandbox: the worker's probes and the sandbox's suite, as the worker inside the sandbox
// it built itself, all ok: no network, hidden paths, no owner process, syscalls refused.
TEST_F(UserProbe, InsideTheSandboxEveryProbeIsOk) {
  AW_NEED_USERS(u);
  world(*u, "{mode: required, limits: off}");
  // Another user's home, open to everyone: the worker could list it outside, not in its view.
  std::string other = fmt::format("/home/aw-user-view-other-{}", ::getpid());
  ASSERT_EQ(sh(fmt::format("mkdir -p {0} && echo CANARY > {0}/diary.txt && chmod 755 {0} && "
                           "chmod 644 {0}/diary.txt",
                           other)),
            0);
  auto r = probe();
  sh("rm -rf " + other);
  ASSERT_TRUE(r.record.is_object()) << r.out << r.err;
  EXPECT_TRUE(by_name(r).count("view.other_home:" + other)) << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network none", 0), 0u);
  auto probes = by_name(r);
  for (const auto& [name, p] : probes) EXPECT_TRUE(p["ok"].get<bool>()) << p.dump();
  for (const auto& n : kWorkerProbes) EXPECT_TRUE(probes.count(n)) << n << " missing: " << r.out;
  for (const char* n : {"write.etc", "net.host_loopback", "proc.owner_processes", "ptrace"})
    EXPECT_TRUE(probes.count(n)) << n << " missing: " << r.out;
  EXPECT_TRUE(probes.count("hidden:" + config)) << r.out;
}

// Not what the probe can let through: the handoff's own safety. With protected_symlinks off,
// probe refuses like run, naming the fix.
// HostWide*: turns the machine's protected_symlinks off for a moment, so ctest runs it alone.
using HostWideUserProbe = UserProbe;

TEST_F(HostWideUserProbe, ProtectedSymlinksOffIsRefused) {
  AW_NEED_USERS(u);
  world(*u, "{mode: off}");
  RunOutput r;
  {
    SysctlScope off("protected_symlinks", 0);
    r = probe();
  }
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sysctl -w fs.protected_symlinks=1"), std::string::npos) << r.err;
  EXPECT_FALSE(r.record.is_object()) << r.out;
}

}  // namespace
}  // namespace aw::test
