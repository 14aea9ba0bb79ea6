// The probes. Each tries to reach one thing the sandbox must keep out of reach and reports what
// it got; none relies on the sandbox to tell it (no "am I sandboxed?" shortcut).
#include "isolate/probe/probes.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <sstream>

#include "base/argv.h"
#include "base/fs.h"
#include "base/json_escape.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

namespace aw {
namespace {

ProbeResult ok(std::string name, std::string why) {
  return {std::move(name), false, std::move(why)};
}
ProbeResult leak(std::string name, std::string what) {
  return {std::move(name), true, std::move(what)};
}
std::string err_text(int e) {
  return std::strerror(e);
}

ProbeResult probe_secret(const std::string& name, const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ok(name, err_text(errno));
  char buf[256];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n > 0) {
    ::close(fd);
    return leak(name, fmt::format("read {} bytes of {}", n, path));
  }
  DIR* d = ::fdopendir(fd);
  int entries = 0;
  while (d && ::readdir(d)) ++entries;
  if (d)
    ::closedir(d);
  else
    ::close(fd);
  if (entries > 2) return leak(name, fmt::format("listed {} entries of {}", entries - 2, path));
  return ok(name, "empty");
}

ProbeResult probe_write(const std::string& name, const std::string& dir) {
  std::string path = fmt::format("{}/.aw-probe-{}", dir, ::getpid());
  int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return ok(name, err_text(errno));
  ::close(fd);
  ::unlink(path.c_str());
  return leak(name, "created " + path);
}

ProbeResult probe_socket(const std::string& name, const std::string& path) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return ok(name, err_text(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  socklen_t len = sizeof addr;
  if (!path.empty() && path[0] == '@') {  // abstract: "@name" is "\0name", length-delimited
    size_t n = std::min(path.size() - 1, sizeof addr.sun_path - 1);
    std::memcpy(addr.sun_path + 1, path.data() + 1, n);
    len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  } else {
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  }
  int rc = ::connect(s, reinterpret_cast<sockaddr*>(&addr), len);
  int e = errno;
  ::close(s);
  return rc == 0 ? leak(name, "connected to " + path) : ok(name, err_text(e));
}

ProbeResult probe_tcp(const std::string& name, const std::string& where) {
  auto colon = where.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(std::atoi(where.c_str() + colon + 1)));
  if (colon == std::string::npos ||
      ::inet_pton(AF_INET, where.substr(0, colon).c_str(), &addr.sin_addr) != 1)
    return leak(name, "bad target " + where);  // a probe that cannot run must not pass
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s < 0) return ok(name, err_text(errno));
  int rc = ::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int e = errno;
  if (rc != 0 && e == EINPROGRESS) {
    pollfd p{s, POLLOUT, 0};
    rc = ::poll(&p, 1, 2000) == 1 ? 0 : -1;
    socklen_t len = sizeof e;
    e = ETIMEDOUT;
    if (rc == 0 && ::getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &len) == 0 && e != 0) rc = -1;
  }
  ::close(s);
  return rc == 0 ? leak(name, "connected to " + where) : ok(name, err_text(e));
}

ProbeResult probe_proc(const std::string& marker) {
  DIR* d = ::opendir("/proc");
  if (!d) return ok("proc.owner_processes", err_text(errno));
  std::string found;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    for (const char* f : {"environ", "cmdline"}) {
      auto text = read_file(fmt::format("/proc/{}/{}", e->d_name, f), 1 << 20);
      if (text && text->find(marker) != std::string::npos)
        found = fmt::format("/proc/{}/{}", e->d_name, f);
    }
  }
  ::closedir(d);
  return found.empty() ? ok("proc.owner_processes", "marker not visible")
                       : leak("proc.owner_processes", "read the marker in " + found);
}

ProbeResult probe_ptrace() {
  pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  long rc = ::ptrace(PTRACE_ATTACH, child, nullptr, nullptr);
  int e = errno;
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  return rc == 0 ? leak("ptrace", "attached to another process") : ok("ptrace", err_text(e));
}

ProbeResult probe_io_uring() {
  io_uring_params params{};
  long fd = ::syscall(__NR_io_uring_setup, 4, &params);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    return leak("io_uring", "io_uring_setup gave a ring");
  }
  return ok("io_uring", err_text(errno));
}

// Whether the phase has a controlling terminal at all (the owner's, without a new session).
ProbeResult probe_ctty() {
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return ok("tty.controlling", err_text(errno));
  ::close(fd);
  return leak("tty.controlling", "opened /dev/tty: the caller's terminal");
}

// TIOCSTI on a terminal of our own making: only a syscall filter stops this one.
ProbeResult probe_tiocsti() {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0)
    return leak("tiocsti", "no pty to test with: " + err_text(errno));
  std::string slave = ::ptsname(master);
  pid_t child = ::fork();
  if (child == 0) {
    ::setsid();
    int fd = ::open(slave.c_str(), O_RDWR);  // becomes our controlling terminal
    char c = 'x';
    ::_exit(fd >= 0 && ::ioctl(fd, TIOCSTI, &c) == 0 ? 1 : 0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(master);
  return WIFEXITED(status) && WEXITSTATUS(status) == 1 ? leak("tiocsti", "injected into a terminal")
                                                       : ok("tiocsti", "refused");
}

ProbeResult probe_vsock() {
  int s = ::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return ok("socket.vsock", err_text(errno));
  ::close(s);
  return leak("socket.vsock", "made an AF_VSOCK socket");
}

ProbeResult probe_userns() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(::unshare(CLONE_NEWUSER) == 0 ? 1 : 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 1
             ? leak("userns.nested", "made a user namespace")
             : ok("userns.nested", "refused");
}

ProbeResult probe_keyring(const std::string& desc) {
  long id = ::syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", desc.c_str(), 0);
  if (id < 0) return ok("keyring.owner", err_text(errno));
  char buf[128];
  long n = ::syscall(SYS_keyctl, KEYCTL_READ, id, buf, sizeof buf);
  return leak("keyring.owner", fmt::format("found key {} ({} bytes readable)", desc, n));
}

ProbeResult probe_sudo() {
  CStrings argv({"sudo", "-n", "true"});
  pid_t child = ::fork();
  if (child == 0) {
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    for (const char* p : {"/usr/bin/sudo", "/bin/sudo", "/usr/local/bin/sudo"})
      ::execv(p, argv.get());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return leak("sudo", "sudo -n true succeeded");
  return ok("sudo", fmt::format("sudo -n true: status {}", status));
}

ProbeResult probe_fork_bomb(int n) {
  std::vector<pid_t> kids;
  int e = 0;
  for (int i = 0; i < n; ++i) {
    pid_t p = ::fork();
    if (p == 0) {
      ::pause();
      ::_exit(0);
    }
    if (p < 0) {
      e = errno;
      break;
    }
    kids.push_back(p);
  }
  for (pid_t p : kids) ::kill(p, SIGKILL);
  for (pid_t p : kids) ::waitpid(p, nullptr, 0);
  if (static_cast<int>(kids.size()) >= n)
    return leak("limits.pids", fmt::format("started {} processes", n));
  return ok("limits.pids", fmt::format("stopped after {} processes: {}", kids.size(), err_text(e)));
}

ProbeResult probe_memory_hog(uint64_t bytes) {
  pid_t child = ::fork();
  if (child == 0) {
    char* p = static_cast<char*>(::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (p == MAP_FAILED) ::_exit(2);
    for (uint64_t i = 0; i < bytes; i += 4096) p[i] = 1;
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return leak("limits.memory", fmt::format("touched {} MiB", bytes >> 20));
  return ok("limits.memory", fmt::format("hog ended with status {}", status));
}

// Capabilities kept inside (a user namespace gives all of them until they are dropped).
ProbeResult probe_caps() {
  auto status = read_file("/proc/self/status", 1 << 16);
  if (!status) return leak("caps.none", "cannot read /proc/self/status: " + status.error().message);
  std::istringstream in(*status);
  std::string line, held;
  while (std::getline(in, line))
    for (const char* k : {"CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"})
      if (line.rfind(k, 0) == 0 &&
          line.find_first_not_of("0\t ", std::strlen(k)) != std::string::npos)
        held += line + " ";
  return held.empty() ? ok("caps.none", "no capabilities") : leak("caps.none", "holds " + held);
}

ProbeResult probe_sys(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ok("write.sys", err_text(errno));
  ::close(fd);  // opened for writing is enough: never change the host's setting
  return leak("write.sys", "opened " + path + " for writing");
}

// The proxy from HTTP_PROXY ("http://127.0.0.1:3128"), connected; -1 when there is none.
int connect_proxy(std::string* why) {
  const char* env = std::getenv("HTTP_PROXY");
  std::string url = env ? env : "";
  if (url.rfind("http://", 0) == 0) url = url.substr(7);
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.empty()) {
    *why = "no HTTP_PROXY";
    return -1;
  }
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  auto colon = url.rfind(':');
  a.sin_port = htons(static_cast<uint16_t>(std::atoi(url.c_str() + colon + 1)));
  ::inet_pton(AF_INET, url.substr(0, colon).c_str(), &a.sin_addr);
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    *why = "connect to proxy " + url + ": " + err_text(errno);
    ::close(s);
    return -1;
  }
  timeval tv{5, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return s;
}

// Send, then read until the end of a response head (the tunnel stays open after it).
std::string exchange_head(int s, const std::string& send) {
  (void)!::write(s, send.data(), send.size());
  std::string got;
  char c;
  while (got.size() < 8192 && got.find("\r\n\r\n") == std::string::npos && ::read(s, &c, 1) == 1)
    got += c;
  return got;
}

std::string send_and_read(int s, const std::string& send) {
  (void)!::write(s, send.data(), send.size());
  std::string got;
  char buf[4096];
  ssize_t n;
  while (got.size() < 65536 && (n = ::read(s, buf, sizeof buf)) > 0)
    got.append(buf, static_cast<size_t>(n));
  return got;
}

// GET through the proxy; the status line, or why there is none.
std::string http_get(const std::string& host_port, std::string* why) {
  int s = connect_proxy(why);
  if (s < 0) return "";
  std::string got =
      send_and_read(s, fmt::format("GET http://{}/probe?token=probe HTTP/1.1\r\nHost: {}\r\n"
                                   "Connection: close\r\n\r\n",
                                   host_port, host_port));
  ::close(s);
  *why = got.empty() ? "no answer" : got.substr(0, got.find("\r\n"));
  return got.substr(0, got.find("\r\n"));
}

ProbeResult probe_http_allowed(const std::string& name, const std::string& target) {
  std::string why, status = http_get(target, &why);
  if (status.find(" 200 ") != std::string::npos) return ok(name, status);
  return leak(name, "broken: an allowed host did not answer through the proxy: " + why);
}

ProbeResult probe_http_denied(const std::string& name, const std::string& target) {
  std::string why, status = http_get(target, &why);
  if (status.find(" 2") != std::string::npos)
    return leak(name, "reached " + target + ": " + status);
  return ok(name, why);
}

ProbeResult probe_fronting(const std::string& name, const std::string& target) {
  auto space = target.find(' ');
  std::string host_port = target.substr(0, space), sni = target.substr(space + 1);
  std::string why;
  int s = connect_proxy(&why);
  if (s < 0) return ok(name, why);
  std::string head = exchange_head(
      s, fmt::format("CONNECT {} HTTP/1.1\r\nHost: {}\r\n\r\n", host_port, host_port));
  if (head.find(" 200 ") == std::string::npos) {
    ::close(s);
    return leak(name,
                "broken: CONNECT to the allowed host refused: " + head.substr(0, head.find('\r')));
  }
  std::string got = send_and_read(s, make_client_hello(sni));
  ::close(s);
  if (!got.empty())
    return leak(name, fmt::format("tunnel to {} carried SNI {} ({} bytes back)", host_port, sni,
                                  got.size()));
  return ok(name, "closed");
}

}  // namespace

std::string make_client_hello(const std::string& sni) {
  auto be16 = [](size_t v) {
    return std::string{static_cast<char>(v >> 8), static_cast<char>(v & 0xff)};
  };
  std::string name_ext = be16(sni.size() + 3) + std::string(1, '\0') + be16(sni.size()) + sni;
  std::string ext = be16(0) + be16(name_ext.size()) + name_ext;
  std::string body = std::string("\x03\x03", 2) + std::string(32, 'r') + std::string(1, '\0') +
                     be16(2) + std::string("\x13\x01", 2) + std::string("\x01\x00", 2) +
                     be16(ext.size()) + ext;
  std::string hs = std::string(1, '\x01') + std::string(1, '\0') + be16(body.size()) + body;
  return std::string("\x16\x03\x01", 3) + be16(hs.size()) + hs;
}

std::string format_probe_targets(const ProbeTargets& t) {
  std::string out;
  auto named = [&](const char* kind, const ProbeTargets::Named& v) {
    for (const auto& [n, x] : v) out += fmt::format("{}\t{}\t{}\n", kind, n, x);
  };
  named("secret", t.secrets);
  named("write", t.writes);
  named("socket", t.sockets);
  named("tcp", t.tcp);
  named("http_allowed", t.http_allowed);
  named("http_denied", t.http_denied);
  named("fronting", t.fronting);
  if (!t.proc_marker.empty()) out += "marker\t-\t" + t.proc_marker + "\n";
  if (!t.keyring_key.empty()) out += "keyring\t-\t" + t.keyring_key + "\n";
  if (!t.sys_file.empty()) out += "sys\t-\t" + t.sys_file + "\n";
  out += fmt::format("forkbomb\t-\t{}\nmemhog\t-\t{}\nsudo\t-\t{}\nsyscalls\t-\t{}\n", t.fork_bomb,
                     t.memory_hog, t.sudo ? 1 : 0, t.syscalls ? 1 : 0);
  return out;
}

Result<ProbeTargets> parse_probe_targets(const std::string& text) {
  ProbeTargets t;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    if (line.empty()) continue;
    auto a = line.find('\t'), b = line.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos)
      return fail("probe targets line {}: expected kind<TAB>name<TAB>value", no);
    std::string kind = line.substr(0, a), name = line.substr(a + 1, b - a - 1),
                value = line.substr(b + 1);
    if (kind == "secret")
      t.secrets.emplace_back(name, value);
    else if (kind == "write")
      t.writes.emplace_back(name, value);
    else if (kind == "socket")
      t.sockets.emplace_back(name, value);
    else if (kind == "tcp")
      t.tcp.emplace_back(name, value);
    else if (kind == "http_allowed")
      t.http_allowed.emplace_back(name, value);
    else if (kind == "http_denied")
      t.http_denied.emplace_back(name, value);
    else if (kind == "fronting")
      t.fronting.emplace_back(name, value);
    else if (kind == "marker")
      t.proc_marker = value;
    else if (kind == "keyring")
      t.keyring_key = value;
    else if (kind == "sys")
      t.sys_file = value;
    else if (kind == "forkbomb")
      t.fork_bomb = std::atoi(value.c_str());
    else if (kind == "memhog")
      t.memory_hog = std::strtoull(value.c_str(), nullptr, 10);
    else if (kind == "sudo")
      t.sudo = value == "1";
    else if (kind == "syscalls")
      t.syscalls = value == "1";
    else
      return fail("probe targets line {}: unknown kind '{}'", no, kind);
  }
  return t;
}

std::vector<ProbeResult> run_probe_suite(const ProbeTargets& t) {
  std::vector<ProbeResult> r;
  for (const auto& [n, p] : t.secrets) r.push_back(probe_secret(n, p));
  for (const auto& [n, p] : t.writes) r.push_back(probe_write(n, p));
  for (const auto& [n, p] : t.sockets) r.push_back(probe_socket(n, p));
  for (const auto& [n, p] : t.tcp) r.push_back(probe_tcp(n, p));
  for (const auto& [n, p] : t.http_allowed) r.push_back(probe_http_allowed(n, p));
  for (const auto& [n, p] : t.http_denied) r.push_back(probe_http_denied(n, p));
  for (const auto& [n, p] : t.fronting) r.push_back(probe_fronting(n, p));
  if (!t.proc_marker.empty()) r.push_back(probe_proc(t.proc_marker));
  if (!t.keyring_key.empty()) r.push_back(probe_keyring(t.keyring_key));
  if (!t.sys_file.empty()) r.push_back(probe_sys(t.sys_file));
  if (t.syscalls) {
    r.push_back(probe_ptrace());
    r.push_back(probe_io_uring());
    r.push_back(probe_ctty());
    r.push_back(probe_tiocsti());
    r.push_back(probe_vsock());
    r.push_back(probe_userns());
    r.push_back(probe_caps());
  }
  if (t.sudo) r.push_back(probe_sudo());
  if (t.fork_bomb > 0) r.push_back(probe_fork_bomb(t.fork_bomb));
  if (t.memory_hog > 0) r.push_back(probe_memory_hog(t.memory_hog));
  return r;
}

namespace {
std::string json_string(const std::string& s) {
  return "\"" + json_escape_bytes(s) + "\"";
}
}  // namespace

int run_probes(const ProbeTargets& t, bool json, std::ostream& out) {
  auto results = run_probe_suite(t);
  int leaks = 0;
  if (json) out << "[";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    leaks += r.leaked ? 1 : 0;
    if (json) {
      out << (i ? "," : "") << "{\"name\":" << json_string(r.name)
          << ",\"ok\":" << (r.leaked ? "false" : "true") << ",\"detail\":" << json_string(r.detail)
          << "}";
    } else if (r.leaked) {
      out << "LEAK " << r.name << ": " << r.detail << "\n";
    } else {
      out << "ok " << r.name << "\n";
    }
  }
  if (json) out << "]\n";
  out.flush();
  return leaks;
}

int probe_inside(const std::string& who, bool json, const std::string& targets_file,
                 std::ostream& out, std::ostream& err) {
  auto text = read_file(targets_file);
  if (!text) {
    err << who << ": " << text.error().message << "\n";
    return 2;
  }
  auto targets = parse_probe_targets(*text);
  if (!targets) {
    err << who << ": " << targets.error().message << "\n";
    return 2;
  }
  return run_probes(*targets, json, out) > 0 ? 1 : 0;
}

}  // namespace aw
