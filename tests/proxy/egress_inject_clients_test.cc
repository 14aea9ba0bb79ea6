// Real clients in the sandbox (issue 27): git clone and pip download of a private dependency
// behind Basic auth (tests/fakes/private_registry.py), the deploy password added at the proxy.
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "egress_inject_fixture.h"

namespace aw {
namespace {

// ---- real clients: git clone and pip download of a private dependency behind Basic auth ----

// A deploy token's password, shaped like a GitLab token; fake.
const std::string kDeployPass = "glpat-FAKEfakeFAKEfake5678";
const std::string kDeployPlaceholder =
    "awaywork-placeholder-DEPLOY_PASSWORD-fedcba9876543210fedcba9876543210";

// The rule `secrets: {DEPLOY_PASSWORD: {inject: [{host: HOST, basic: {user: deploy}, methods:
// [GET, POST], paths: [PREFIX]}]}}` makes (config/parse_secrets.cc).
EgressInjection deploy_rule(const std::string& host, const std::string& prefix) {
  EgressInjection r;
  r.secret = "DEPLOY_PASSWORD";
  r.value = kDeployPass;
  r.host = host;
  r.basic_user = "deploy";
  r.methods = {"GET", "POST"};
  r.paths = {prefix};
  return r;
}

bool pip_installed() {
  return std::system("/usr/bin/python3 -m pip --version >/dev/null 2>&1") == 0;
}

// Every regular file under dir (not following links) that holds needle.
std::vector<std::string> files_holding(const std::string& dir, const std::string& needle) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::end(it); it.increment(ec)) {
    if (it->is_symlink() || !it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (bytes.find(needle) != std::string::npos) out.push_back(it->path());
  }
  return out;
}

// The test server tests/fakes/private_registry.py (git http-backend and a PEP 503 index, both
// behind Basic auth for deploy:kDeployPass) over TLS with a test certificate for
// git.example.test and pypi.example.test; the proxy resolves both to it. The phase is a real
// client in the OS sandbox, holding only DEPLOY_PASSWORD's placeholder, trusting the unit's CA
// through the variables the unit sets.
struct ClientInjectFixture : HttpsInjectFixture {
  test::TestCert reg_cert;
  pid_t reg_pid = -1;
  uint16_t reg_port = 0;
  std::string reg_log;
  std::string work;                         // the phase's folder (writable in the sandbox)
  std::vector<std::string> registry_extra;  // more options for the test server

  void SetUp() override {
    HttpsInjectFixture::SetUp();
    if (HasFatalFailure()) return;
    reg_cert = test::make_test_cert(dir.path, "registry",
                                    {"git.example.test", "pypi.example.test", "cdn.example.test"});
    ASSERT_FALSE(reg_cert.cert.empty()) << "the openssl CLI made no certificate";
    reg_log = dir.path + "/registry.log";
    work = dir.path + "/clone";
    ASSERT_TRUE(make_dirs(work + "/tmp"));
    std::vector<std::string> argv = {
        "/usr/bin/python3",
        std::string(AW_SOURCE_DIR) + "/tests/fakes/private_registry.py",
        "--root",
        dir.path + "/registry",
        "--cert",
        reg_cert.cert,
        "--key",
        reg_cert.key,
        "--user",
        "deploy",
        "--password",
        kDeployPass,
        "--log",
        reg_log,
        "--git-repo",
        "private-dep",
        "--wheel",
        "privpkg==1.0"};
    argv.insert(argv.end(), registry_extra.begin(), registry_extra.end());
    std::string line = test::spawn_fake(argv, &reg_pid);
    ASSERT_FALSE(line.empty()) << "the test registry did not start";
    reg_port = static_cast<uint16_t>(std::stoi(line));
  }

  void TearDown() override {
    if (reg_pid > 0) {
      ::kill(reg_pid, SIGTERM);
      ::waitpid(reg_pid, nullptr, 0);
    }
  }

  // npm.example.test's rule is always there, so that the proxy has a CA even when the registry's
  // hosts have no rule (the positive controls: they are then plain tunnels).
  void start_clients(std::vector<EgressInjection> rules) {
    rules.push_back(npm_rule());
    EgressProxyOptions o;
    o.socket_path = dir.path + "/egress.sock";
    o.allow = {"git.example.test", "pypi.example.test", "cdn.example.test", "npm.example.test"};
    o.static_hosts = {{"git.example.test", "127.0.0.1"},
                      {"pypi.example.test", "127.0.0.1"},
                      {"cdn.example.test", "127.0.0.1"},
                      {"npm.example.test", "127.0.0.1"}};
    o.allow_private_upstream = true;
    o.inject = std::move(rules);
    o.placeholders = {{kPlaceholder, "NPM_TOKEN"}, {kDeployPlaceholder, "DEPLOY_PASSWORD"}};
    o.ca_file = reg_cert.cert;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> l(mu);
      log.push_back(line);
    };
    auto p = EgressProxy::start(o);
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
  }

  // argv in the sandbox, in work, trusting trust_pem as a unit's phase does (the variables of
  // ca_bundle_env_names that git and pip read); never prompting for a password.
  test::Ran client(std::vector<std::string> argv, const std::string& trust_pem) {
    std::string ca = work + "/ca.pem";
    EXPECT_TRUE(write_file(ca, trust_pem, 0644));
    SandboxPlan plan;
    plan.network = Network::allowlist;
    plan.proxy_socket = proxy->socket_path();
    plan.writable = {work};
    plan.apply_limits = false;
    test::Ran r =
        test::run_with(make_sandbox_launcher(plan), std::move(argv), work,
                       {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C",
                        "TMPDIR=" + work + "/tmp", "GIT_SSL_CAINFO=" + ca, "PIP_CERT=" + ca,
                        "REQUESTS_CA_BUNDLE=" + ca, "SSL_CERT_FILE=" + ca, "GIT_TERMINAL_PROMPT=0",
                        "GIT_CONFIG_NOSYSTEM=1", "PIP_CONFIG_FILE=/dev/null",
                        "DEPLOY_PASSWORD=" + kDeployPlaceholder});
    EXPECT_TRUE(r.started) << r.start_error;
    return r;
  }

  // What the test server saw, one object per request.
  std::vector<nlohmann::json> registry_seen() {
    std::vector<nlohmann::json> out;
    std::ifstream in(reg_log);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(nlohmann::json::parse(line, nullptr, false));
    return out;
  }

  // The value, and the Basic credentials made of it, in nothing the phase or the record sees:
  // its output, its folder (the clone, the downloads), the proxy's log.
  void expect_deploy_value_nowhere(const test::Ran& r) {
    std::string basic = injected_value(deploy_rule("git.example.test", "/"));
    std::string b64 = basic.substr(std::string("Basic ").size());
    for (const std::string& v : {kDeployPass, b64}) {
      EXPECT_EQ(r.out.find(v), std::string::npos) << r.out;
      EXPECT_EQ(r.err.find(v), std::string::npos) << r.err;
      EXPECT_TRUE(files_holding(work, v).empty()) << files_holding(work, v)[0];
      for (const auto& l : lines()) EXPECT_EQ(l.find(v), std::string::npos) << l;
    }
  }
};

using IsolateEgressInjectClients = ClientInjectFixture;

TEST_F(IsolateEgressInjectClients, GitClonesAPrivateDependencyWithTheBasicCredentialsAdded) {
  start_clients({deploy_rule("git.example.test", "/git/")});
  auto r = client({"git", "clone",
                   fmt::format("https://git.example.test:{}/git/private-dep.git", reg_port), "dep"},
                  proxy->ca_cert_pem());
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
  auto readme = read_file(work + "/dep/README");
  ASSERT_TRUE(readme) << r.err;
  EXPECT_EQ(*readme, "private dependency ok\n");
  // The server got the credentials the rule makes, on every request (the ref advertisement and
  // the upload-pack POST), and the phase never had them.
  std::string basic = injected_value(deploy_rule("git.example.test", "/git/"));
  auto seen = registry_seen();
  ASSERT_GE(seen.size(), 2u);
  bool posted = false;
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("authorization", ""), basic) << s.dump();
    EXPECT_EQ(s.value("status", 0), 200) << s.dump();
    posted = posted || s.value("method", "") == "POST";
  }
  EXPECT_TRUE(posted) << "git's upload-pack POST went through the terminated TLS too";
  size_t injected = 0;
  for (const auto& line : lines())
    injected += line.find(R"("injected":"DEPLOY_PASSWORD")") != std::string::npos;
  EXPECT_EQ(injected, seen.size()) << "the egress log names the secret added to each request";
  expect_deploy_value_nowhere(r);
}

// Positive control: the same clone without the rule (git.example.test a plain tunnel, its own
// certificate trusted) meets the 401 and fails: the credentials above came from the proxy alone.
TEST_F(IsolateEgressInjectClients, WithoutTheRuleTheCloneMeetsA401AndFails) {
  start_clients({});
  auto r = client({"git", "clone",
                   fmt::format("https://git.example.test:{}/git/private-dep.git", reg_port), "dep"},
                  proxy->ca_cert_pem() + *read_file(reg_cert.cert));
  EXPECT_NE(r.exit_code(), 0) << r.out << r.err;
  EXPECT_FALSE(read_file(work + "/dep/README"));
  auto seen = registry_seen();
  ASSERT_FALSE(seen.empty()) << "the server was reached: " << r.err;
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("status", 0), 401) << s.dump();
    EXPECT_EQ(s.value("authorization", "x"), "") << s.dump();
  }
  for (const auto& line : lines()) EXPECT_EQ(line.find("injected"), std::string::npos) << line;
  expect_deploy_value_nowhere(r);
}

// pip is a real client only where it is installed; CI installs python3-pip, so a skip there
// would hide a test that did not run.
#define REQUIRE_PIP()                                                                           \
  do {                                                                                          \
    if (!pip_installed()) {                                                                     \
      const char* ci = std::getenv("CI");                                                       \
      if (ci && std::string(ci) == "true") FAIL() << "CI=true but /usr/bin/python3 has no pip"; \
      GTEST_SKIP() << "python3-pip is not installed (/usr/bin/python3 -m pip)";                 \
    }                                                                                           \
  } while (0)

std::vector<std::string> pip_download(uint16_t port) {
  return {"/usr/bin/python3",
          "-m",
          "pip",
          "download",
          "--no-input",
          "--no-deps",
          "--no-cache-dir",
          "--disable-pip-version-check",
          "--index-url",
          fmt::format("https://pypi.example.test:{}/simple/", port),
          "-d",
          "wheels",
          "privpkg==1.0"};
}

TEST_F(IsolateEgressInjectClients, PipDownloadsFromAPrivateIndexWithTheBasicCredentialsAdded) {
  REQUIRE_PIP();
  start_clients({deploy_rule("pypi.example.test", "/simple/")});
  auto r = client(pip_download(reg_port), proxy->ca_cert_pem());
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
  EXPECT_TRUE(read_file(work + "/wheels/privpkg-1.0-py3-none-any.whl")) << r.out << r.err;
  std::string basic = injected_value(deploy_rule("pypi.example.test", "/simple/"));
  auto seen = registry_seen();
  ASSERT_EQ(seen.size(), 2u) << r.out << r.err;  // the project's page, then the wheel
  EXPECT_EQ(seen[0].value("path", ""), "/simple/privpkg/");
  EXPECT_EQ(seen[1].value("path", ""), "/simple/privpkg/privpkg-1.0-py3-none-any.whl");
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("authorization", ""), basic) << s.dump();
    EXPECT_EQ(s.value("status", 0), 200) << s.dump();
  }
  size_t injected = 0;
  for (const auto& line : lines())
    injected += line.find(R"("injected":"DEPLOY_PASSWORD")") != std::string::npos;
  EXPECT_EQ(injected, 2u) << "the egress log names the secret added to each request";
  expect_deploy_value_nowhere(r);
}

// Positive control: without the rule the index answers 401 and pip finds nothing.
TEST_F(IsolateEgressInjectClients, WithoutTheRulePipMeetsA401AndFails) {
  REQUIRE_PIP();
  start_clients({});
  auto r = client(pip_download(reg_port), proxy->ca_cert_pem() + *read_file(reg_cert.cert));
  EXPECT_NE(r.exit_code(), 0) << r.out << r.err;
  EXPECT_FALSE(read_file(work + "/wheels/privpkg-1.0-py3-none-any.whl"));
  auto seen = registry_seen();
  ASSERT_FALSE(seen.empty()) << "the server was reached: " << r.out << r.err;
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("status", 0), 401) << s.dump();
    EXPECT_EQ(s.value("authorization", "x"), "") << s.dump();
  }
  for (const auto& line : lines()) EXPECT_EQ(line.find("injected"), std::string::npos) << line;
  expect_deploy_value_nowhere(r);
}

// A registry that sends its downloads to another host (a CDN; the test server with
// --redirect-host): pip follows the redirect, and the other host, which has no rule (a tunnel,
// its own certificate trusted), gets no secret.
struct RedirectingRegistryFixture : ClientInjectFixture {
  void SetUp() override {
    registry_extra = {"--redirect-host", "cdn.example.test"};
    ClientInjectFixture::SetUp();
  }
};

using IsolateEgressInjectClientsRedirect = RedirectingRegistryFixture;

TEST_F(IsolateEgressInjectClientsRedirect, PipFollowsARedirectToAnotherHostThatGetsNoSecret) {
  REQUIRE_PIP();
  start_clients({deploy_rule("pypi.example.test", "/simple/")});
  auto r = client(pip_download(reg_port), proxy->ca_cert_pem() + *read_file(reg_cert.cert));
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
  EXPECT_TRUE(read_file(work + "/wheels/privpkg-1.0-py3-none-any.whl")) << r.out << r.err;
  std::string basic = injected_value(deploy_rule("pypi.example.test", "/simple/"));
  auto seen = registry_seen();
  ASSERT_EQ(seen.size(), 3u) << r.out << r.err;  // the project's page, the redirect, the file
  EXPECT_EQ(seen[0].value("authorization", ""), basic) << seen[0].dump();
  EXPECT_EQ(seen[1].value("status", 0), 302) << seen[1].dump();
  EXPECT_EQ(seen[1].value("authorization", ""), basic) << "the registry's own request had it";
  EXPECT_EQ(seen[2].value("path", ""), "/files/privpkg/privpkg-1.0-py3-none-any.whl");
  EXPECT_EQ(seen[2].value("status", 0), 200) << seen[2].dump();
  EXPECT_EQ(seen[2].value("authorization", "x"), "") << "the other host got no secret";
  size_t injected = 0;
  for (const auto& line : lines())
    injected += line.find(R"("injected":"DEPLOY_PASSWORD")") != std::string::npos;
  EXPECT_EQ(injected, 2u) << "added to the registry's two requests only";
  expect_deploy_value_nowhere(r);
}

}  // namespace
}  // namespace aw
