// A probe plugin's view of what the issue's list says it must not have (issue 28), each beside a
// positive control where one means anything: a declared secret with injection rules is never in
// the plugin (its egress proxy adds it for the rule's host, a real curl against a local TLS test
// server behind Basic auth, tests/fakes/private_registry.py), and ptrace is refused inside.
// The rest of the list (home, state, database, environment, undeclared host and secret, writes
// outside the data folder, a fork bomb, memory, time) is in call_test.cc.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../fakes/spawn_fake.h"
#include "call_fixture.h"
#include "plugin/injected_secrets.h"

namespace aw {
namespace {

using plugin_test::PluginCallTest;

// A deploy token's password, shaped like a GitLab token; fake.
const std::string kDeployPass = "glpat-FAKEfakeFAKEfake5678";
// base64("deploy:" + kDeployPass): what the proxy's Authorization carries, and nothing else may.
const std::string kDeployBasic = "ZGVwbG95OmdscGF0LUZBS0VmYWtlRkFLRWZha2U1Njc4";

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Every regular file under root that holds needle (the plugin's data folder after its call).
std::vector<std::string> files_holding(const std::string& root, const std::string& needle) {
  std::vector<std::string> out;
  std::FILE* f =
      ::popen(("grep -rlsF -e '" + needle + "' '" + root + "' 2>/dev/null").c_str(), "r");
  if (!f) return {"(grep did not run)"};
  std::string text;
  test::drain(::fileno(f), text);
  ::pclose(f);
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) out.push_back(l);
  return out;
}

// The plugin's declared secret DEPLOY_PASSWORD, given a rule `secrets: {DEPLOY_PASSWORD: {inject:
// [{host: pypi.example.test, basic: {user: deploy}}]}}` in the config, against the test registry
// over TLS (its certificate made with the openssl CLI; the plugin's proxy trusts it as the unit's
// does in the injection tests).
struct PluginInjectTest : PluginCallTest {
  std::string reg_cert, reg_key, reg_log;
  pid_t reg_pid = -1;
  uint16_t reg_port = 0;

  void SetUp() override {
    PluginCallTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    if (::access("/usr/bin/python3", X_OK) != 0) AW_SKIP_OR_FAIL("needs /usr/bin/python3");
    reg_cert = dir.path + "/registry.crt";
    reg_key = dir.path + "/registry.key";
    reg_log = dir.path + "/registry.log";
    std::string cmd =
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
        "-subj /CN=pypi.example.test -addext subjectAltName=DNS:pypi.example.test,DNS:other."
        "example.test -keyout " +
        reg_key + " -out " + reg_cert + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << "the openssl CLI made no certificate";
    std::string line = test::spawn_fake(
        {"/usr/bin/python3", std::string(AW_SOURCE_DIR) + "/tests/fakes/private_registry.py",
         "--root", dir.path + "/registry", "--cert", reg_cert, "--key", reg_key, "--user", "deploy",
         "--password", kDeployPass, "--log", reg_log, "--wheel", "privpkg==1.0"},
        &reg_pid);
    ASSERT_FALSE(line.empty()) << "the test registry did not start";
    reg_port = static_cast<uint16_t>(std::stoi(line));
    p.net = {"pypi.example.test", "other.example.test"};
    p.secrets = {"DEPLOY_PASSWORD"};
    host.test_static_hosts = {{"pypi.example.test", "127.0.0.1"},
                              {"other.example.test", "127.0.0.1"}};
    host.test_upstream_ca = reg_cert;
    host.secret = [](const std::string& name) -> Result<std::string> {
      if (name == "DEPLOY_PASSWORD") return kDeployPass;
      return fail("no secret {}", name);
    };
    InjectRule rule;
    rule.host = "pypi.example.test";
    rule.basic_user = "deploy";
    host.inject["DEPLOY_PASSWORD"] = {rule};
  }

  void TearDown() override {
    if (reg_pid > 0) {
      ::kill(reg_pid, SIGTERM);
      ::waitpid(reg_pid, nullptr, 0);
    }
  }

  // The probe: where the value is (its environment, its files), whether it holds a placeholder,
  // what the registry answers its request over https, and what the proxy does with the
  // placeholder sent to another host in clear.
  void probe_script() {
    std::string port = std::to_string(reg_port);
    script("env | grep -qF -e '" + kDeployPass + "' && seen=\"$seen value-in-env\"\n" +
           "grep -rqsF -e '" + kDeployPass + "' \"$HOME\" /tmp && seen=\"$seen value-in-files\"\n" +
           "case \"$DEPLOY_PASSWORD\" in awaywork-placeholder-DEPLOY_PASSWORD-*) "
           "seen=\"$seen placeholder\";; esac\n"
           "code=$(curl -s -m 10 -o \"$HOME/index.html\" -w '%{http_code}' "
           "https://pypi.example.test:" +
           port + "/simple/privpkg/)\n" + "seen=\"$seen private=$code\"\n" +
           "grep -q privpkg \"$HOME/index.html\" 2>/dev/null && seen=\"$seen index\"\n" +
           "code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -H \"X-Token: $DEPLOY_PASSWORD\" "
           "http://other.example.test:" +
           port + "/simple/privpkg/)\n" + "seen=\"$seen other=$code\"\n");
  }

  std::vector<nlohmann::json> registry_lines() {
    std::vector<nlohmann::json> out;
    std::istringstream in(read_or_empty(reg_log));
    for (std::string l; std::getline(in, l);) {
      auto j = nlohmann::json::parse(l, nullptr, false);
      if (!j.is_discarded()) out.push_back(j);
    }
    return out;
  }
};

TEST_F(PluginInjectTest, ASecretWithRulesIsAddedAtTheProxyAndNeverInThePlugin) {
  probe_script();
  EXPECT_EQ(seen(), " placeholder private=200 index other=403");
  // The registry got the request with the credentials the proxy added, and no other request.
  auto got = registry_lines();
  ASSERT_EQ(got.size(), 1u) << read_or_empty(reg_log);
  EXPECT_EQ(got[0].value("path", ""), "/simple/privpkg/");
  EXPECT_EQ(got[0].value("authorization", ""), "Basic " + kDeployBasic);
  EXPECT_EQ(got[0].value("status", 0), 200);
  // The plugin's egress log names the secret added and the placeholder refused, never the value.
  std::string egress = read_or_empty(state + "/plugins/probe/egress.log");
  EXPECT_NE(egress.find(R"("injected":"DEPLOY_PASSWORD")"), std::string::npos) << egress;
  EXPECT_NE(egress.find("placeholder-exfiltration"), std::string::npos) << egress;
  EXPECT_EQ(egress.find(kDeployPass), std::string::npos) << egress;
  EXPECT_EQ(egress.find(kDeployBasic), std::string::npos) << egress;
  // Nothing the plugin kept holds it, nor does its call's folder (the CA bundle) outlive the call.
  EXPECT_EQ(files_holding(state + "/plugins", kDeployPass), std::vector<std::string>{});
  EXPECT_EQ(files_holding(state + "/plugins", kDeployBasic), std::vector<std::string>{});
}

// The positive control: the same secret without rules is handed by value, as before: the probe
// finds it in its environment, and the registry, reached through a plain tunnel the plugin cannot
// verify, got nothing from the proxy.
TEST_F(PluginInjectTest, WithoutRulesTheSameSecretIsHandedByValueAndTheProbeSeesIt) {
  host.inject.clear();
  probe_script();
  std::string s = seen();
  EXPECT_NE(s.find(" value-in-env"), std::string::npos) << s;
  EXPECT_EQ(s.find(" placeholder"), std::string::npos) << s;
  EXPECT_EQ(s.find("private=200"), std::string::npos) << s;
  for (const auto& l : registry_lines()) EXPECT_NE(l.value("status", 0), 200) << l.dump();
}

// A rule for a host the plugin does not declare could never be used: refused before anything of
// the plugin runs, with the fix; the value is not read into any environment.
TEST_F(PluginInjectTest, ARuleForNoDeclaredHostRefusesTheCallBeforeItRuns) {
  p.net = {"other.example.test"};
  script("touch \"$HOME/ran\"");
  auto r = call();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("its secret DEPLOY_PASSWORD is added by the egress proxy only "
                                   "for pypi.example.test"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("fix: add the host to plugins.probe.net"), std::string::npos)
      << r.error().message;
  EXPECT_FALSE(file_exists(data() + "/ran"));
}

// Without root: which declared secrets go by value and which the proxy adds, the placeholder's
// shape, only the rules for the plugin's own hosts, and the config's rules reaching the host.
TEST(PluginInjection, RulesForItsHostsArePlaceholdersTheRestGoByValue) {
  PluginConfig p;
  p.name = "probe";
  p.net = {"PyPI.example.test"};
  p.secrets = {"DEPLOY_PASSWORD", "PLAIN_TOKEN"};
  PluginHost host;
  InjectRule mine, other;
  mine.host = "pypi.example.test";
  mine.basic_user = "deploy";
  other.host = "npm.example.test";
  host.inject["DEPLOY_PASSWORD"] = {mine, other};
  host.secret = [](const std::string& name) -> Result<std::string> {
    if (name == "DEPLOY_PASSWORD") return kDeployPass;
    return std::string("xoxb-0000000000-fake-plain-token");
  };
  auto inj = plugin_injection(p, host);
  ASSERT_TRUE(inj) << inj.error().message;
  EXPECT_EQ(inj->by_name, std::vector<std::string>{"PLAIN_TOKEN"});
  ASSERT_EQ(inj->rules.size(), 1u);  // npm.example.test is no host of the plugin's
  EXPECT_EQ(inj->rules[0].host, "pypi.example.test");
  EXPECT_EQ(inj->rules[0].value, kDeployPass);
  EXPECT_EQ(inj->rules[0].basic_user, "deploy");
  ASSERT_EQ(inj->env.size(), 1u);
  const std::string prefix = "DEPLOY_PASSWORD=awaywork-placeholder-DEPLOY_PASSWORD-";
  ASSERT_EQ(inj->env[0].rfind(prefix, 0), 0u) << inj->env[0];
  EXPECT_EQ(inj->env[0].size(), prefix.size() + 32) << inj->env[0];
  EXPECT_EQ(inj->env[0].find(kDeployPass), std::string::npos);
  ASSERT_EQ(inj->placeholders.size(), 1u);
  EXPECT_EQ(inj->placeholders.begin()->second, "DEPLOY_PASSWORD");
  EXPECT_NE(inj->ca, nullptr);
  // A new placeholder each call.
  auto again = plugin_injection(p, host);
  ASSERT_TRUE(again);
  EXPECT_NE(again->env, inj->env);
  // A missing secret is refused with the command that stores it.
  host.secret = [](const std::string& name) -> Result<std::string> {
    return fail("no secret {} in the store", name);
  };
  auto missing = plugin_injection(p, host);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("awaywork secret set DEPLOY_PASSWORD"), std::string::npos)
      << missing.error().message;
  // Nothing declared with rules: nothing for the proxy, no CA.
  p.secrets = {"PLAIN_TOKEN"};
  auto plain = plugin_injection(p, host);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->empty());
  EXPECT_EQ(plain->ca, nullptr);
  // The config's secrets: with rules reach the plugin host; one without rules does not.
  Config cfg;
  cfg.secrets["DEPLOY_PASSWORD"] = SecretConfig{"DEPLOY_PASSWORD", {mine}, 3};
  cfg.secrets["BARE"] = SecretConfig{"BARE", {}, 5};
  PluginHost from = plugin_host(cfg);
  ASSERT_EQ(from.inject.count("DEPLOY_PASSWORD"), 1u);
  EXPECT_EQ(from.inject["DEPLOY_PASSWORD"].size(), 1u);
  EXPECT_EQ(from.inject.count("BARE"), 0u);
}

// ptrace: the plugin may not attach to a process, not even its own child (seccomp refuses the
// call, as for every sandboxed phase). The positive control: the same program attaches on the host.
TEST_F(PluginCallTest, PtraceIsRefusedInsideThePlugin) {
  if (::access("/usr/bin/python3", X_OK) != 0) AW_SKIP_OR_FAIL("needs /usr/bin/python3");
  // PTRACE_ATTACH (16) to a child that waits; exit 0 when it attached, 1 when refused.
  const std::string attach =
      "import ctypes, os, signal, sys\n"
      "libc = ctypes.CDLL(None, use_errno=True)\n"
      "pid = os.fork()\n"
      "if pid == 0:\n"
      "    signal.pause()\n"
      "    os._exit(0)\n"
      "rc = libc.ptrace(16, pid, 0, 0)\n"
      "err = ctypes.get_errno()\n"
      "os.kill(pid, signal.SIGKILL)\n"
      "os.waitpid(pid, 0)\n"
      "print('attached' if rc == 0 else 'refused errno %d' % err)\n"
      "sys.exit(0 if rc == 0 else 1)\n";
  ASSERT_TRUE(write_file(plugdir + "/attach.py", attach, 0644));
  script("/usr/bin/python3 " + plugdir + "/attach.py > \"$HOME/ptrace.txt\" 2>&1 && " +
         "seen=\"$seen attached\"\n" + "[ -s \"$HOME/ptrace.txt\" ] && seen=\"$seen ran\"\n");
  EXPECT_EQ(seen(), " ran") << read_or_empty(data() + "/ptrace.txt");
  EXPECT_NE(read_or_empty(data() + "/ptrace.txt").find("refused"), std::string::npos)
      << read_or_empty(data() + "/ptrace.txt");
  // Positive control: the same program, run by the test on the host, attaches.
  EXPECT_EQ(std::system(("/usr/bin/python3 " + plugdir + "/attach.py >/dev/null 2>&1").c_str()), 0);
}

}  // namespace
}  // namespace aw
