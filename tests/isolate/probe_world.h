// What the leak suite's tests share: the owner's machine as the probes must not find it (World:
// canaries, sockets, listeners, a marked process, a keyring key), the suite run through the
// sandbox launcher, and the readers of its answer. Named namespace, inline: several test files of
// isolate_probe_test include it.
#pragma once

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
#include "isolate/probe/probes.h"
#include "isolate/sandbox/view.h"

#define NEED_ROOT()                                                  \
  do {                                                               \
    if (::geteuid() != 0) {                                          \
      if (test::ci()) FAIL() << "needs root (CI=true)";              \
      GTEST_SKIP() << "needs root: plants canaries in /run, limits"; \
    }                                                                \
  } while (0)

namespace aw::test {

inline int listen_unix(const std::string& path) {
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
inline std::string listen_tcp(const std::string& ip, std::vector<int>& fds) {
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

inline std::string host_ip() {
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
inline std::vector<pid_t> pids_with(const std::string& marker) {
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

inline std::set<std::string> with(std::set<std::string> s, const std::string& more) {
  s.insert(more);
  return s;
}

inline std::set<std::string> leaks(const std::map<std::string, bool>& m) {
  std::set<std::string> out;
  for (const auto& [n, l] : m)
    if (l) out.insert(n);
  return out;
}

}  // namespace aw::test
