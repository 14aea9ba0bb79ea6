// The leak suite run inside the sandbox exactly as an agent would be, against canaries planted on
// the host; and the mutation tests: each protection turned off alone (or with the second layer
// that also covers it) must make its probe report LEAK, so that no probe passes by construction.
#include <arpa/inet.h>
#include <dirent.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <cstddef>
#include <map>
#include <set>
#include <sstream>

#include "harness.h"
#include "isolate/probe/probe_host.h"
#include "isolate/probe/probe_report.h"
#include "isolate/probe/probes.h"
#include "isolate/sandbox/view.h"
#include "proxy/egress_proxy.h"

namespace aw {
namespace {

using test::TempDir;

int listen_unix(const std::string& path) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  socklen_t len = sizeof a;
  if (path[0] == '@') {  // abstract
    std::memcpy(a.sun_path + 1, path.data() + 1, path.size() - 1);
    len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
  } else {
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    ::unlink(path.c_str());
  }
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(s, 16) != 0) return -1;
  ::chmod(path.c_str(), 0777);
  return s;
}

// Listen on ip:0; returns "ip:port".
std::string listen_tcp(const std::string& ip, std::vector<int>& fds) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  socklen_t len = sizeof a;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 16) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return "";
  fds.push_back(s);
  return fmt::format("{}:{}", ip, ntohs(a.sin_port));
}

std::string host_ip() {
  ifaddrs* list = nullptr;
  std::string ip;
  if (::getifaddrs(&list) != 0) return ip;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || std::string(i->ifa_name) == "lo")
      continue;
    char buf[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    ip = buf;
    break;
  }
  ::freeifaddrs(list);
  return ip;
}

// The owner's machine as the probes must not find it: secrets, awaywork's own files, sockets,
// listeners, a process with a marker in its environment, a key in the session keyring.
struct World {
  TempDir dir;
  std::string owner = dir.path + "/owner", clone = dir.path + "/clone", home = dir.path + "/home";
  std::string state = dir.path + "/state", source = dir.path + "/source";
  std::string run_dir = "/run/aw-sbx-test-" + std::to_string(::getpid());
  std::string tmp_dir = "/tmp/aw-sbx-test-" + std::to_string(::getpid());
  // Another user's home, open to everyone; a file only root may read, in a tree the view binds.
  std::string other_home = "/home/aw-sbx-other-" + std::to_string(::getpid());
  std::string root_only = "/etc/aw-sbx-rootonly-" + std::to_string(::getpid());
  ProbeTargets t;
  std::vector<int> fds;
  pid_t marker_pid = -1;
  std::string marker = fmt::format("aw-marker-{}-{}", ::getpid(), ::time(nullptr));

  World() {
    for (const auto& d : {owner + "/.ssh", owner + "/projects", owner + "/.config/awaywork", clone,
                          home, state, source, run_dir + "/user", tmp_dir})
      EXPECT_TRUE(make_dirs(d, 0755));
    auto plant = [&](const std::string& name, const std::string& path) {
      EXPECT_TRUE(write_file(path, "CANARY " + name, 0644));
      t.secrets.emplace_back(name, path);
    };
    plant("hidden.ssh", owner + "/.ssh/id_canary");
    plant("hidden.netrc", owner + "/.netrc");
    plant("hidden.env_file", owner + "/.config/awaywork/env");
    plant("hidden.database", state + "/awaywork.db");
    plant("hidden.secrets", state + "/secrets.enc");
    // The owner's home outside every hidden path: what no agent needs and every owner minds.
    for (const auto& d : {owner + "/notes", owner + "/.mozilla/firefox/x1.default",
                          owner + "/.config/other-tool", other_home})
      EXPECT_TRUE(make_dirs(d, 0755));
    plant("view.home_notes", owner + "/notes/plans.md");
    plant("view.browser_cookies", owner + "/.mozilla/firefox/x1.default/cookies.sqlite");
    plant("view.other_tool_login", owner + "/.config/other-tool/login.json");
    plant("view.other_home", other_home + "/diary.txt");
    EXPECT_EQ(::chown(other_home.c_str(), 4242, 4242), 0);
    EXPECT_EQ(::chown((other_home + "/diary.txt").c_str(), 4242, 4242), 0);
    plant("rootonly.planted", root_only);
    EXPECT_EQ(::chmod(root_only.c_str(), 0600), 0);
    t.secrets.emplace_back("rootonly.shadow", "/etc/shadow");
    t.writes = {{"write.home", owner + "/projects"},
                {"write.etc", "/etc"},
                {"write.usr_local_bin", "/usr/local/bin"},
                {"write.source_repo", source}};
    auto sock = [&](const std::string& name, const std::string& path) {
      int s = listen_unix(path);
      EXPECT_GE(s, 0) << path;
      fds.push_back(s);
      t.sockets.emplace_back(name, path);
    };
    sock("socket.ssh_agent", tmp_dir + "/agent.1");
    sock("socket.docker", run_dir + "/docker.sock");
    sock("socket.dbus_session", run_dir + "/user/bus");
    sock("socket.abstract", fmt::format("@aw-sbx-test-{}", ::getpid()));
    t.tcp.emplace_back("net.host_loopback", listen_tcp("127.0.0.1", fds));
    if (auto ip = host_ip(); !ip.empty()) t.tcp.emplace_back("net.egress", listen_tcp(ip, fds));
    t.proc_marker = marker;
    marker_pid = ::fork();
    if (marker_pid == 0) {
      // An owner's process with the marker in its environment and on its command line (the
      // shell stays, as it has a command after sleep).
      ::setpgid(0, 0);
      std::string env = "AW_SECRET=" + marker, script = "sleep 1000; : " + marker;
      char* envp[] = {env.data(), nullptr};
      const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
      ::execve(argv[0], const_cast<char**>(argv), envp);
      ::_exit(127);
    }
    // Wait for the exec, or a probe would see our own environment in the child.
    for (int i = 0; i < 200; ++i) {
      auto env = read_file(fmt::format("/proc/{}/cmdline", marker_pid), 1 << 16);
      if (env && env->find(marker) != std::string::npos) break;
      ::usleep(5000);
    }
    // A key in a session keyring of our own, which the phase inherits.
    ::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr);
    t.keyring_key = marker;
    EXPECT_GE(
        ::syscall(SYS_add_key, "user", marker.c_str(), "KEYCANARY", 9, KEY_SPEC_SESSION_KEYRING),
        0);
    ::syscall(
        SYS_keyctl, KEYCTL_SETPERM,
        ::syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", marker.c_str(), 0),
        0x3f3f3f3f);
    t.sys_file = "/sys/kernel/mm/transparent_hugepage/enabled";
    t.sudo = true;
    EXPECT_TRUE(write_file(clone + "/targets", "", 0644));
  }
  ~World() {
    if (marker_pid > 0) {
      ::kill(-marker_pid, SIGKILL);
      ::waitpid(marker_pid, nullptr, 0);
    }
    for (int fd : fds) ::close(fd);
    (void)remove_tree(run_dir);
    (void)remove_tree(tmp_dir);
    (void)remove_tree(other_home);
    ::unlink(root_only.c_str());
  }

  SandboxPlan plan() const {
    SandboxPlan p;
    p.writable = {clone, home};
    p.hidden = {owner + "/.ssh", owner + "/.netrc", owner + "/.config/awaywork",
                state,           owner + "/.kube",  owner + "/.config/gh"};
    p.owner_home = owner;
    p.root_only = sandbox::root_only_files(::geteuid() == 0);
    p.limits = Limits{128ull << 20, 64, 1.0};
    p.apply_limits = ::geteuid() == 0;
    // The probe program is lent read-only, as a unit lends its agent: a build tree under the
    // host's /tmp is invisible behind the sandbox's private /tmp.
    p.readable.push_back({AW_PROBE_INSIDE, AW_PROBE_INSIDE, "program"});
    return p;
  }

  // Run the suite through the launcher from a child that owns a terminal (so a phase that kept
  // the caller's session could reach it), optionally as another user. Returns probe -> leaked.
  std::map<std::string, bool> probe(const SandboxPlan& plan, ProbeTargets targets, uid_t as = 0,
                                    std::string* raw = nullptr) {
    EXPECT_TRUE(write_file(clone + "/targets", format_probe_targets(targets), 0644));
    int res[2];
    EXPECT_EQ(::pipe(res), 0);
    pid_t c = ::fork();
    if (c == 0) {
      ::close(res[0]);
      ::setsid();
      int master = ::posix_openpt(O_RDWR);
      ::grantpt(master);
      ::unlockpt(master);
      int slave = ::open(::ptsname(master), O_RDWR);  // our controlling terminal now
      if (as != 0) {
        gid_t g = 65534;
        if (::setgroups(0, nullptr) != 0 || ::setresgid(g, g, g) != 0 ||
            ::setresuid(as, as, as) != 0)
          ::_exit(3);
      }
      auto launch = make_sandbox_launcher(plan);
      ExecRequest req;
      int out[2];
      if (::pipe(out) != 0) ::_exit(4);
      req.argv = {AW_PROBE_INSIDE, clone + "/targets"};
      // LeakSanitizer (AW_SANITIZE builds) needs ptrace at exit, which the sandbox refuses.
      req.env = {"PATH=/usr/bin:/bin", "ASAN_OPTIONS=detect_leaks=0"};
      req.cwd = clone;
      req.stdin_fd = slave;
      req.stdout_fd = out[1];
      req.stderr_fd = out[1];
      auto pid = launch(req);
      ::close(out[1]);
      std::string text;
      if (!pid) text = "START ERROR " + pid.error().message + "\n";
      test::drain(out[0], text);
      if (pid) ::waitpid(*pid, nullptr, 0);
      (void)!::write(res[1], text.data(), text.size());
      ::_exit(0);
    }
    ::close(res[1]);
    std::string text;
    test::drain(res[0], text);
    ::close(res[0]);
    ::waitpid(c, nullptr, 0);
    (void)sweep_sandbox_cgroups();
    if (raw) *raw = text;
    std::map<std::string, bool> leaked;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("ok ", 0) == 0)
        leaked[line.substr(3)] = false;
      else if (line.rfind("LEAK ", 0) == 0)
        leaked[line.substr(5, line.find(':') - 5)] = true;
      else
        ADD_FAILURE() << "unexpected probe output: " << line;
    }
    return leaked;
  }

  ProbeTargets full() const {
    ProbeTargets x = t;
    x.fork_bomb = 200;
    x.memory_hog = 512ull << 20;
    return x;
  }
};

// Host pids whose command line contains marker.
std::vector<pid_t> pids_with(const std::string& marker) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  while (dirent* e = d ? ::readdir(d) : nullptr) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    auto text = read_file(fmt::format("/proc/{}/cmdline", e->d_name), 1 << 16);
    if (text && text->find(marker) != std::string::npos) out.push_back(std::atoi(e->d_name));
  }
  if (d) ::closedir(d);
  return out;
}

std::set<std::string> with(std::set<std::string> s, const std::string& more) {
  s.insert(more);
  return s;
}

std::set<std::string> leaks(const std::map<std::string, bool>& m) {
  std::set<std::string> out;
  for (const auto& [n, l] : m)
    if (l) out.insert(n);
  return out;
}

#define NEED_ROOT()                                                  \
  do {                                                               \
    if (::geteuid() != 0) {                                          \
      if (test::ci()) FAIL() << "needs root (CI=true)";              \
      GTEST_SKIP() << "needs root: plants canaries in /run, limits"; \
    }                                                                \
  } while (0)

TEST(IsolateProbe, TargetsRoundTripThroughTheirTextForm) {
  World w;
  auto back = parse_probe_targets(format_probe_targets(w.full()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(format_probe_targets(*back), format_probe_targets(w.full()));
  EXPECT_FALSE(parse_probe_targets("nonsense\n"));
}

TEST(IsolateProbe, EveryProbeIsOkInTheFullSandboxAsRoot) {
  NEED_ROOT();
  World w;
  std::string raw;
  auto r = w.probe(w.plan(), w.full(), 0, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_GE(r.size(), 25u) << raw;  // every probe ran
}

TEST(IsolateProbe, EveryProbeIsOkInTheFullSandboxAsAnUnprivilegedUser) {
  NEED_ROOT();  // to plant canaries and switch to nobody; the sandbox itself runs unprivileged
  World w;
  ASSERT_EQ(::chmod(w.dir.path.c_str(), 0755), 0);
  for (const auto& d : {w.clone, w.home}) ASSERT_EQ(::chown(d.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown((w.clone + "/targets").c_str(), 65534, 65534), 0);
  SandboxPlan plan = w.plan();
  plan.apply_limits = false;  // nobody has no cgroup to limit with
  std::string raw;
  auto r = w.probe(plan, w.t, 65534, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_GE(r.size(), 20u) << raw;
}

// Positive controls: with exactly these protections off, exactly these probes must find their
// target. Where two layers cover the same thing, each layer alone is shown to hold, then both off.
struct Mutation {
  std::set<std::string> off;
  std::set<std::string> must_leak;
};

TEST(IsolateProbe, EachProtectionTurnedOffMakesItsProbeLeak) {
  NEED_ROOT();
  World w;
  // The home and the source repository are not in the view at all; /etc and /usr/local are,
  // read-only.
  const std::set<std::string> writes = {"write.etc", "write.usr_local_bin"};
  const std::set<std::string> hidden = {"hidden.ssh", "hidden.netrc", "hidden.env_file",
                                        "hidden.database", "hidden.secrets"};
  const std::set<std::string> view = {"view.home_notes", "view.browser_cookies",
                                      "view.other_tool_login", "view.other_home"};
  std::set<std::string> old_view_writes = {"write.home", "write.source_repo", "write.sys"};
  old_view_writes.insert(writes.begin(), writes.end());
  old_view_writes.insert(view.begin(), view.end());
  std::set<std::string> net = {"net.host_loopback"};
  if (w.t.tcp.size() > 1) net.insert("net.egress");
  std::set<std::string> view_and_hidden = view;
  view_and_hidden.insert(hidden.begin(), hidden.end());
  const std::vector<Mutation> table = {
      {{"hidden"}, {}},  // the view holds none of these folders: nothing to mask
      {{"view"}, view},  // the old view: the whole host, the hidden paths masked over it
      {{"view", "hidden"}, view_and_hidden},
      {{"rootonly"}, {"rootonly.planted", "rootonly.shadow"}},
      {{"view", "readonly", "landlock"}, old_view_writes},
      {{"pidns"}, {"proc.owner_processes"}},
      {{"readonly"}, {}},  // landlock alone still refuses every write
      {{"landlock"}, {}},  // the read-only mounts alone still refuse every write
      {{"readonly", "landlock"}, writes},
      {{"netns"}, {}},  // landlock alone still refuses TCP connect and abstract sockets
      {{"netns", "landlock"}, with(net, "socket.abstract")},
      {{"tmp"}, {"socket.ssh_agent"}},
      {{"run"}, {"socket.docker", "socket.dbus_session"}},
      {{"seccomp"},
       {"ptrace", "io_uring", "tiocsti", "socket.vsock", "userns.nested", "keyring.owner"}},
      {{"setsid"}, {"tty.controlling"}},
      {{"nnp"}, {"caps.none"}},
      {{"limits"}, {"limits.pids", "limits.memory"}},
  };
  for (const auto& m : table) {
    SandboxPlan plan = w.plan();
    plan.disable_for_test = m.off;
    std::string raw;
    auto r = w.probe(plan, w.full(), 0, &raw);
    std::string label;
    for (const auto& o : m.off) label += o + " ";
    EXPECT_EQ(leaks(r), m.must_leak) << "with " << label << "off:\n" << raw;
  }
}

// Which probes can find their target on this machine at all (no sandbox): the suite's own
// positive control, so that a probe that cannot fail here is noticed.
TEST(IsolateProbe, WithoutAnySandboxEveryProbeFindsItsTarget) {
  NEED_ROOT();
  World w;
  std::ostringstream out;
  ProbeTargets t = w.full();
  t.fork_bomb = 0;  // unlimited here: shown by the mutation test under limits instead
  t.memory_hog = 0;
  auto results = run_probe_suite(t);
  std::set<std::string> ok;
  for (const auto& r : results)
    if (!r.leaked) ok.insert(r.name + ": " + r.detail);
  // tty.controlling needs a terminal (the mutation test provides one); caps.none: root outside
  // holds capabilities only when the test runs with them. The sandboxed sudo can never succeed
  // (its one-uid map): this is where the sudo probe shows it can find sudo working.
  for (auto it = ok.begin(); it != ok.end();)
    it = it->rfind("tty.controlling", 0) == 0 ? ok.erase(it) : ++it;
  EXPECT_EQ(ok, std::set<std::string>{});
}

// network: allowlist, end to end: the phase reaches an allowed host only through the bridge and
// the egress proxy; another host, fronting by SNI, and the host's loopback stay out of reach.
// Positive controls: the same probes leak when the proxy allows the other host / skips the SNI
// check.
TEST(IsolateProbe, AllowlistReachesOnlyAllowedHostsThroughTheProxy) {
  NEED_ROOT();
  World w;
  test::Upstream up;
  ProbeTargets t = w.t;
  t.http_allowed = {{"net.allowed_host", fmt::format("allowed.test:{}", up.port)}};
  t.http_denied = {{"net.denied_host", fmt::format("other.test:{}", up.port)}};
  t.fronting = {{"net.fronting", fmt::format("allowed.test:{} other.test", up.port)}};
  struct Case {
    std::vector<std::string> allow;
    bool check_sni;
    std::set<std::string> must_leak;
  };
  for (const auto& c : {Case{{"allowed.test"}, true, {}},
                        Case{{"allowed.test", "other.test"}, true, {"net.denied_host"}},
                        Case{{"allowed.test"}, false, {"net.fronting"}}}) {
    EgressProxyOptions o;
    o.socket_path = w.dir.path + "/proxy.sock";
    o.allow = c.allow;
    o.static_hosts = {{"allowed.test", "127.0.0.1"}, {"other.test", "127.0.0.1"}};
    o.allow_private_upstream = true;  // the test's upstream is on the host's loopback
    o.check_sni = c.check_sni;
    auto proxy = EgressProxy::start(o);
    ASSERT_TRUE(proxy) << proxy.error().message;
    SandboxPlan plan = w.plan();
    plan.network = Network::allowlist;
    plan.proxy_socket = o.socket_path;
    std::string raw;
    auto r = w.probe(plan, t, 0, &raw);
    EXPECT_EQ(leaks(r), c.must_leak) << raw;
    EXPECT_EQ(r.count("net.allowed_host"), 1u) << raw;
  }
}

// What `awaywork probe` runs: the targets ProbeHost sets up, all ok inside, and found with the
// matching protection off.
TEST(IsolateProbe, ProbeHostTargetsAreOkInsideAndFoundWithTheProtectionOff) {
  NEED_ROOT();
  World w;
  SandboxPlan plan = w.plan();
  auto host =
      ProbeHost::start(plan, {w.owner + "/projects", w.source, w.owner + "/.config/awaywork/env",
                              w.state + "/awaywork.db", w.state + "/secrets.enc"});
  ASSERT_TRUE(host) << host.error().message;
  const ProbeTargets& t = (*host)->targets();
  EXPECT_FALSE(t.proc_marker.empty());
  EXPECT_FALSE(t.keyring_key.empty());
  std::string raw;
  auto r = w.probe(plan, t, 0, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_EQ(r.count("hidden.database"), 1u) << raw;
  for (const auto& [off, leak] : std::vector<std::pair<std::set<std::string>, std::string>>{
           {{"netns", "landlock"}, "net.host_loopback"},
           {{"pidns"}, "proc.owner_processes"},
           {{"seccomp"}, "keyring.owner"},
           {{"hidden", "view"}, "hidden.database"}}) {
    SandboxPlan p = plan;
    p.disable_for_test = off;
    auto m = w.probe(p, t, 0, &raw);
    EXPECT_TRUE(m[leak]) << leak << "\n" << raw;
  }
}

// The folders above a unit's own ones (the state folder, runs/, its run folder) are in the view
// only as the way to them, read-only (docs/sandbox.md). With the state folder under the host's
// /tmp they are made in the sandbox's private /tmp, which landlock lets the phase write to: the
// read-only mounts are what refuse them, as the positive control with those off shows.
TEST(IsolateProbe, FoldersAboveTheRunFolderRefuseWritesAlsoUnderTmp) {
  NEED_ROOT();
  World w;
  struct TmpState {
    std::string path;
    TmpState() {
      char tmpl[] = "/tmp/aw-sbx-state-XXXXXX";
      path = ::mkdtemp(tmpl);
    }
    ~TmpState() { (void)remove_tree(path); }
  } tmp;
  std::string state = tmp.path + "/state", run = state + "/runs/u1";
  for (const auto& d : {run + "/work", run + "/home", run + "/tmp", state + "/runs/u0"})
    ASSERT_TRUE(make_dirs(d, 0755));
  SandboxPlan plan = w.plan();
  plan.writable = {w.clone, run + "/work", run + "/home", run + "/tmp"};
  plan.hidden.push_back(state);
  ProbeTargets t;
  t.syscalls = false;
  t.writes = {{"write.state", state}, {"write.runs", state + "/runs"}, {"write.run_folder", run}};
  std::string raw;
  auto r = w.probe(plan, t, 0, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_EQ(r.size(), 3u) << raw;
  plan.disable_for_test = {"readonly"};
  auto off = w.probe(plan, t, 0, &raw);
  EXPECT_EQ(leaks(off), (std::set<std::string>{"write.state", "write.runs", "write.run_folder"}))
      << raw;
}

TEST(IsolateProbe, JsonOutputIsOneArrayWithNameOkAndDetail) {
  ProbeTargets t;
  t.syscalls = false;
  t.secrets = {{"hidden.none", "/nonexistent/aw"}};
  std::ostringstream out;
  EXPECT_EQ(run_probes(t, true, out), 0);
  EXPECT_EQ(out.str(),
            "[{\"name\":\"hidden.none\",\"ok\":true,\"detail\":\"No such file or directory\"}]\n");
}

TEST(IsolateSandbox, LeftoverProcessesDieOnlyBecauseOfThePidNamespace) {
  // With the pid namespace a background process dies with the phase; without it, it survives:
  // the check the runner relies on is the namespace, not luck.
  TempDir d;
  std::string clone = d.path + "/clone";
  ASSERT_TRUE(make_dirs(clone));
  for (bool pidns : {true, false}) {
    SandboxPlan plan;
    plan.writable = {clone};
    plan.apply_limits = false;
    if (!pidns) plan.disable_for_test = {"pidns"};
    std::string marker = fmt::format("aw-leftover-{}-{}", ::getpid(), pidns);
    auto r = test::run_with(
        make_sandbox_launcher(plan),
        {"/bin/sh", "-c", "sh -c 'sleep 1000' " + marker + " </dev/null >/dev/null 2>&1 & echo ok"},
        clone);
    ASSERT_TRUE(r.started) << r.start_error;
    // With the namespace, init's exit has already killed and reaped everything in it; without,
    // the sleeper may still be exec'ing: give it up to a second to show up.
    std::vector<pid_t> found = pids_with(marker);
    for (int i = 0; i < 50 && found.empty() && !pidns; ++i) {
      ::usleep(20000);
      found = pids_with(marker);
    }
    EXPECT_EQ(found.empty(), pidns);
    for (pid_t p : found) ::kill(p, SIGKILL);
  }
}

TEST(IsolateSandbox, ThePhaseDiesWithTheProcessThatLaunchedIt) {
  // die-with-parent: if the runner's keeper is killed, the namespace goes with it (and, as the
  // positive control, without the protection the phase survives the keeper).
  for (bool protect : {true, false}) {
    TempDir d;
    std::string clone = d.path + "/clone";
    ASSERT_TRUE(make_dirs(clone));
    SandboxPlan plan;
    plan.writable = {clone};
    plan.apply_limits = false;
    if (!protect) plan.disable_for_test = {"diewithparent"};
    std::string marker = fmt::format("aw-orphan-{}-{}", ::getpid(), protect);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t keeper = ::fork();
    if (keeper == 0) {
      ExecRequest req;
      req.argv = {"/bin/sh", "-c", "sleep 1000; : " + marker};
      req.env = {"PATH=/usr/bin:/bin"};
      req.cwd = clone;
      auto pid = make_sandbox_launcher(plan)(req);
      (void)!::write(ready[1], pid ? "Y" : "N", 1);
      ::pause();
      ::_exit(0);
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    ASSERT_EQ(c, 'Y');
    for (int i = 0; i < 200 && pids_with(marker).empty(); ++i) ::usleep(5000);  // exec of sh
    ASSERT_FALSE(pids_with(marker).empty());
    ::kill(keeper, SIGKILL);
    ::waitpid(keeper, nullptr, 0);
    if (!protect) ::usleep(300000);  // long past when a death signal would have landed
    std::vector<pid_t> left = pids_with(marker);
    for (int i = 0; i < 250 && !left.empty() && protect; ++i) {  // SIGKILL delivery is asynchronous
      ::usleep(20000);
      left = pids_with(marker);
    }
    EXPECT_EQ(left.empty(), protect);
    // The orphaned init was reparented away from us: kill its namespace through it.
    for (pid_t p : left) ::kill(p, SIGKILL);
  }
}

// Issue 38, item 2: the probes' answer comes from inside the isolation, so it is read field by
// field: a field of the wrong type is an Error naming it, never a throw; a run that failed or an
// inside that did not answer is an Error too. No root needed.
TEST(ProbeReport, TheInsidesAnswerIsReadFieldByFieldAndAWrongTypeIsAnErrorNamingIt) {
  IsolatedResult r;
  r.sandbox_note = "sandboxed: network none";
  r.out = R"([{"name": "a", "ok": true}, {"name": "b", "ok": "yes", "detail": "x"}])";
  auto rep = read_probe_report("isolation none", {}, r);
  ASSERT_FALSE(rep);
  EXPECT_NE(rep.error().message.find(
                R"(the inside's answer: field "probes[1].ok": expected a boolean, got string)"),
            std::string::npos)
      << rep.error().message;
  r.out = R"([{"name": "a", "ok": true}, 7])";
  rep = read_probe_report("isolation none", {}, r);
  ASSERT_FALSE(rep);
  EXPECT_NE(rep.error().message.find(R"(field "probes[1]": expected an object, got number)"),
            std::string::npos)
      << rep.error().message;
  r.out = "not json";
  rep = read_probe_report("isolation none", {}, r);
  ASSERT_FALSE(rep);
  EXPECT_NE(rep.error().message.find("the inside did not answer"), std::string::npos);
  EXPECT_FALSE(read_probe_report("isolation none", {}, tl::make_unexpected(Error{"refused"})));
  r.out = R"([{"name": "a", "ok": true}, {"name": "b", "ok": false, "detail": "read it"}])";
  rep = read_probe_report("isolation none", {{"isolation", "none"}}, r, [](nlohmann::json& j) {
    j.push_back({{"name", "c"}, {"ok", false}, {"detail", "left"}});
  });
  ASSERT_TRUE(rep) << rep.error().message;
  EXPECT_EQ(rep->leaks, 2);
  ASSERT_EQ(rep->lines.size(), 3u);
  EXPECT_EQ(rep->lines[1].detail, "read it");
  EXPECT_EQ(rep->lines[2].name, "c");
  EXPECT_EQ(rep->sandbox_note, "sandboxed: network none");
  EXPECT_EQ(rep->header["isolation"], "none");
}

// The inside half's own errors (one function for `awaywork __probe-inside` and aw_probe_inside):
// exit 2 naming the caller, nothing on stdout. No root needed.
TEST(ProbeInside, AnUnreadableTargetsFileIsExit2NamingTheCaller) {
  std::ostringstream out, err;
  EXPECT_EQ(probe_inside("awaywork __probe-inside", true, "/nonexistent/probe-targets", out, err),
            2);
  EXPECT_EQ(err.str().rfind("awaywork __probe-inside: ", 0), 0u) << err.str();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace aw
