#include "isolate/probe/probe_host.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "base/argv.h"
#include "base/fs.h"

namespace aw {
namespace {

bool exists(const std::string& p) {
  struct stat st {};
  return !p.empty() && ::lstat(p.c_str(), &st) == 0;
}

// Listen on ip:0; "ip:port" or "" when it cannot.
std::string listen_tcp(const std::string& ip, std::vector<int>& fds) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  socklen_t len = sizeof a;
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 16) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (s >= 0) ::close(s);
    return "";
  }
  fds.push_back(s);
  return fmt::format("{}:{}", ip, ntohs(a.sin_port));
}

std::string host_address() {
  ifaddrs* list = nullptr;
  std::string ip;
  if (::getifaddrs(&list) != 0) return ip;
  for (ifaddrs* i = list; i && ip.empty(); i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || std::string(i->ifa_name) == "lo")
      continue;
    char buf[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    ip = buf;
  }
  ::freeifaddrs(list);
  return ip;
}

// Canaries where nothing of the home should be in the view: outside every hidden path, in a
// folder of the probe's own (removed afterwards), shaped as what owners keep there.
std::string plant_home_canaries(const std::string& home, ProbeTargets& t) {
  if (home.empty() || ::access(home.c_str(), W_OK) != 0) return "";
  std::string dir =
      fmt::format("{}/.awaywork-probe-canary-{}-{}", home, ::getpid(), ::time(nullptr));
  const std::pair<const char*, const char*> files[] = {
      {"view.home_notes", "notes/plans.md"},
      {"view.browser_cookies", ".mozilla/firefox/p1.default/cookies.sqlite"},
      {"view.other_tool_login", ".config/other-tool/login.json"}};
  for (const auto& [name, rel] : files) {
    std::string path = dir + "/" + rel;
    if (!make_dirs(path.substr(0, path.rfind('/')), 0700) ||
        !write_file(path, std::string("CANARY ") + name, 0600))
      continue;
    t.secrets.emplace_back(name, path);
  }
  return dir;
}

// Other users' homes that the owner can list (an open home): none of them is in the view.
void other_homes(const std::string& owner_home, const SandboxPlan& plan, ProbeTargets& t) {
  std::vector<std::string> homes = {"/root"};
  if (DIR* d = ::opendir("/home")) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') homes.push_back(std::string("/home/") + e->d_name);
    ::closedir(d);
  }
  for (const auto& h : homes) {
    bool lent = false;
    for (const auto& r : plan.readable) lent = lent || r.target.rfind(h + "/", 0) == 0;
    if (h == owner_home || lent) continue;
    if (DIR* d = ::opendir(h.c_str())) {
      int n = 0;
      while (::readdir(d)) ++n;
      ::closedir(d);
      if (n > 2) t.secrets.emplace_back("view.other_home:" + h, h);
    }
  }
}

}  // namespace

Result<std::unique_ptr<ProbeHost>> ProbeHost::start(const SandboxPlan& plan,
                                                    const ProbeHostOptions& o) {
  std::unique_ptr<ProbeHost> h(new ProbeHost());
  ProbeTargets& t = h->targets_;
  for (const auto& path : plan.hidden)
    if (exists(path)) t.secrets.emplace_back("hidden:" + path, path);
  if (exists(o.env_file)) t.secrets.emplace_back("hidden.env_file", o.env_file);
  if (exists(o.database)) t.secrets.emplace_back("hidden.database", o.database);
  if (exists(o.secrets)) t.secrets.emplace_back("hidden.secrets", o.secrets);
  if (exists(o.owner_home)) t.writes.emplace_back("write.home", o.owner_home);
  h->canary_dir_ = plant_home_canaries(o.owner_home, t);
  other_homes(o.owner_home, plan, t);
  for (const char* f : {"/etc/shadow", "/etc/gshadow", "/etc/sudoers"})
    if (exists(f)) t.secrets.emplace_back(std::string("rootonly:") + f, f);
  t.writes.emplace_back("write.etc", "/etc");
  if (exists("/usr/local/bin")) t.writes.emplace_back("write.usr_local_bin", "/usr/local/bin");
  if (exists(o.source_repo)) t.writes.emplace_back("write.source_repo", o.source_repo);
  if (const char* ssh = std::getenv("SSH_AUTH_SOCK"); ssh && exists(ssh))
    t.sockets.emplace_back("socket.ssh_agent", ssh);
  for (const char* docker : {"/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock"})
    if (exists(docker)) {
      t.sockets.emplace_back("socket.docker", docker);
      break;
    }
  std::string bus = fmt::format("/run/user/{}/bus", ::getuid());
  if (exists(bus)) t.sockets.emplace_back("socket.dbus_session", bus);
  if (auto lo = listen_tcp("127.0.0.1", h->fds_); !lo.empty())
    t.tcp.emplace_back("net.host_loopback", lo);
  if (plan.network != Network::host)
    if (auto ip = host_address(); !ip.empty())
      if (auto addr = listen_tcp(ip, h->fds_); !addr.empty())
        t.tcp.emplace_back("net.egress", addr);
  t.proc_marker = fmt::format("aw-probe-marker-{}-{}", ::getpid(), ::time(nullptr));
  CStrings argv({"/bin/sh", "-c", "sleep 3600; : " + t.proc_marker}),
      envp({"AW_PROBE_SECRET=" + t.proc_marker});
  h->marker_pid_ = ::fork();
  if (h->marker_pid_ == 0) {
    ::setpgid(0, 0);
    ::execve("/bin/sh", argv.get(), envp.get());
    ::_exit(127);
  }
  for (int i = 0; i < 200; ++i) {  // until the exec: before it, the child shows our own cmdline
    auto cmd = read_file(fmt::format("/proc/{}/cmdline", h->marker_pid_), 1 << 16);
    if (!cmd || cmd->find(t.proc_marker) != std::string::npos) break;
    ::usleep(5000);
  }
  // A key the phase would inherit through the session keyring.
  if (::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr) >= 0) {
    h->key_ =
        ::syscall(SYS_add_key, "user", t.proc_marker.c_str(), "probe", 5, KEY_SPEC_SESSION_KEYRING);
    if (h->key_ >= 0) t.keyring_key = t.proc_marker;
  }
  if (exists("/sys/kernel/mm/transparent_hugepage/enabled"))
    t.sys_file = "/sys/kernel/mm/transparent_hugepage/enabled";
  t.sudo = true;
  if (plan.apply_limits) {
    t.fork_bomb = plan.limits.pids * 2;
    t.memory_hog = plan.limits.memory_bytes * 2;
  }
  return h;
}

ProbeHost::~ProbeHost() {
  if (marker_pid_ > 0) {
    ::kill(-marker_pid_, SIGKILL);
    ::kill(marker_pid_, SIGKILL);
    ::waitpid(marker_pid_, nullptr, 0);
  }
  if (key_ >= 0) ::syscall(SYS_keyctl, KEYCTL_UNLINK, key_, KEY_SPEC_SESSION_KEYRING);
  for (int fd : fds_) ::close(fd);
  if (!canary_dir_.empty()) (void)remove_tree(canary_dir_);
}

}  // namespace aw
