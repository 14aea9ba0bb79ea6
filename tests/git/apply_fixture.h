// What the apply tests share: a source repository with a bare copy served from srv/, a patch the
// agent made, the request publish() takes, an in-memory secret store, and a `git daemon` remote.
// Named namespace, inline: several test files of git_apply_test include it, and gtest needs each
// fixture to be one class across them.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <map>
#include <string>
#include <vector>

#include "git_fixture.h"
#include "secrets/store.h"

namespace aw::test {

// An in-memory secret store (the real ones live in src/secrets).
class MemoryStore : public SecretStore {
 public:
  std::map<std::string, std::string> values;
  std::string backend() const override { return "memory (test)"; }
  Result<std::string> get(const std::string& name) override {
    auto it = values.find(name);
    if (it == values.end()) return fail("no secret named '{}'", name);
    return it->second;
  }
  Status set(const std::string& n, const std::string& v) override {
    values[n] = v;
    return {};
  }
  Status remove(const std::string& n) override {
    values.erase(n);
    return {};
  }
  Result<std::vector<std::string>> names() override { return std::vector<std::string>{}; }
};

inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

inline bool can_connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// `git daemon --export-all --enable=receive-pack` serving root on 127.0.0.1 (started and
// stopped by its pid).
struct GitDaemon {
  pid_t pid = -1;
  int port = 0;
  explicit GitDaemon(const std::string& root) {
    port = free_port();
    std::vector<std::string> args = {"/usr/bin/git",
                                     "daemon",
                                     "--export-all",
                                     "--enable=receive-pack",
                                     "--reuseaddr",
                                     "--listen=127.0.0.1",
                                     "--port=" + std::to_string(port),
                                     "--base-path=" + root,
                                     root};
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=/nonexistent",
                                    "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"};
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    // Its stderr (a line per readiness probe below) is of no interest.
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 400 && pid > 0 && !can_connect(port); ++i) ::usleep(25000);
  }
  ~GitDaemon() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

class ApplyTest : public GitTest {
 protected:
  std::string srv, patch;
  std::vector<std::string> paths;
  MemoryStore store;

  void SetUp() override {
    GitTest::SetUp();
    srv = tmp.path + "/srv";
    sh("mkdir -p " + sq(srv) + " && git clone -q --bare " + sq(src_dir) + " " + sq(srv + "/r.git"));
    Clone c = clone_at(base);
    EXPECT_TRUE(write_file(work + "/b.txt", "bravo by agent\n", 0644));
    EXPECT_TRUE(write_file(work + "/dir/new.txt", "new\n", 0644));
    auto p = make_patch(c);
    ASSERT_TRUE(p) << p.error().message;
    patch = p->text;
    paths = p->paths;
  }

  PublishRequest request(ApplyTarget target) {
    PublishRequest r;
    r.target = std::move(target);
    r.unit_id = "u-1";
    r.base_commit = base;
    r.patch = patch;
    r.checked_paths = paths;
    r.message = "awaywork: a change\n\nUnit u-1.\n";
    r.scratch_dir = scratch;
    r.askpass = AW_TEST_ASKPASS;
    return r;
  }
  ApplyTarget remote(const std::string& url, const std::string& branch = "main") {
    ApplyTarget t;
    t.url = url;
    t.branch = branch;
    t.secrets = &store;
    return t;
  }
  std::string remote_ref(const std::string& repo, const std::string& ref) {
    Captured c = sh_capture("git --git-dir=" + sq(srv + "/" + repo) +
                            " rev-parse --verify --quiet " + sq(ref));
    std::string out = c.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return c.exit_code == 0 ? out : "";
  }
};

}  // namespace aw::test
