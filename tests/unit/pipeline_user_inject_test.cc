// Secrets added at the egress proxy (issue 27) under isolation user, end to end: the real binary
// as the owner, the agent as the worker in its OS sandbox with network: allowlist. A real curl in
// the agent asks a bound host (a fake registry over real TLS with a test certificate, that answers
// only with the right Authorization header; reached through the test hook
// AWAYWORK_TEST_EGRESS_UPSTREAM) and gets its answer: the proxy added the secret. The agent sends
// the placeholder to another allowed host: refused. A probe from inside the worker's sandbox
// searches its environment, every /proc environ and cmdline it can open, and every file under
// HOME and the clone for the value (by its SHA-256: the probe never holds the value), with a
// control value committed in the clone that it must find. Needs root to make the users; skips
// otherwise (a failure under CI=true).
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../proxy/fake_model_upstream.h"
#include "base/sha256.h"
#include "inject_probe.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

// Shaped like a real npm token; fake.
const std::string kNpmToken = "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake4242";
// Committed in the clone: the probe must find it, so that "not found" means something.
const std::string kControl = "npm_CONTROLcontrolCONTROLcontrol77";

// The probe, committed in the repository (the worker runs it in its clone). Arguments NAME=SHA:LEN:
// every run of LEN bytes starting with "npm_" in a source whose SHA-256 is SHA is reported as
// FOUND NAME in SOURCE (the clone's path shown as CLONE).
constexpr const char* kProbe = R"(import glob, hashlib, os, sys
want = []
for a in sys.argv[1:]:
    name, _, rest = a.partition('=')
    sha, _, n = rest.partition(':')
    want.append((name, sha, int(n)))
sources = {'env': '\n'.join(k + '=' + v for k, v in os.environ.items()).encode()}
for p in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):
    try:
        sources[p] = open(p, 'rb').read()
    except OSError:
        pass
for top in (os.environ['HOME'], os.getcwd()):
    for d, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            try:
                sources[p] = open(p, 'rb').read()
            except OSError:
                pass
for p, data in sorted(sources.items()):
    found = set()
    i = data.find(b'npm_')
    while i >= 0:
        for name, sha, n in want:
            if hashlib.sha256(data[i:i + n]).hexdigest() == sha:
                found.add(name)
        i = data.find(b'npm_', i + 1)
    for name in sorted(found):
        print('FOUND', name, 'in', p.replace(os.getcwd(), 'CLONE'))
print('SCANNED', len(sources))
)";

TEST_F(UserPipeline, InjectedSecretReachesTheRegistryThroughCurlAndNothingInTheWorkersSandbox) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}, {"probe.py", kProbe}, {"control.txt", kControl + "\n"}});
  use_test_secret_store();
  store_secret("NPM_TOKEN", kNpmToken);
  ASSERT_EQ(sh(fmt::format("chown -R {0}: {1}/xdg && chmod 700 {1}/xdg", u->owner, root)), 0);
  // The certificate in root (711): the owner's proxy reads it by its path (the test hook).
  TestCert cert = make_test_cert(root, "reg", {"reg.example.test"});
  ASSERT_FALSE(cert.cert.empty()) << "the openssl CLI made no certificate";
  ASSERT_EQ(::chmod(cert.cert.c_str(), 0644), 0);
  FakeUpstreamOptions private_registry;
  private_registry.auth = "Bearer " + kNpmToken;  // 200 "private ok" with it, 401 without
  FakeModelUpstream bound(cert, private_registry);
  FakeModelUpstream other;  // plain HTTP, another allowed host

  std::string agent = agent_script(
      "curl",
      fmt::format(
          "case \"$NPM_TOKEN\" in awaywork-placeholder-NPM_TOKEN-*) echo PLACEHOLDER yes;; esac\n"
          // No credential in the request: the proxy adds it.
          "echo \"BOUND $(curl -sS --max-time 30 https://reg.example.test:{0}/pkg/left-pad "
          "2>&1)\"\n"
          "echo \"ELSEWHERE $(curl -sS --max-time 30 -o /dev/null -D - -H \"Authorization: "
          "Bearer $NPM_TOKEN\" http://other.test:{1}/x 2>&1 | tr -d '\\r' | "
          "grep -i '^x-awaywork-refused' || true)\"\n"
          "python3 probe.py SECRET={2}:{3} CONTROL={4}:{5}\n"
          "echo y > a.txt\n",
          bound.port(), other.port(), sha256_hex(kNpmToken), kNpmToken.size(), sha256_hex(kControl),
          kControl.size()));
  write_config(agent, "",
               "isolation: user\nworker_user: " + std::string(kWorker) +
                   "\nsandbox: {mode: required, limits: off, network: allowlist, allow: "
                   "[reg.example.test, other.test]}\n"
                   "secrets:\n  NPM_TOKEN:\n"
                   "    inject: [{host: reg.example.test, methods: [GET], paths: [/pkg/]}]\n");
  ::chmod(config.c_str(), 0644);

  auto r =
      run_as_owner("ask the private registry with curl",
                   {"XDG_CONFIG_HOME=" + root + "/xdg", "AWAYWORK_SECRET_BACKEND=file",
                    "AWAYWORK_TEST_EGRESS_UPSTREAM=" + cert.cert + " reg.example.test other.test"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record["state"], "done") << r.out;
  EXPECT_EQ(r.record["isolation"], "user");
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network allowlist", 0), 0u)
      << r.out;
  std::string run_dir = r.record["run_dir"];
  std::string transcript = read(run_dir + "/transcript.log");
  EXPECT_NE(transcript.find("PLACEHOLDER yes"), std::string::npos) << transcript;
  // The registry answered curl: the credential was there, and curl trusted the unit's CA.
  EXPECT_NE(transcript.find("BOUND private ok"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("deny placeholder-exfiltration NPM_TOKEN"), std::string::npos)
      << transcript;
  // The probe read the clone (it found the control) and found the value nowhere.
  EXPECT_NE(transcript.find("FOUND CONTROL in CLONE/control.txt"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("SCANNED "), std::string::npos) << transcript;
  EXPECT_EQ(transcript.find("FOUND SECRET"), std::string::npos) << transcript;

  // Positive control: the value exists, and the proxy put it where the rule says.
  auto seen = bound.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].target, "/pkg/left-pad");
  EXPECT_NE(seen[0].head.find("Authorization: Bearer " + kNpmToken + "\r\n"), std::string::npos)
      << seen[0].head;
  EXPECT_TRUE(other.seen().empty()) << "the placeholder never left for another host";
  std::string egress = read(run_dir + "/egress.log");
  EXPECT_NE(egress.find(R"("injected":"NPM_TOKEN")"), std::string::npos) << egress;
  EXPECT_NE(egress.find("deny placeholder-exfiltration NPM_TOKEN"), std::string::npos) << egress;

  // Nor anywhere of the owner's: stdout, stderr, the state folder (record, transcript, egress
  // log), nor the clone the unit leaves for inspection.
  expect_held_nowhere(r, root + "/state", kNpmToken);
  EXPECT_FALSE(files_holding(root + "/state", "BOUND private ok").empty())
      << "the scan reads the state";
  auto where = locations(r);
  if (where.is_object()) {
    std::string clone = where["clone"];
    EXPECT_EQ(files_holding(clone, kNpmToken), std::vector<std::string>{});
    EXPECT_FALSE(files_holding(clone, kControl).empty()) << "the scan reads the clone";
    fs::remove_all(fs::path(clone).parent_path());
  }
}

}  // namespace
}  // namespace aw::test
