#include "user_fixture.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "base/fs.h"
#include "isolate/user/sudoers.h"

namespace aw::test {

namespace {

std::string read_sysctl(const std::string& key) {
  auto v = read_file("/proc/sys/fs/" + key, 64);
  return v ? *v : "";
}

void write_sysctl(const std::string& key, const std::string& value) {
  FILE* f = std::fopen(("/proc/sys/fs/" + key).c_str(), "w");
  if (!f) return;
  std::fputs(value.c_str(), f);
  std::fclose(f);
}

const char* kSudoers = "/etc/sudoers.d/aw-user-test";

class Machine : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!ready_) return;
    sh(
        fmt::format("pkill -9 -u {0} 2>/dev/null; userdel -r {0} >/dev/null 2>&1; "
                    "userdel {1} >/dev/null 2>&1; groupdel {1} >/dev/null 2>&1; rm -f {2}; "
                    "sed -i '/^{1}$/d' /etc/cron.deny /etc/at.deny; "
                    "for f in /etc/cron.deny /etc/at.deny; do [ -s $f ] || rm -f $f; done",
                    kOwner, kWorker, kSudoers));
    write_sysctl("protected_symlinks", old_symlinks_);
    write_sysctl("protected_hardlinks", old_hardlinks_);
    if (lock_ >= 0) ::close(lock_);
  }

  const Users* get() {
    if (tried_) return ready_ ? &users_ : nullptr;
    tried_ = true;
    lock_ = ::open("/tmp/aw-user-test.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_ < 0 || ::flock(lock_, LOCK_EX) != 0) return nullptr;
    old_symlinks_ = read_sysctl("protected_symlinks");
    old_hardlinks_ = read_sysctl("protected_hardlinks");
    // Leftovers of an interrupted run first.
    sh(
        fmt::format("pkill -9 -u {0} 2>/dev/null; pkill -9 -u {1} 2>/dev/null; userdel -r {0} "
                    ">/dev/null 2>&1; userdel {1} >/dev/null 2>&1; groupdel {1} >/dev/null 2>&1; "
                    "rm -f /etc/sudoers.d/aw-user-test*",
                    kOwner, kWorker));
    int rc =
        sh(fmt::format("useradd --create-home --shell /bin/bash {0} && chmod 750 /home/{0} && "
                       "useradd --system --user-group --no-create-home --home-dir /nonexistent/{1} "
                       "--shell /usr/sbin/nologin {1} && "
                       "(grep -qx {1} /etc/cron.deny 2>/dev/null || echo {1} >> /etc/cron.deny) && "
                       "(grep -qx {1} /etc/at.deny 2>/dev/null || echo {1} >> /etc/at.deny)",
                       kOwner, kWorker));
    if (rc != 0) return nullptr;
    struct passwd* pw = ::getpwnam(kOwner);
    if (!pw) return nullptr;
    users_.owner_uid = pw->pw_uid;
    users_.owner_gid = pw->pw_gid;
    users_.owner_home = pw->pw_dir;
    auto w = lookup_worker(kWorker);
    if (!w) return nullptr;
    users_.worker = *w;
    SudoersParams p{kOwner, users_.owner_uid, users_.owner_gid, kWorker};
    auto lines = sudoers_lines(p);
    if (!write_file("/tmp/aw-user-test.sudoers", lines[0] + "\n" + lines[1] + "\n", 0440))
      return nullptr;
    if (sh(fmt::format("visudo -cqf /tmp/aw-user-test.sudoers && "
                       "install -m 0440 /tmp/aw-user-test.sudoers {}",
                       kSudoers)) != 0)
      return nullptr;
    write_sysctl("protected_symlinks", "1");
    write_sysctl("protected_hardlinks", "1");
    ready_ = true;
    return &users_;
  }

 private:
  bool tried_ = false, ready_ = false;
  int lock_ = -1;
  std::string old_symlinks_, old_hardlinks_;
  Users users_;
};

Machine* machine() {
  static Machine* m = [] {
    auto* env = new Machine;
    ::testing::AddGlobalTestEnvironment(env);  // gtest owns it and calls TearDown at exit
    return env;
  }();
  return m;
}

// Registered before main runs, so that TearDown happens even if only one test uses users().
[[maybe_unused]] Machine* const kRegistered = machine();

}  // namespace

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

const Users* users(std::string& why) {
  if (::geteuid() != 0) {
    why = "isolation `user` tests need root to create users and sudoers rules";
    return nullptr;
  }
  const Users* u = machine()->get();
  if (!u) why = "could not create the test users and sudoers rules (useradd, visudo)";
  return u;
}

std::string run_as(uid_t uid, gid_t gid, const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgroups(1, &gid) != 0 || ::setresgid(gid, gid, gid) != 0 ||
        ::setresuid(uid, uid, uid) != 0 || ::chdir("/") != 0)
      _exit(3);
    std::string out = fn();
    size_t off = 0;
    while (off < out.size()) {
      ssize_t n = ::write(fds[1], out.data() + off, out.size() - off);
      if (n <= 0) _exit(4);
      off += static_cast<size_t>(n);
    }
    _exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "run_as child failed: " << status;
  return out;
}

int sh(const std::string& command) {
  int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string sh_out(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(command.c_str(), "r"), ::pclose);
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = std::fread(buf, 1, sizeof buf, p.get())) > 0;) out.append(buf, n);
  return out;
}

SysctlScope::SysctlScope(const std::string& key, int value) : key_(key), old_(read_sysctl(key)) {
  write_sysctl(key, std::to_string(value));
}
SysctlScope::~SysctlScope() {
  write_sysctl(key_, old_);
}

std::string connect_result(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  int e = errno;
  ::close(fd);
  return rc == 0 ? "ok" : e == EACCES ? "EACCES" : std::strerror(e);
}

}  // namespace aw::test
