// What a phase sees and can do inside the sandbox, the launcher called directly as the runner's
// keeper would call it: its namespaces and exit status, the filesystem view (read-only root,
// writable clone, home and private /tmp, hidden paths as masks), the init that reaps what outlives
// it, no capabilities, exactly its environment, and the network (none but its bridges).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>

#include "harness.h"
#include "isolate/sandbox/sandbox.h"
#include "sandbox_fixture.h"

namespace aw {
namespace {

using test::run_with;
using IsolateSandbox = test::SandboxFixture;

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

}  // namespace
}  // namespace aw
