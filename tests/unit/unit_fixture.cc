#include "unit_fixture.h"

#include "provider/doctor.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "proc/capture.h"
#include "secrets/store.h"

extern char** environ;

namespace aw::test {

namespace fs = std::filesystem;

void make_tls_certificate(const std::string& dir) {
  auto r = capture({{"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                     dir + "/key.pem", "-out", dir + "/cert.pem", "-days", "1", "-subj",
                     "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"},
                    {"PATH=/usr/bin:/bin"},
                    "",
                    ""});
  ASSERT_TRUE(r && r->exit_code == 0) << (r ? r->err : r.error().message);
}

std::vector<nlohmann::json> log_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (auto j = nlohmann::json::parse(line, nullptr, false); !j.is_discarded()) out.push_back(j);
  return out;
}

bool can_connect(const std::string& socket_path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", socket_path.c_str());
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

std::string awaywork_binary() {
  return std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
}

void UnitTest::SetUp() {
  char tmpl[] = "/tmp/aw-unit-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  root = tmpl;
  src = root + "/src";
  config = root + "/config.yml";
  fs::create_directories(root + "/agents");
}

void UnitTest::TearDown() {
  if (state_mounted_) ::umount2((root + "/state").c_str(), MNT_DETACH);
  for (auto it = saved_env_.rbegin(); it != saved_env_.rend(); ++it)
    it->second ? ::setenv(it->first.c_str(), it->second->c_str(), 1)
               : ::unsetenv(it->first.c_str());
  saved_env_.clear();
  if (!HasFailure())
    fs::remove_all(root);
  else
    std::fprintf(stderr, "kept %s for inspection\n", root.c_str());
}

bool UnitTest::small_state_fs(int mib) {
  if (::geteuid() != 0) return false;
  std::string dir = root + "/state";
  ::mkdir(dir.c_str(), 0700);
  std::string opts = "size=" + std::to_string(mib) + "m,mode=0700";
  state_mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, opts.c_str()) == 0;
  return state_mounted_;
}

std::string agent_clis_bin() {
  const char* env = ::getenv("AWAYWORK_AGENT_CLIS_BIN");
  return env && *env ? env : kAgentClisBin;
}

void UnitTest::put_agent_clis_on_path() {
  const char* path = std::getenv("PATH");
  saved_env_.emplace_back("PATH", path ? std::optional<std::string>(path) : std::nullopt);
  ::setenv("PATH", (agent_clis_bin() + ":" + (path ? path : "/usr/bin:/bin")).c_str(), 1);
}

void UnitTest::use_test_secret_store() {
  for (const char* name :
       {"XDG_CONFIG_HOME", "AWAYWORK_SECRET_BACKEND", "AWAYWORK_SECRETS_PASSPHRASE"}) {
    const char* v = std::getenv(name);
    saved_env_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
  }
  ::setenv("XDG_CONFIG_HOME", (root + "/xdg").c_str(), 1);
  ::setenv("AWAYWORK_SECRET_BACKEND", "file", 1);
  ::unsetenv("AWAYWORK_SECRETS_PASSPHRASE");
}

void UnitTest::store_secret(const std::string& name, const std::string& value) {
  auto s = open_secret_store({root + "/xdg/awaywork/secrets"});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE((*s)->set(name, value));
}

// read(2), not a stream: a process that vanishes mid-read fails with ESRCH.
static std::string read_cmdline(const std::string& path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

std::vector<std::string> CmdlineScanner::pass() const {
  std::vector<std::string> hits;
  DIR* d = ::opendir("/proc");
  if (!d) return hits;
  while (dirent* e = ::readdir(d)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    std::string cmd = read_cmdline(std::string("/proc/") + e->d_name + "/cmdline");
    for (const auto& n : needles_)
      if (cmd.find(n) != std::string::npos) hits.push_back(cmd);
  }
  ::closedir(d);
  return hits;
}

std::string UnitTest::git(const std::vector<std::string>& args) {
  CaptureSpec spec;
  spec.argv = {"git", "-C", src};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {"PATH=/usr/bin:/bin",
              "HOME=" + root,
              "GIT_CONFIG_NOSYSTEM=1",
              "GIT_AUTHOR_NAME=t",
              "GIT_AUTHOR_EMAIL=t@localhost",
              "GIT_COMMITTER_NAME=t",
              "GIT_COMMITTER_EMAIL=t@localhost"};
  auto r = capture(spec);
  EXPECT_TRUE(r && r->exit_code == 0) << "git failed: " << (r ? r->err : r.error().message);
  return r ? r->out : "";
}

void UnitTest::make_repo(const std::map<std::string, std::string>& files) {
  fs::create_directories(src);
  for (const auto& [path, content] : files) {
    fs::create_directories(fs::path(src + "/" + path).parent_path());
    std::ofstream(src + "/" + path) << content;
  }
  git({"init", "-q", "-b", "main"});
  git({"add", "-A"});
  git({"commit", "-qm", "initial"});
}

std::string UnitTest::agent_script(const std::string& name, const std::string& body) {
  std::string path = root + "/agents/" + name;
  std::ofstream(path) << "#!/bin/sh\nset -eu\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

void UnitTest::write_config(const std::string& agent_path, const std::string& repo_extra,
                            const std::string& agent_extra) {
  std::ofstream(config) << "state_dir: " << root << "/state\n"
                        << "agent: test\n"
                        << "agents:\n  test:\n    command: [" << agent_path << "]\n"
                        << agent_extra << "repos:\n  src:\n    path: " << src << "\n"
                        << repo_extra;
}

RunOutput UnitTest::awaywork(const std::vector<std::string>& args,
                             const std::vector<std::string>& env) {
  CaptureSpec spec;
  spec.argv = {awaywork_binary(), "--config", config};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
  spec.env.insert(spec.env.end(), env.begin(), env.end());
  return run_captured(spec);
}

RunOutput run_captured(const CaptureSpec& spec) {
  RunOutput o;
  auto r = capture(spec);
  if (!r) {
    ADD_FAILURE() << r.error().message;
    return o;
  }
  o.exit_code = r->exit_code;
  o.out = r->out;
  o.err = r->err;
  o.record = nlohmann::json::parse(o.out, nullptr, false);
  return o;
}

pid_t UnitTest::start_run_in_background(const std::string& prompt) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
    std::string bin = awaywork_binary();
    ::execl(bin.c_str(), bin.c_str(), "--config", config.c_str(), "run", "--repo", "src",
            "--prompt", prompt.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

RunOutput UnitTest::run_unit(const std::string& prompt, const std::vector<std::string>& extra,
                             const std::vector<std::string>& env) {
  std::vector<std::string> args = {"run", "--repo", "src", "--prompt", prompt, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return awaywork(args, env);
}

std::string UnitTest::read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool UnitTest::exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool UnitTest::process_alive_with(const std::string& needle) {
  DIR* d = opendir("/proc");
  if (!d) return false;
  bool found = false;
  while (dirent* e = readdir(d)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    std::string cmd = read(std::string("/proc/") + e->d_name + "/cmdline");
    std::string stat = read(std::string("/proc/") + e->d_name + "/stat");
    bool zombie = stat.find(") Z ") != std::string::npos;
    if (!zombie && cmd.find(needle) != std::string::npos) found = true;
  }
  closedir(d);
  return found;
}

}  // namespace aw::test
