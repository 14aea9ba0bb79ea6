// The leak probes as the real worker: every one reports ok, and every one reports LEAK once its
// protection is removed.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>

#include "base/fs.h"
#include "isolate/user/handoff.h"
#include "isolate/user/probes.h"
#include "user_fixture.h"

namespace aw {
namespace {

// The owner's things the probes aim at: env file, gh hosts.yml, an ssh-agent socket and a
// running "awaywork" process whose environment holds a fake token.
struct OwnerThings {
  const test::Users& u;
  WorkerProbeTargets t;
  std::string ssh_dir;
  int ssh_fd = -1;
  pid_t awaywork = -1;

  explicit OwnerThings(const test::Users& users) : u(users) {
    std::string h = u.owner_home;
    test::sh(fmt::format(
        "mkdir -p {0}/.config/awaywork {0}/.config/gh && echo 'ANTHROPIC_API_KEY=sk-ant-test-FAKE' "
        "> "
        "{0}/.config/awaywork/env && echo 'github.com: {{oauth_token: gho_FAKE000}}' > "
        "{0}/.config/gh/hosts.yml && chmod 600 {0}/.config/awaywork/env {0}/.config/gh/hosts.yml "
        "&& chown -R {1}:{2} {0}/.config && chmod 750 {0}",
        h, u.owner_uid, u.owner_gid));
    t.env_file = h + "/.config/awaywork/env";
    t.gh_hosts = h + "/.config/gh/hosts.yml";
    t.owner_home = h;
    ssh_dir = test::sh_out("mktemp -d /tmp/ssh-XXXXXXXX");
    ssh_dir.pop_back();
    std::string sock = ssh_dir + "/agent.4242";
    ssh_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", sock.c_str());
    ::bind(ssh_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(ssh_fd, 8);
    test::sh(fmt::format("chmod 600 {0} && chmod 700 {1} && chown -R {2}:{3} {1}", sock, ssh_dir,
                         u.owner_uid, u.owner_gid));
    t.ssh_glob = ssh_dir + "/agent.*";
    awaywork = ::fork();
    if (awaywork == 0) {
      ::setsid();
      if (::setresgid(u.owner_gid, u.owner_gid, u.owner_gid) == 0 &&
          ::setresuid(u.owner_uid, u.owner_uid, u.owner_uid) == 0) {
        char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("120"), nullptr};
        char* envp[] = {const_cast<char*>("GITHUB_TOKEN=ghp_FAKE0000000000000000"), nullptr};
        ::execve("/bin/sleep", argv, envp);
      }
      _exit(127);
    }
    t.awaywork_pid = awaywork;
    ::usleep(100 * 1000);  // let exec happen so /proc/PID/environ is the sleep's
  }
  ~OwnerThings() {
    ::kill(awaywork, SIGKILL);
    ::waitpid(awaywork, nullptr, 0);
    ::close(ssh_fd);
    test::sh(
        fmt::format("rm -rf {} {}/.config; chmod 750 {}", ssh_dir, u.owner_home, u.owner_home));
  }
};

std::map<std::string, WorkerProbeResult> probe_as(uid_t uid, gid_t gid,
                                                  const WorkerProbeTargets& t) {
  // One "L|NAME|WHAT" line per probe (WHAT kept for failure messages, also for ok ones).
  std::string text = test::run_as(uid, gid, [&] {
    std::string out;
    for (const auto& r : run_worker_probes(t))
      out += fmt::format("{}|{}|{}\n", r.leak ? 1 : 0, r.name, r.what);
    return out;
  });
  std::map<std::string, WorkerProbeResult> out;
  for (size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    std::string line = text.substr(a, b - a);
    size_t bar = line.find('|', 2);
    if (bar == std::string::npos) continue;
    std::string name = line.substr(2, bar - 2);
    out[name] = {name, line[0] == '1', line.substr(bar + 1)};
  }
  return out;
}

TEST(UserProbes, RenderUsesTheProbeFrameworkFormat) {
  EXPECT_EQ(render_probes({{"sudo", false, "exit 1"}, {"env-file", true, "read /x"}}),
            "ok sudo\nLEAK env-file: read /x\n");
}

TEST(UserProbes, AllOkAsTheWorker) {
  AW_NEED_USERS(u);
  OwnerThings things(*u);
  auto r = probe_as(u->worker.uid, u->worker.gid, things.t);
  for (const char* name : {"env-file", "owner-home", "awaywork-environ", "any-environ", "gh-hosts",
                           "ssh-agent", "sudo", "crontab"}) {
    ASSERT_TRUE(r.count(name)) << name;
    EXPECT_FALSE(r[name].leak) << r[name].what;
  }
  pid_t sleep_pid = std::atoi(test::run_as(u->worker.uid, u->worker.gid, [] {
                                return std::to_string(start_detached_sleep());
                              }).c_str());
  std::string killed = test::run_as(u->owner_uid, u->owner_gid, [&] {
    auto s = kill_worker_processes(u->worker);
    return s ? std::string() : s.error().message;
  });
  EXPECT_EQ(killed, "");
  EXPECT_FALSE(check_left_behind(sleep_pid).leak);
}

TEST(UserProbes, EachLeaksWithItsProtectionRemoved) {
  AW_NEED_USERS(u);
  OwnerThings things(*u);
  const std::string h = u->owner_home;
  // Files readable by others, home open: env file, gh hosts and the home leak.
  test::sh(
      fmt::format("chmod 755 {0} {0}/.config {0}/.config/awaywork {0}/.config/gh && chmod 644 "
                  "{0}/.config/awaywork/env {0}/.config/gh/hosts.yml",
                  h));
  test::sh(fmt::format("chmod 777 {0} {0}/agent.4242", things.ssh_dir));
  test::sh(
      fmt::format("echo '{} ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/aw-user-test-leak && "
                  "chmod 440 /etc/sudoers.d/aw-user-test-leak && sed -i '/^{}$/d' /etc/cron.deny",
                  u->worker.name, u->worker.name));
  auto r = probe_as(u->worker.uid, u->worker.gid, things.t);
  test::sh(fmt::format("rm -f /etc/sudoers.d/aw-user-test-leak; echo {} >> /etc/cron.deny",
                       u->worker.name));
  for (const char* name : {"env-file", "owner-home", "gh-hosts", "ssh-agent", "sudo", "crontab"}) {
    ASSERT_TRUE(r.count(name)) << name;
    EXPECT_TRUE(r[name].leak) << name << ": " << r[name].what;
  }
  // No separate user at all (the owner runs the agent): awaywork's environment and any other
  // process's environment are readable.
  auto same = probe_as(u->owner_uid, u->owner_gid, things.t);
  EXPECT_TRUE(same["awaywork-environ"].leak) << same["awaywork-environ"].what;
  EXPECT_TRUE(same["any-environ"].leak) << same["any-environ"].what;
  // No kill after the phase: the detached sleep is left behind.
  pid_t sleep_pid = std::atoi(test::run_as(u->worker.uid, u->worker.gid, [] {
                                return std::to_string(start_detached_sleep());
                              }).c_str());
  EXPECT_TRUE(check_left_behind(sleep_pid).leak);
  ::kill(sleep_pid, SIGKILL);
}

}  // namespace
}  // namespace aw
