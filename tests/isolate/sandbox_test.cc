// The sandbox launcher, called directly as the runner's keeper would call it: namespaces, the
// filesystem view, hidden paths, the init that reaps, errors from the child, policy.
#include <dirent.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "harness.h"
#include "isolate/sandbox/limits_source.h"
#include "isolate/sandbox/sandbox.h"
#include "proc/cgroup_v1.h"
#include "proc/runner.h"

namespace aw {
namespace {

using test::run_with;
using test::TempDir;

#define NEED_ROOT()                                                        \
  do {                                                                     \
    if (::geteuid() != 0) AW_SKIP_OR_FAIL("needs root for cgroup limits"); \
  } while (0)

struct Fixture : ::testing::Test {
  TempDir dir;
  std::string clone = dir.path + "/clone", home = dir.path + "/home";
  SandboxPlan plan;
  void SetUp() override {
    ASSERT_TRUE(make_dirs(clone));
    ASSERT_TRUE(make_dirs(home));
    plan.writable = {clone, home};
    plan.limits = Limits{256ull << 20, 128, 1.0};
    plan.apply_limits = ::geteuid() == 0;
  }
  test::Ran sh(const std::string& script) {
    return run_with(make_sandbox_launcher(plan), {"/bin/sh", "-c", script}, clone);
  }
};

using IsolateSandbox = Fixture;

TEST_F(IsolateSandbox, ReturnsTheMainProcessExitCodeAndOutput) {
  auto r = sh("echo hello; echo err >&2; exit 3");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST_F(IsolateSandbox, MainProcessRunsInNewPidUtsAndNetworkNamespaces) {
  auto r =
      sh("echo $$; hostname; ls /sys/class/net >/dev/null; cat /proc/net/dev | tail -n +3 | cut "
         "-d: -f1 | tr -d ' '");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "2\nawaywork\nlo\n") << r.err;
}

TEST_F(IsolateSandbox, PhasesOfAUnitShareOneEmptyNetworkNamespace) {
  NEED_ROOT();
  auto ns = UnitNetns::create();
  ASSERT_TRUE(ns) << ns.error().message;
  plan.unit_netns_fd = ns->fd();
  std::string script =
      "readlink /proc/self/ns/net; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '";
  auto a = sh(script), b = sh(script);
  ASSERT_TRUE(a.started && b.started) << a.start_error << b.start_error;
  char host[64] = {};
  ASSERT_GT(::readlink("/proc/self/ns/net", host, sizeof host - 1), 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out.find(host), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("\nlo\n"), std::string::npos) << a.out;
  EXPECT_EQ(std::count(a.out.begin(), a.out.end(), '\n'), 2) << a.out;  // the link and lo only
  char after[64] = {};
  ASSERT_GT(::readlink("/proc/self/ns/net", after, sizeof after - 1), 0);
  EXPECT_STREQ(host, after);  // the launcher went back to its own namespace
}

TEST_F(IsolateSandbox, SignalDeathIsReportedAs128PlusSignal) {
  auto r = sh("kill -9 $$");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code(), 128 + 9);
}

TEST_F(IsolateSandbox, ExecFailureComesBackAsALaunchError) {
  auto r = run_with(make_sandbox_launcher(plan), {"no-such-program-aw"}, clone);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("exec"), std::string::npos) << r.start_error;
  EXPECT_NE(r.start_error.find("no-such-program-aw"), std::string::npos) << r.start_error;
}

TEST_F(IsolateSandbox, BadWritablePathIsRefusedBeforeThePhaseRuns) {
  ASSERT_EQ(::symlink(clone.c_str(), (dir.path + "/link").c_str()), 0);
  plan.writable.push_back(dir.path + "/link");
  auto r = sh("true");
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("filesystem view"), std::string::npos) << r.start_error;
}

TEST_F(IsolateSandbox, RootIsReadOnlyCloneHomeAndTmpAreWritable) {
  auto r =
      sh("touch /etc/aw-x 2>/dev/null && echo etc; touch /usr/aw-x 2>/dev/null && echo usr;"
         "touch " +
         dir.path +
         "/aw-x 2>/dev/null && echo parent;"
         "touch ./c && echo clone; touch " +
         home + "/h && echo home; touch /tmp/t && echo tmp");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "clone\nhome\ntmp\n") << r.err;
  struct stat st {};
  EXPECT_EQ(::stat((clone + "/c").c_str(), &st), 0);
  EXPECT_NE(::stat("/etc/aw-x", &st), 0);
}

TEST_F(IsolateSandbox, TmpIsPrivateAndEmpty) {
  ASSERT_TRUE(write_file("/tmp/aw-sbx-host-canary", "x"));
  auto r = sh("ls -A /tmp | grep -c . ; test -e /tmp/aw-sbx-host-canary && echo seen");
  ::unlink("/tmp/aw-sbx-host-canary");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "0\n") << r.err;
}

TEST_F(IsolateSandbox, HiddenFolderFileAndLinkTargetAreEmptyReadOnlyMasks) {
  std::string secret_dir = dir.path + "/owner/.ssh", secret_file = dir.path + "/owner/.netrc";
  ASSERT_TRUE(make_dirs(secret_dir));
  ASSERT_TRUE(write_file(secret_dir + "/id_canary", "PRIVATE"));
  ASSERT_TRUE(write_file(secret_file, "machine x password canary"));
  // A link in the clone pointing at the hidden folder reaches the mask, not the folder.
  ASSERT_EQ(::symlink(secret_dir.c_str(), (clone + "/sneaky").c_str()), 0);
  plan.hidden = {secret_dir, secret_file};
  auto r = sh("cat " + secret_dir + "/id_canary 2>/dev/null; ls -A " + secret_dir + "; cat " +
              secret_file + "; ls -A sneaky/; touch " + secret_dir +
              "/new 2>/dev/null && echo wrote;"
              "echo x > " +
              secret_file + " 2>/dev/null && echo wrote2; echo end");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "end\n") << r.err;
}

TEST_F(IsolateSandbox, MissingHiddenPathStaysHiddenWhenTheHostCreatesItLater) {
  std::string owner = dir.path + "/owner";
  ASSERT_TRUE(make_dirs(owner + "/.config"));
  ASSERT_TRUE(write_file(owner + "/visible", "v"));
  plan.readable = {{owner, owner, "readable:"}};  // masks apply where a lent folder reaches
  plan.hidden = {owner + "/.kube/config", owner + "/.config/gh"};
  // The phase waits until the host has created both paths, then looks.
  std::string script = "while [ ! -e go ]; do sleep 0.01; done; cat " + owner +
                       "/visible; echo; ls -A " + owner + "/.kube; ls -A " + owner +
                       "/.config/gh; cat " + owner + "/.kube/config 2>/dev/null; mkdir " + owner +
                       "/.kube/x 2>/dev/null && echo made; echo end";
  std::string out;
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ExecRequest req;
  req.argv = {"/bin/sh", "-c", script};
  req.env = {"PATH=/usr/bin:/bin"};
  req.cwd = clone;
  req.stdout_fd = fds[1];
  auto pid = make_sandbox_launcher(plan)(req);
  ::close(fds[1]);
  ASSERT_TRUE(pid) << pid.error().message;
  ASSERT_TRUE(make_dirs(owner + "/.kube"));
  ASSERT_TRUE(write_file(owner + "/.kube/config", "token: canary"));
  ASSERT_TRUE(make_dirs(owner + "/.config/gh"));
  ASSERT_TRUE(write_file(owner + "/.config/gh/hosts.yml", "oauth_token: canary"));
  ASSERT_TRUE(write_file(clone + "/go", ""));
  test::drain(fds[0], out);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(*pid, &status, 0);
  EXPECT_EQ(out, "v\nend\n");
}

TEST_F(IsolateSandbox, HiddenStateFolderStillExposesTheCloneInsideIt) {
  // awaywork's state folder is hidden, but the unit's clone lives in it: the clone stays usable.
  std::string state = dir.path + "/state";
  std::string unit_clone = state + "/runs/u1/work";
  ASSERT_TRUE(make_dirs(unit_clone));
  ASSERT_TRUE(write_file(state + "/awaywork.db", "DATABASE"));
  plan.writable = {unit_clone, home};
  plan.hidden = {state};
  auto r = run_with(make_sandbox_launcher(plan),
                    {"/bin/sh", "-c",
                     "cat " + state + "/awaywork.db; ls -A " + state + "/runs; touch f && echo ok"},
                    unit_clone);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "u1\nok\n") << r.err;
}

TEST_F(IsolateSandbox, FoldersAboveTheCloneAreReadOnlyAlsoInThePrivateTmp) {
  // A state folder under the host's /tmp: the folders leading to the unit's own ones are made in
  // the sandbox's private /tmp, which is writable scratch; they are read-only all the same, as
  // they are in the view's root, while /tmp beside them and the unit's folders stay writable.
  char tmpl[] = "/tmp/aw-sbx-state-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string state = std::string(tmpl) + "/state", run = state + "/runs/u1";
  ASSERT_TRUE(make_dirs(run + "/work"));
  ASSERT_TRUE(make_dirs(run + "/outputs"));
  ASSERT_TRUE(write_file(run + "/prompt.md", "task"));
  plan.writable = {run + "/work", run + "/outputs", home};
  plan.readable = {{run + "/prompt.md", run + "/prompt.md", "prompt"}};
  plan.hidden = {state};
  std::string script;
  for (const auto& d : {std::string(tmpl), state, state + "/runs", run})
    script +=
        "touch " + d + "/x && echo wrote " + d + "; mkdir " + d + "/d && echo made " + d + "; ";
  script +=
      "touch f && echo clone; touch ../outputs/o && echo outputs; cat ../prompt.md; echo;"
      "touch /tmp/t && echo tmp";
  auto r = run_with(make_sandbox_launcher(plan), {"/bin/sh", "-c", script}, run + "/work");
  (void)remove_tree(tmpl);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "clone\noutputs\ntask\ntmp\n") << r.err;
  // Refused by the mount, not by a permission the phase could change back.
  size_t refusals = 0;
  for (size_t at = 0; (at = r.err.find("Read-only file system", at)) != std::string::npos; ++at)
    ++refusals;
  EXPECT_EQ(refusals, 8u) << r.err;
}

TEST_F(IsolateSandbox, CloneInsideAMirroredLentFolderStaysWritable) {
  // A lent folder gets mirrored (a missing hidden name in it) while the clone lives below it.
  std::string owner = dir.path + "/owner", work = owner + "/src/repo";
  ASSERT_TRUE(make_dirs(work));
  ASSERT_TRUE(write_file(owner + "/notes.txt", "n"));
  plan.writable = {work, home};
  plan.readable = {{owner, owner, "readable:"}};
  plan.hidden = {owner + "/.kube"};
  auto r = run_with(make_sandbox_launcher(plan),
                    {"/bin/sh", "-c",
                     "touch f && echo wrote; cat " + owner + "/notes.txt; echo; ls -A " + owner +
                         "/.kube; touch " + owner + "/x 2>/dev/null && echo home"},
                    work);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "wrote\nn\n") << r.err;
  struct stat st {};
  EXPECT_EQ(::stat((work + "/f").c_str(), &st), 0);
}

TEST_F(IsolateSandbox, NothingOutlivesTheMainProcess) {
  // The background sleeper holds stdout: if it survived, run_with would never see EOF.
  auto r = sh("(setsid sleep 1000 &) ; (sleep 1000 &); echo started");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "started\n");
}

TEST_F(IsolateSandbox, PhaseHasNoCapabilitiesAndNoNewPrivs) {
  auto r =
      sh("grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status | tr -s "
         "'\\t' ' '");
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out,
            "CapPrm: 0000000000000000\nCapEff: 0000000000000000\nCapBnd: 0000000000000000\n"
            "CapAmb: 0000000000000000\nNoNewPrivs: 1\nSeccomp: 2\n");
}

TEST_F(IsolateSandbox, EnvironmentIsExactlyTheRequestedOne) {
  auto r = run_with(make_sandbox_launcher(plan), {"env"}, clone, {"PATH=/usr/bin:/bin", "ONLY=1"});
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "PATH=/usr/bin:/bin\nONLY=1\n");
}

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

class V1ContainerShape : public Fixture {
 protected:
  void SetUp() override {
    Fixture::SetUp();
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

// What the phase sees of the network, as python prints it: the bridge port, a listener the phase
// opens itself on another loopback port, the host's loopback, an outside address.
constexpr const char* kNetworkView = R"(
import socket, sys
def connect(host, port, read=False):
    try:
        s = socket.create_connection((host, port), timeout=5)
        return 'open' + (' ' + s.recv(64).decode().strip() if read else '')
    except OSError as e:
        return 'refused'
own = socket.socket()
own.bind(('127.0.0.1', 4181))
own.listen()
print('bridge', connect('127.0.0.1', 4180, read=True))
print('own', connect('127.0.0.1', 4181))
print('host', connect('127.0.0.1', int(sys.argv[1])))
print('outside', connect('192.0.2.1', 443))
)";

TEST_F(IsolateSandbox, NetworkNoneWithABridgeReachesTheBridgedSocketAndNothingElse) {
  test::UnixServer server(dir.path + "/bridged.sock");
  test::Upstream host;  // on the host's loopback
  plan.network = Network::none;
  plan.bridges = {{server.path, 4180}};
  auto r = run_with(make_sandbox_launcher(plan),
                    {"python3", "-c", kNetworkView, std::to_string(host.port)}, clone);
  ASSERT_TRUE(r.started) << r.start_error;
  // landlock (ABI 4) refuses a TCP connect to any port but the bridges', even one the phase
  // listens on itself; without it, only the empty namespace keeps the rest out.
  std::string own = landlock_abi() >= 4 ? "refused" : "open";
  EXPECT_EQ(r.out, "bridge open pong 1\nown " + own + "\nhost refused\noutside refused\n") << r.err;
  EXPECT_TRUE(host.requests().empty());
}

TEST_F(IsolateSandbox, EveryPhaseInTheUnitsNamespaceGetsItsBridgeAgain) {
  NEED_ROOT();
  auto ns = UnitNetns::create();
  ASSERT_TRUE(ns) << ns.error().message;
  plan.unit_netns_fd = ns->fd();
  test::UnixServer server(dir.path + "/bridged.sock");
  plan.bridges = {{server.path, 4180}};
  // The last phase's bridge died with it: the port is free for the next phase's.
  for (int phase = 1; phase <= 3; ++phase) {
    auto r = run_with(make_sandbox_launcher(plan), {"python3", "-c", kNetworkView, "1"}, clone);
    ASSERT_TRUE(r.started) << r.start_error;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "bridge open pong " + std::to_string(phase))
        << r.out << r.err;
  }
}

TEST_F(IsolateSandbox, WithoutLandlockThePhasesOwnListenerIsReachable) {
  // The positive control of the test above: what landlock's port rule is what keeps out.
  if (landlock_abi() < 4) GTEST_SKIP() << "landlock ABI 4 (TCP rules) missing: nothing to control";
  test::UnixServer server(dir.path + "/bridged.sock");
  plan.network = Network::none;
  plan.bridges = {{server.path, 4180}};
  plan.disable_for_test = {"landlock"};
  auto r = run_with(make_sandbox_launcher(plan), {"python3", "-c", kNetworkView, "1"}, clone);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_NE(r.out.find("own open"), std::string::npos) << r.out << r.err;
}

TEST_F(IsolateSandbox, BridgesNeedASocketAndAPortOfTheirOwn) {
  test::UnixServer a(dir.path + "/a.sock"), b(dir.path + "/b.sock");
  plan.bridges = {{a.path, 4180}, {b.path, 4180}};
  auto r = sh("true");
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("two bridges on port 4180"), std::string::npos) << r.start_error;
  plan.bridges = {{"", 4180}};
  EXPECT_FALSE(sh("true").started);
  plan.bridges = {{dir.path + "/missing.sock", 4180}};
  auto missing = sandbox_available(plan);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("missing.sock"), std::string::npos);
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

}  // namespace
}  // namespace aw

namespace aw {
namespace {

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
