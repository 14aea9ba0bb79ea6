// What the sandbox is made of before a phase runs, and what it refuses: the plan from the config
// (writable paths that would expose the owner's secrets, the folders always hidden, the lent
// install folders, doctor's warnings), the required policy's decision, and cgroup v1 limits in a
// container's shape (doctor and a phase with limits agree).
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "harness.h"
#include "isolate/sandbox/limits_source.h"
#include "isolate/sandbox/sandbox.h"
#include "proc/cgroup_v1.h"
#include "proc/runner.h"
#include "sandbox_fixture.h"

namespace aw {
namespace {

using test::TempDir;
using IsolateSandbox = test::SandboxFixture;

TEST_F(IsolateSandbox, RequiredPolicyRefusesWhatItCannotBuildAndNamesTheFix) {
  plan.mode = SandboxMode::required;
  plan.network = Network::allowlist;
  auto d = sandbox_decision(plan);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("network allowlist"), std::string::npos) << d.error().message;
  EXPECT_NE(d.error().message.find("fix:"), std::string::npos);
  plan.mode = SandboxMode::preferred;
  auto p = sandbox_decision(plan);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->rfind("unsandboxed: ", 0), 0u) << *p;
  plan.mode = SandboxMode::off;
  EXPECT_EQ(*sandbox_decision(plan), "unsandboxed: sandbox is off in the config");
  plan.mode = SandboxMode::required;
  plan.network = Network::none;
  EXPECT_EQ(*sandbox_decision(plan), "");
}

// Root in a Docker container on a cgroup v1 host (issue 31, item 14): each of the memory, pids and
// cpu hierarchies is mounted at /sys/fs/cgroup/<c> from the container's own group (mountinfo's
// root field), read-only unless the container remounts it; /proc/self/cgroup names that group from
// the hierarchy's root. Made here in a child: a fresh group of each hierarchy, joined, then bound
// over /sys/fs/cgroup/<c> in the child's own mount namespace. What doctor's tries say there and
// what a phase with limits does must agree: both work when the mounts are writable, both fail,
// naming the mount, when they are read-only.
struct ContainerShape {
  std::string probe;     // "ok <memory folder>" or "fail <why>"
  std::string missing;   // probe_sandbox's features, one a line
  std::string describe;  // describe_limits(true)
  std::string phase;     // "exit N <out>" or "refused <why>"
};

class V1ContainerShape : public test::SandboxFixture {
 protected:
  void SetUp() override {
    SandboxFixture::SetUp();
    NEED_ROOT();
    // A host with cgroup v2 only (or v2's memory controller) has no v1 groups to shape: under
    // CI=true that is a failure, not a skip (run these where v1 hierarchies are mounted).
    if (cgroup_sources().v2_controllers.find("memory") != std::string::npos)
      AW_SKIP_OR_FAIL("limits come from cgroup v2 here, not from v1 groups");
    for (const char* c : {"memory", "pids", "cpu"}) {
      auto base = own_v1_group_dir(c);
      struct stat st {};
      if (!base || ::stat(base->c_str(), &st) != 0)
        AW_SKIP_OR_FAIL("no cgroup v1 " << c << " hierarchy here");
      groups_.push_back(*base + "/aw-cgtest-" + std::to_string(::getpid()));
      ASSERT_EQ(::mkdir(groups_.back().c_str(), 0755), 0) << groups_.back();
    }
  }
  void TearDown() override {
    for (const auto& g : groups_) {
      // Whatever the sandbox left below (a sweep removes it; a failed test may not have).
      if (DIR* d = ::opendir(g.c_str())) {
        while (dirent* e = ::readdir(d))
          if (std::string(e->d_name).rfind("awaywork-sandbox-", 0) == 0)
            ::rmdir((g + "/" + e->d_name).c_str());
        ::closedir(d);
      }
      for (int i = 0; i < 200 && ::rmdir(g.c_str()) != 0 && errno == EBUSY; ++i) ::usleep(5000);
    }
  }
  ContainerShape run_in_shape(bool read_only) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return {};
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(p[0]);
      std::string report = in_child(read_only);
      (void)!::write(p[1], report.data(), report.size());
      ::_exit(0);
    }
    ::close(p[1]);
    std::string text;
    test::drain(p[0], text);
    ::close(p[0]);
    ::waitpid(pid, nullptr, 0);
    ContainerShape out;
    std::string* field[] = {&out.probe, &out.missing, &out.describe, &out.phase};
    size_t at = 0;
    for (std::string* f : field) {
      size_t end = text.find('\x1e', at);
      if (end == std::string::npos) break;
      *f = text.substr(at, end - at);
      at = end + 1;
    }
    return out;
  }

 private:
  // In the forked child: no gtest here; what happened goes back as text, fields ended by \x1e.
  std::string in_child(bool read_only) {
    std::string me = std::to_string(::getpid());
    const char* names[] = {"memory", "pids", "cpu"};
    for (size_t i = 0; i < groups_.size(); ++i)
      if (!write_file_existing(groups_[i] + "/cgroup.procs", me))
        return "setup: join " + groups_[i] + "\x1e";
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      return "setup: a private mount namespace: " + errno_text(errno) + "\x1e";
    for (size_t i = 0; i < groups_.size(); ++i) {
      std::string at = std::string("/sys/fs/cgroup/") + names[i];
      if (::mount(groups_[i].c_str(), at.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
          (read_only &&
           ::mount(nullptr, at.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0))
        return "setup: bind " + groups_[i] + " at " + at + ": " + errno_text(errno) + "\x1e";
    }
    std::string out;
    auto tried = probe_v1_limits();
    out += (tried ? "ok " + *tried : "fail " + tried.error().message) + "\x1e";
    for (const auto& m : probe_sandbox(plan)) out += m.feature + "\n";
    out += "\x1e" + describe_limits(true) + "\x1e";
    auto r = sh("echo ran");
    out += (r.started ? "exit " + std::to_string(r.exit_code()) + " " + r.out
                      : "refused " + r.start_error) +
           "\x1e";
    return out;
  }
  static bool write_file_existing(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return ok;
  }
  std::vector<std::string> groups_;
};

// The rule V1ContainerShape's SetUp keeps: on a host without v1 hierarchies (cgroup v2 only) it
// skips, except under CI=true, where a skip would hide that CI never ran these tests.
void needs_a_v1_hierarchy() {
  AW_SKIP_OR_FAIL("no cgroup v1 memory hierarchy here");
}

TEST(SkipOrFail, UnderCiASkipIsAFailure) {
  const char* was = std::getenv("CI");
  std::string saved = was ? was : "";
  ::setenv("CI", "true", 1);
  EXPECT_FATAL_FAILURE(needs_a_v1_hierarchy(),
                       "no cgroup v1 memory hierarchy here (CI=true: no skip)");
  if (was)
    ::setenv("CI", saved.c_str(), 1);
  else
    ::unsetenv("CI");
}

TEST_F(V1ContainerShape, WritableMountsOfOurOwnGroupHoldTheLimitsAndDoctorSaysSo) {
  ContainerShape s = run_in_shape(false);
  EXPECT_EQ(s.probe, "ok /sys/fs/cgroup/memory") << s.probe;
  EXPECT_EQ(s.missing.find("cgroup limits"), std::string::npos) << s.missing;
  EXPECT_NE(s.describe.find("limits from cgroup v1 groups (memory, pids, cpu) below awaywork's "
                            "own (/sys/fs/cgroup/memory)"),
            std::string::npos)
      << s.describe;
  EXPECT_EQ(s.phase, "exit 0 ran\n") << s.phase;
}

TEST_F(V1ContainerShape, ReadOnlyMountsRefuseTheLimitsAndDoctorSaysSoToo) {
  ContainerShape s = run_in_shape(true);
  EXPECT_EQ(s.probe.rfind("fail mkdir /sys/fs/cgroup/memory/awaywork-sandbox-", 0), 0u) << s.probe;
  EXPECT_NE(s.probe.find("Read-only file system"), std::string::npos) << s.probe;
  EXPECT_NE(s.missing.find("cgroup limits (memory, pids, cpu): mkdir /sys/fs/cgroup/memory/"),
            std::string::npos)
      << s.missing;
  EXPECT_NE(s.describe.find("no cgroup of this owner's can hold limits"), std::string::npos)
      << s.describe;
  EXPECT_NE(s.describe.find("Read-only file system"), std::string::npos) << s.describe;
  EXPECT_EQ(s.phase.rfind("refused ", 0), 0u) << s.phase;
  EXPECT_NE(s.phase.find("cgroup limits"), std::string::npos) << s.phase;
  EXPECT_NE(s.phase.find("Read-only file system"), std::string::npos) << s.phase;
}

TEST(IsolatePlan, RefusesWritablePathsThatExposeTheOwnersSecretsOrHome) {
  TempDir d;
  SandboxPaths u{d.path + "/clone", d.path + "/home", {}, d.path + "/owner", "", "", {}, {}, ""};
  SandboxConfig cfg;
  for (const auto& bad : {d.path + "/owner/.claude", d.path + "/owner", d.path + "/owner/.config",
                          std::string("/")}) {
    u.provider_state = {bad};
    auto plan = make_plan(cfg, u);
    EXPECT_FALSE(plan) << bad;
  }
  u.provider_state = {d.path + "/home/.claude"};
  EXPECT_TRUE(make_plan(cfg, u));
}

TEST(IsolatePlan, DoctorWarnsAboutHostNetworkAndMissingLimits) {
  SandboxPlan plan;
  EXPECT_TRUE(sandbox_warnings(plan).empty());
  plan.network = Network::host;
  plan.apply_limits = false;
  auto w = sandbox_warnings(plan);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("network: host"), std::string::npos);
  EXPECT_NE(w[1].find("limits are off"), std::string::npos);
}

TEST(IsolatePlan, ExpandsHomeResolvesLinksAndAlwaysHidesAwayworksOwnFolders) {
  TempDir d;
  ASSERT_TRUE(make_dirs(d.path + "/real"));
  ASSERT_EQ(::symlink((d.path + "/real").c_str(), (d.path + "/.aws").c_str()), 0);
  SandboxConfig cfg;
  cfg.hidden = {"~/extra"};
  SandboxPaths u{d.path + "/clone",
                 d.path + "/home",
                 {d.path + "/claude"},
                 d.path,
                 d.path + "/cfg",
                 d.path + "/state",
                 {d.path + "/secrets.bin"},
                 {},
                 ""};
  auto plan = make_plan(cfg, u);
  ASSERT_TRUE(plan) << plan.error().message;
  auto has = [&](const std::string& p) {
    return std::find(plan->hidden.begin(), plan->hidden.end(), p) != plan->hidden.end();
  };
  EXPECT_TRUE(has(d.path + "/extra"));
  EXPECT_TRUE(has(d.path + "/.ssh"));
  EXPECT_TRUE(has(d.path + "/.aws"));
  EXPECT_TRUE(has(d.path + "/real"));  // the target of a hidden link
  EXPECT_TRUE(has(d.path + "/cfg"));
  EXPECT_TRUE(has(d.path + "/state"));
  EXPECT_TRUE(has(d.path + "/secrets.bin"));
  EXPECT_EQ(plan->writable,
            (std::vector<std::string>{d.path + "/clone", d.path + "/home", d.path + "/claude"}));
}

// What of a home a plan lends, resolved as the phases will resolve their programs.
TEST(IsolatePlan, LendsTheInstallFoldersOfToolchainsAndReadablePathsOnly) {
  test::TempDir d;
  std::string h = d.path + "/home";
  for (const auto& dir :
       {h + "/.nvm/versions/node/v9/bin", h + "/.nvm/versions/node/v9/lib", h + "/.local/bin",
        h + "/.local/lib", h + "/.local/share/keyrings", h + "/bin", h + "/notes/api", h + "/.ssh"})
    ASSERT_TRUE(make_dirs(dir));
  for (const auto& exe :
       {h + "/.nvm/versions/node/v9/bin/node", h + "/.local/bin/tool", h + "/bin/x"}) {
    ASSERT_TRUE(write_file(exe, "#!/bin/sh\n", 0755));
  }
  SandboxConfig cfg;
  cfg.readable = {"~/notes/api"};
  SandboxPaths u{d.path + "/clone",
                 d.path + "/uhome",
                 {},
                 h,
                 "",
                 "",
                 {},
                 {"node", "x"},
                 h + "/.local/bin:/usr/bin:" + h + "/.nvm/versions/node/v9/bin:" + h + "/bin"};
  auto plan = make_plan(cfg, u);
  ASSERT_TRUE(plan) << plan.error().message;
  std::set<std::string> lent;
  for (const auto& r : plan->readable) lent.insert(r.target);
  EXPECT_EQ(lent, (std::set<std::string>{h + "/.nvm/versions/node/v9", h + "/.local/bin",
                                         h + "/.local/lib", h + "/bin", h + "/notes/api"}));
  auto lines = home_in_view(*plan, h);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "~/notes/api (readable:)"), lines.end());
  // Hidden wins over readable: said, not dropped. A whole home is refused.
  cfg.readable = {"~/.ssh"};
  auto hidden = make_plan(cfg, u);
  ASSERT_FALSE(hidden);
  EXPECT_NE(hidden.error().message.find("hidden wins"), std::string::npos);
  cfg.readable = {"~"};
  EXPECT_FALSE(make_plan(cfg, u));
}

}  // namespace
}  // namespace aw
