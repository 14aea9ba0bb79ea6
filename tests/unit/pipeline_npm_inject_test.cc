// Secrets added at the egress proxy (issue 27) with the real npm against a real private registry:
// verdaccio (pinned by scripts/test-data), started by the test on a loopback port over HTTPS with
// a test certificate, htpasswd auth, every package readable by authenticated users only. The test
// publishes a tiny package into it, then a unit (isolation none, the OS sandbox, network:
// allowlist) runs `npm ci` on a package-lock pointing at it, its .npmrc sending
// `_authToken=${NPM_TOKEN}`: the phase holds the placeholder, the proxy replaces npm's header with
// the registry's Basic credentials (a basic: {user: ...} rule), and the package installs. The
// value is nowhere in the state folder (clone, HOME, transcript, egress log, record).
// Skips without verdaccio (scripts/test-data installs it), a failure under CI=true.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "../proxy/fake_model_upstream.h"
#include "inject_probe.h"
#include "unit_fixture.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

// The registry's password for the user ci, shaped like an npm token; fake. Its Basic encoding as
// the proxy sends it, base64("ci:" + kNpmPass), and the htpasswd line verdaccio checks it against
// ({SHA} is base64(sha1(password))).
const std::string kNpmPass = "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake5151";
const std::string kNpmBasic = "Y2k6bnBtX0ZBS0VmYWtlRkFLRWZha2VGQUtFZmFrZUZBS0VmYWtlNTE1MQ==";
const std::string kHtpasswd = "ci:{SHA}gIrAGUMGSWyYJ9XCTYkSOs+RSoo=\n";

// stdout of a shell command (sh -c), "" when it could not run.
std::string shell_out(const std::string& cmd) {
  std::string out;
  if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

// A TCP port free on 127.0.0.1 now (verdaccio takes its port from its config, not 0).
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) ::close(fd);
  return port;
}

class InjectedNpm : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    const char* data = std::getenv("AWAYWORK_TEST_DATA_DIR");
    std::string bin = std::string(data && *data ? data : "/var/cache/awaywork/test-data") +
                      "/node_modules/verdaccio/bin/verdaccio";
    if (!exists(bin)) {
      const char* ci = std::getenv("CI");
      if (ci && std::string(ci) == "true") FAIL() << "CI=true and no " << bin;
      GTEST_SKIP() << "no verdaccio at " << bin << " (run scripts/test-data)";
    }
    use_test_secret_store();
    cert_ = make_test_cert(root, "npm", {"npm.example.test"});
    ASSERT_FALSE(cert_.cert.empty()) << "the openssl CLI made no certificate";
    port_ = free_port();
    ASSERT_GT(port_, 0);
    std::string dir = root + "/verdaccio";
    fs::create_directories(dir + "/storage");
    std::ofstream(dir + "/htpasswd") << kHtpasswd;
    std::ofstream(dir + "/config.yaml")
        << "storage: " << dir << "/storage\n"
        << "auth:\n  htpasswd:\n    file: " << dir << "/htpasswd\n    max_users: -1\n"
        << "uplinks: {}\n"
        << "packages:\n  '**':\n    access: $authenticated\n    publish: $authenticated\n"
        << "listen: https://127.0.0.1:" << port_ << "\n"
        << "https:\n  key: " << cert_.key << "\n  cert: " << cert_.cert << "\n"
        << "log: {type: stdout, format: json, level: warn}\n";
    std::string log_path = dir + "/verdaccio.log", config_path = dir + "/config.yaml";
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (log >= 0) ::dup2(log, 1), ::dup2(log, 2);
      ::execlp("node", "node", bin.c_str(), "--config", config_path.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Ready when it answers its ping (a bound of a minute, not a timing assertion).
    std::string base = fmt::format("https://127.0.0.1:{}", port_);
    bool up = false;
    for (int i = 0; i < 600 && !up; ++i) {
      up = shell_out("curl -sk -o /dev/null -w '%{http_code}' " + base + "/-/ping") == "200";
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(up) << "verdaccio did not start: " << read(dir + "/verdaccio.log");

    // The package, packed (for its integrity) and published with the credentials, from outside
    // any unit. The test talks to 127.0.0.1, which the certificate does not name: strict-ssl off
    // for this setup only (the unit's npm verifies the proxy's certificate).
    std::string pkg = root + "/private-pkg";
    fs::create_directories(pkg);
    fs::create_directories(root + "/npm-home");
    std::ofstream(pkg + "/package.json")
        << R"({"name": "private-pkg", "version": "1.0.0", "main": "index.js"})"
        << "\n";
    std::ofstream(pkg + "/index.js") << "module.exports = 'private package ok';\n";
    std::ofstream(root + "/publish.npmrc")
        << "//127.0.0.1:" << port_ << "/:_auth=" << kNpmBasic << "\nstrict-ssl=false\n";
    std::string npm_env = fmt::format("HOME={0}/npm-home npm_config_cache={0}/npm-cache ", root);
    auto packed =
        nlohmann::json::parse(shell_out(npm_env + "npm pack " + pkg +
                                        " --json --pack-destination " + root + " 2>/dev/null"),
                              nullptr, false);
    ASSERT_TRUE(packed.is_array() && !packed.empty()) << "npm pack";
    integrity_ = packed[0].value("integrity", "");
    ASSERT_EQ(integrity_.rfind("sha512-", 0), 0u) << packed.dump();
    std::string published =
        shell_out(npm_env + "npm publish " + root + "/private-pkg-1.0.0.tgz --registry=" + base +
                  "/ --userconfig=" + root + "/publish.npmrc 2>&1 && echo PUBLISHED");
    ASSERT_NE(published.find("PUBLISHED"), std::string::npos) << published;
    // The registry requires the credentials: without them, 401 (with them, the package).
    EXPECT_EQ(shell_out("curl -sk -o /dev/null -w '%{http_code}' " + base + "/private-pkg"), "401");
    EXPECT_EQ(shell_out("curl -sk -o /dev/null -w '%{http_code}' -H 'Authorization: Basic " +
                        kNpmBasic + "' " + base + "/private-pkg"),
              "200");
  }

  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    UnitTest::TearDown();
  }

  TestCert cert_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string integrity_;
};

TEST_F(InjectedNpm, NpmCiInstallsFromThePrivateRegistryWithTheTokenTheAgentNeverHolds) {
  store_secret("NPM_TOKEN", kNpmPass);
  std::string registry = fmt::format("npm.example.test:{}", port_);
  nlohmann::json lock = {
      {"name", "app"},
      {"version", "1.0.0"},
      {"lockfileVersion", 3},
      {"requires", true},
      {"packages",
       {{"", {{"name", "app"}, {"version", "1.0.0"}, {"dependencies", {{"private-pkg", "1.0.0"}}}}},
        {"node_modules/private-pkg",
         {{"version", "1.0.0"},
          {"resolved", "https://" + registry + "/private-pkg/-/private-pkg-1.0.0.tgz"},
          {"integrity", integrity_}}}}}};
  make_repo({{"a.txt", "x\n"},
             {".gitignore", "node_modules/\n"},
             {"package.json", R"({"name": "app", "version": "1.0.0", "private": true, )"
                              R"("dependencies": {"private-pkg": "1.0.0"}})"
                              "\n"},
             {"package-lock.json", lock.dump(2) + "\n"},
             // As a project with a private registry commits it: the token by name, from the env.
             {".npmrc", "registry=https://" + registry + "/\n//" + registry +
                            "/:_authToken=${NPM_TOKEN}\nupdate-notifier=false\n"}});
  write_config(
      agent_script("npm",
                   "case \"$NPM_TOKEN\" in awaywork-placeholder-NPM_TOKEN-*) echo PLACEHOLDER "
                   "yes;; esac\n"
                   "npm ci --no-audit --no-fund > \"$AWAYWORK_OUTPUTS/npm.log\" 2>&1 "
                   "|| echo NPM FAILED\n"
                   "echo \"LOADED $(node -e \"process.stdout.write(require('private-pkg'))\" "
                   "2>&1)\"\n"
                   "echo y > a.txt\n"),
      "",
      "sandbox:\n  network: allowlist\n  allow: [npm.example.test]\n"
      "secrets:\n  NPM_TOKEN:\n    inject: [{host: npm.example.test, basic: {user: ci}}]\n");
  auto r = run_unit("install the private package", {},
                    {"AWAYWORK_TEST_EGRESS_UPSTREAM=" + cert_.cert + " npm.example.test"});
  const auto& u = r.record;
  ASSERT_TRUE(u.is_object()) << r.out << r.err;
  EXPECT_EQ(u["sandbox"].get<std::string>().rfind("sandboxed:", 0), 0u) << u["sandbox"];
  ASSERT_FALSE(u["phases"].empty()) << r.out << r.err;
  EXPECT_EQ(u["state"], "done") << r.out << r.err;
  std::string run_dir = u["run_dir"];
  std::string transcript = read(run_dir + "/transcript.log");
  EXPECT_NE(transcript.find("PLACEHOLDER yes"), std::string::npos) << transcript;
  EXPECT_EQ(transcript.find("NPM FAILED"), std::string::npos)
      << transcript << read(run_dir + "/outputs/npm.log");
  EXPECT_NE(transcript.find("LOADED private package ok"), std::string::npos)
      << transcript << read(run_dir + "/outputs/npm.log");
  std::string egress = read(run_dir + "/egress.log");
  EXPECT_NE(egress.find(R"("injected":"NPM_TOKEN")"), std::string::npos) << egress;

  // Nowhere the value or its Basic encoding: stdout/stderr, the whole state folder (the clone
  // with node_modules, HOME with npm's cache and logs, the transcript, the egress log).
  for (const std::string& v : {kNpmPass, kNpmBasic}) expect_held_nowhere(r, root + "/state", v);
  EXPECT_FALSE(files_holding(root + "/state", "private package ok").empty())
      << "the scan reads the installed package";
}

}  // namespace
}  // namespace aw::test
