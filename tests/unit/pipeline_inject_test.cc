// Secrets added at the egress proxy (issue 27), end to end through the real binary: a unit in
// isolation none with the OS sandbox and network: allowlist, whose agent asks a bound host (a fake
// upstream over real TLS with a test certificate, reached through the test hook
// AWAYWORK_TEST_EGRESS_UPSTREAM) through its HTTP proxy. The upstream gets the secret; the phase
// holds only the placeholder; the placeholder sent to another allowed host is refused; no byte of
// the state folder (record, transcript, egress log, outputs, clone) holds the value. Then a real
// `git clone` in the unit from a test server behind Basic auth (a basic: {user: ...} rule).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../fakes/spawn_fake.h"
#include "fake_model_upstream.h"
#include "inject_probe.h"
#include "unit_fixture.h"

namespace aw::test {
namespace {

// Shaped like a real npm token; fake.
const std::string kNpmToken = "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake4242";

// What the agent runs: writes everything it can read (its environment, every /proc environ and
// cmdline it can open) to its outputs folder, which the test greps for the value, then asks the
// bound host with the placeholder (as npm would send `_authToken=${NPM_TOKEN}`) and sends the
// placeholder to another allowed host.
constexpr const char* kProbe = R"(
import glob, os, sys, urllib.request, urllib.error
with open(os.path.join(os.environ['AWAYWORK_OUTPUTS'], 'seen'), 'w') as out:
    for k, v in os.environ.items():
        out.write(k + '=' + v + '\n')
    for p in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):
        try:
            out.write(open(p, 'rb').read().decode('latin-1') + '\n')
        except OSError:
            pass
def ask(url, headers):
    try:
        r = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=20)
        return str(r.status)
    except urllib.error.HTTPError as e:
        return '%d %s' % (e.code, e.headers.get('X-Awaywork-Refused'))
    except Exception as e:
        return 'error ' + type(e).__name__
tok = os.environ.get('NPM_TOKEN', '')
print('PLACEHOLDER', tok.startswith('awaywork-placeholder-NPM_TOKEN-'))
print('BOUND', ask('http://npm.example.test:%s/pkg/left-pad' % sys.argv[1],
                   {'Authorization': 'Bearer ' + tok}))
print('ELSEWHERE', ask('http://other.test:%s/x' % sys.argv[2], {'Authorization': 'Bearer ' + tok}))
)";

class Injected : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    use_test_secret_store();
    cert_ = make_test_cert(root, "npm", {"npm.example.test"});
    ASSERT_FALSE(cert_.cert.empty()) << "the openssl CLI made no certificate";
    bound_ = std::make_unique<FakeModelUpstream>(cert_);
    other_ = std::make_unique<FakeModelUpstream>();  // plain HTTP
    make_repo({{"probe.py", kProbe}});
    write_config(agent_script("agent", fmt::format("python3 probe.py {} {}\n", bound_->port(),
                                                   other_->port())),
                 "", kInjectConfig);
  }

  static constexpr const char* kInjectConfig =
      "sandbox:\n  network: allowlist\n  allow: [npm.example.test, other.test]\n"
      "secrets:\n  NPM_TOKEN:\n"
      "    inject: [{host: npm.example.test, methods: [GET], paths: [/pkg/]}]\n";

  RunOutput run(const std::string& prompt) {
    return run_unit(
        prompt, {},
        {"AWAYWORK_TEST_EGRESS_UPSTREAM=" + cert_.cert + " npm.example.test other.test"});
  }

  TestCert cert_;
  std::unique_ptr<FakeModelUpstream> bound_, other_;
};

TEST_F(Injected, TheBoundHostGetsTheSecretAndNothingOfTheUnitHoldsIt) {
  store_secret("NPM_TOKEN", kNpmToken);
  auto r = run("ask the private registry");
  const auto& u = r.record;
  ASSERT_TRUE(u.is_object()) << r.out << r.err;
  EXPECT_EQ(u["sandbox"].get<std::string>().rfind("sandboxed:", 0), 0u) << u["sandbox"];
  ASSERT_FALSE(u["phases"].empty()) << r.out << r.err;
  std::string run_dir = u["run_dir"];
  std::string transcript = read(run_dir + "/transcript.log");
  EXPECT_NE(transcript.find("PLACEHOLDER True"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("BOUND 404 None"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("ELSEWHERE 403 deny placeholder-exfiltration NPM_TOKEN"),
            std::string::npos)
      << transcript;

  // Positive control: the value exists, and went where the rule says, in place of the
  // placeholder.
  auto seen = bound_->seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].target, "/pkg/left-pad");
  EXPECT_NE(seen[0].head.find("Authorization: Bearer " + kNpmToken + "\r\n"), std::string::npos)
      << seen[0].head;
  EXPECT_EQ(seen[0].head.find("awaywork-placeholder-"), std::string::npos) << seen[0].head;
  EXPECT_TRUE(other_->seen().empty()) << "the placeholder never left for another host";

  // The phase held the placeholder (its outputs hold what it could read), never the value.
  EXPECT_NE(read(run_dir + "/outputs/seen").find("NPM_TOKEN=awaywork-placeholder-NPM_TOKEN-"),
            std::string::npos);
  std::string egress = read(run_dir + "/egress.log");
  EXPECT_NE(egress.find(R"("injected":"NPM_TOKEN")"), std::string::npos) << egress;
  EXPECT_NE(egress.find("deny placeholder-exfiltration NPM_TOKEN"), std::string::npos) << egress;

  // Nowhere the value: stdout/stderr, the whole state folder (record database, run folder with
  // clone, transcript, outputs, egress log).
  expect_held_nowhere(r, root + "/state", kNpmToken);
  EXPECT_FALSE(files_holding(root + "/state", "BOUND 404").empty()) << "the scan reads the state";

  // The record names the injected secret and its host, never the value or the placeholder.
  auto show = awaywork({"show", u["id"]});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("secret NPM_TOKEN is added by the egress proxy for npm.example.test"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("test hook AWAYWORK_TEST_EGRESS_UPSTREAM"), std::string::npos)
      << show.out;
  // What the unit's requests actually got, from its egress log.
  EXPECT_NE(show.out.find("  - NPM_TOKEN: added to 1 request(s) for npm.example.test\n"
                          "  - NPM_TOKEN: its placeholder was refused for other.test"),
            std::string::npos)
      << show.out;
  EXPECT_EQ(show.out.find(kNpmToken), std::string::npos);
  EXPECT_EQ(show.out.find("awaywork-placeholder-NPM_TOKEN-"), std::string::npos) << show.out;
}

TEST_F(Injected, AMissingInjectedSecretFailsTheUnitBeforeAnyPhaseNamingTheFix) {
  store_secret("SOME_OTHER", "another-fake-value-1234");  // the store exists, NPM_TOKEN is absent
  auto r = run("the secret is not stored");
  const auto& u = r.record;
  EXPECT_EQ(u["state"], "failed") << r.out << r.err;
  EXPECT_TRUE(u["phases"].empty());
  std::string reason = u["reason"];
  EXPECT_NE(reason.find("secrets.NPM_TOKEN: not in the secret store"), std::string::npos) << reason;
  EXPECT_NE(reason.find("awaywork secret set NPM_TOKEN"), std::string::npos) << reason;
  EXPECT_TRUE(bound_->seen().empty());
  EXPECT_FALSE(exists(u["run_dir"].get<std::string>() + "/outputs/seen"));
}

// The placeholder stands for the secret: a patch that holds it is refused, and the kept patch is
// redacted of it.
TEST_F(Injected, APlaceholderWrittenIntoThePatchIsRefused) {
  store_secret("NPM_TOKEN", kNpmToken);
  write_config(agent_script("leak", "echo \"token=$NPM_TOKEN\" > leaked.txt\n"), "", kInjectConfig);
  auto r = run("leak the placeholder into the patch");
  EXPECT_EQ(r.record["state"], "refused") << r.out << r.err;
  std::string run_dir = r.record["run_dir"];
  std::string patch = read(run_dir + "/patch.diff");
  EXPECT_NE(patch.find("token=[REDACTED]"), std::string::npos) << patch;
  EXPECT_EQ(patch.find("awaywork-placeholder-"), std::string::npos) << patch;
  EXPECT_EQ(files_holding(root + "/state", kNpmToken), std::vector<std::string>{});
}

TEST_F(Injected, DoctorNamesEachInjectedSecretWithItsHostsAndTheFixWhenMissing) {
  store_secret("SOME_OTHER", "another-fake-value-1234");
  auto missing = awaywork({"doctor"});
  EXPECT_NE(missing.out.find("secret NPM_TOKEN: added by the egress proxy for npm.example.test"),
            std::string::npos)
      << missing.out;
  EXPECT_NE(missing.out.find("awaywork secret set NPM_TOKEN"), std::string::npos) << missing.out;
  store_secret("NPM_TOKEN", kNpmToken);
  auto stored = awaywork({"doctor", "--json"});
  auto checks = nlohmann::json::parse(stored.out, nullptr, false);
  ASSERT_TRUE(checks.is_object()) << stored.out << stored.err;
  bool found = false;
  for (const auto& c : checks["checks"])
    if (c["name"] == "secret NPM_TOKEN: added by the egress proxy for npm.example.test") {
      found = true;
      EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    }
  EXPECT_TRUE(found) << stored.out;
  EXPECT_EQ(stored.out.find(kNpmToken), std::string::npos);
  EXPECT_EQ(missing.out.find(kNpmToken), std::string::npos);
}

// Without a system CA bundle the phases' bundle would hold the unit's CA alone: doctor warns (a
// check that passes, saying so, with the fix). The machine's bundle is hidden in a mount namespace
// of doctor's own (unshare -rm, a tmpfs over /etc/ssl); with it, doctor says it was found.
TEST_F(Injected, DoctorWarnsWhenNoSystemCaBundleIsFound) {
  store_secret("NPM_TOKEN", kNpmToken);
  auto ca_check = [](const RunOutput& r) {
    auto checks = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(checks.is_object()) << r.out << r.err;
    if (checks.is_object())
      for (const auto& c : checks["checks"])
        if (c.value("name", "").rfind("system CA bundle", 0) == 0) return c;
    return nlohmann::json();
  };
  auto here = ca_check(awaywork({"doctor", "--json"}));
  ASSERT_TRUE(here.is_object()) << "doctor names the bundle when a secret is injected";
  EXPECT_TRUE(here["ok"].get<bool>()) << here.dump();
  if (!exists("/etc/ssl/certs/ca-certificates.crt")) GTEST_SKIP() << "no system bundle here";
  EXPECT_EQ(here["detail"], "found; the unit's CA is added to it") << here.dump();

  CaptureSpec probe;
  probe.argv = {"unshare", "-rm", "true"};
  probe.env = {"PATH=/usr/bin:/bin:/usr/sbin:/sbin"};
  auto can = capture(probe);
  if (!can || can->exit_code != 0) GTEST_SKIP() << "no unprivileged mount namespace here";
  CaptureSpec spec;
  spec.argv = {"unshare",
               "-rm",
               "sh",
               "-c",
               "mount -t tmpfs none /etc/ssl && "
               "{ [ ! -d /etc/pki ] || mount -t tmpfs none /etc/pki; } && exec \"$@\"",
               "sh",
               awaywork_binary(),
               "--config",
               config,
               "doctor",
               "--json"};
  for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
  auto hidden = ca_check(run_captured(spec));
  ASSERT_TRUE(hidden.is_object());
  EXPECT_TRUE(hidden["ok"].get<bool>()) << "a warning, not a failure: " << hidden.dump();
  std::string detail = hidden["detail"];
  EXPECT_EQ(detail.rfind("warning; no system CA bundle was found", 0), 0u) << detail;
  EXPECT_NE(detail.find("apt-get install ca-certificates"), std::string::npos) << detail;
}

// ---- a real git clone inside the unit: the config's basic: {user: ...} form, end to end ----

// The agent clones a private dependency with the real git (GIT_SSL_CAINFO is the unit's bundle),
// from the test server tests/fakes/private_registry.py (git http-backend behind Basic auth, over
// TLS with a test certificate the test hook makes the proxy trust). The agent has no credential:
// only DEPLOY_PASSWORD's placeholder, and git never prompts.
class InjectedGit : public Injected {
 protected:
  void SetUp() override {
    Injected::SetUp();
    if (HasFatalFailure()) return;
    reg_cert_ = make_test_cert(root, "registry", {"git.example.test"});
    ASSERT_FALSE(reg_cert_.cert.empty()) << "the openssl CLI made no certificate";
    reg_log_ = root + "/registry.log";
    std::string line = spawn_fake(
        {"/usr/bin/python3", std::string(AW_SOURCE_DIR) + "/tests/fakes/private_registry.py",
         "--root", root + "/registry", "--cert", reg_cert_.cert, "--key", reg_cert_.key, "--user",
         "deploy", "--password", kDeployPass, "--log", reg_log_, "--git-repo", "private-dep"},
        &reg_pid_);
    ASSERT_FALSE(line.empty()) << "the test registry did not start";
    std::string url =
        fmt::format("https://git.example.test:{}/git/private-dep.git", std::stoi(line));
    write_config(
        agent_script("clone",
                     "case \"$DEPLOY_PASSWORD\" in awaywork-placeholder-DEPLOY_PASSWORD-*) "
                     "echo PLACEHOLDER yes;; esac\n"
                     "GIT_TERMINAL_PROMPT=0 git clone -q " +
                         url +
                         " \"$AWAYWORK_OUTPUTS/dep\"\n"
                         "echo \"CLONED $(cat \"$AWAYWORK_OUTPUTS/dep/README\")\"\n"),
        "",
        "sandbox:\n  network: allowlist\n  allow: [git.example.test]\n"
        "secrets:\n  DEPLOY_PASSWORD:\n"
        "    inject: [{host: git.example.test, basic: {user: deploy}, methods: [GET, POST], "
        "paths: [/git/]}]\n");
  }

  void TearDown() override {
    if (reg_pid_ > 0) {
      ::kill(reg_pid_, SIGTERM);
      ::waitpid(reg_pid_, nullptr, 0);
    }
    Injected::TearDown();
  }

  TestCert reg_cert_;
  pid_t reg_pid_ = -1;
  std::string reg_log_;
};

TEST_F(InjectedGit, ARealGitCloneGetsTheBasicCredentialsTheAgentNeverHolds) {
  store_secret("DEPLOY_PASSWORD", kDeployPass);
  auto r = run_unit("clone the private dependency", {},
                    {"AWAYWORK_TEST_EGRESS_UPSTREAM=" + reg_cert_.cert + " git.example.test"});
  const auto& u = r.record;
  ASSERT_TRUE(u.is_object()) << r.out << r.err;
  EXPECT_EQ(u["sandbox"].get<std::string>().rfind("sandboxed:", 0), 0u) << u["sandbox"];
  ASSERT_FALSE(u["phases"].empty()) << r.out << r.err;
  std::string run_dir = u["run_dir"];
  std::string transcript = read(run_dir + "/transcript.log");
  EXPECT_NE(transcript.find("PLACEHOLDER yes"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("CLONED private dependency ok"), std::string::npos) << transcript;

  // Positive control: the server got the credentials on each of git's requests (the ref
  // advertisement, then the upload-pack POST): they came from the proxy.
  ASSERT_NO_FATAL_FAILURE(expect_every_git_request_authorized(reg_log_, kDeployBasic));
  std::string egress = read(run_dir + "/egress.log");
  EXPECT_NE(egress.find(R"("injected":"DEPLOY_PASSWORD")"), std::string::npos) << egress;

  // Nowhere the value or its Basic encoding: stdout/stderr, the whole state folder (the clone in
  // the outputs, the transcript, the egress log, the record).
  for (const std::string& v : {kDeployPass, kDeployBasic})
    expect_held_nowhere(r, root + "/state", v);
  EXPECT_FALSE(files_holding(root + "/state", "private dependency ok").empty())
      << "the scan reads the clone";
}

}  // namespace
}  // namespace aw::test
