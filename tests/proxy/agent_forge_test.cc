// The read-only forge for the agent (agent_forge: read, issue 27 item 2): the injection rule made
// from a repository's forge config (unit/agent_forge.h), in the egress proxy, in front of the fake
// GitHub (tests/fakes/fake_github.py, GHES mode over TLS with a test certificate), asked by a real
// curl and a real gh from inside the OS sandbox that hold only the placeholder. Reads of the
// repository get the token added; a write, or another repository, is refused and gets nothing.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../fakes/fake_github.h"
#include "inference_fixture.h"
#include "unit/agent_forge.h"

namespace aw {
namespace {

const std::string kHost = "api.github.test";

struct AgentForgeFixture : ::testing::Test {
  test::TempDir dir;
  test::TestCert cert;
  test::FakeGithub gh;
  std::string token;    // the fake user's token: the forge credential the proxy holds
  int64_t repo_id = 0;  // o/r's id, as the publisher's session reads it (GET /repos/o/r)
  int64_t other_id = 0;
  UnitInjection unit;
  std::unique_ptr<EgressProxy> proxy;
  std::mutex mu;
  std::vector<std::string> log;

  void SetUp() override {
    cert = test::make_test_cert(dir.path, "forge", {kHost});
    ASSERT_FALSE(cert.cert.empty()) << "the openssl CLI made no certificate";
    ASSERT_TRUE(gh.start(dir.path + "/gh", {"--tls", cert.cert, cert.key})) << gh.error();
    token = gh.add_user("o");
    ASSERT_FALSE(token.empty());
    gh.add_user("other");
    // Private: an anonymous read is a 404, so a 200 proves the token was added.
    nlohmann::json made =
        gh.control("POST", "repos", {{"owner", "o"}, {"name", "r"}, {"private", true}});
    ASSERT_TRUE(made.is_object() && made.contains("id")) << gh.error();
    repo_id = made["id"].get<int64_t>();
    nlohmann::json other = gh.control("POST", "repos", {{"owner", "other"}, {"name", "repo"}});
    ASSERT_TRUE(other.is_object() && other.contains("id")) << gh.error();
    other_id = other["id"].get<int64_t>();
    ASSERT_FALSE(gh.control("POST", "repos/o/r/issues", {{"title", "CI fails on main"}}).is_null());
    // The repository's forge config, as a user writes it: GHES at the fake's port.
    Config c;
    ForgeConfig f;
    f.name = "ghes";
    f.api_url = fmt::format("https://{}:{}/api/v3", kHost, gh.port());
    f.credential = "GH_TOKEN";
    c.forges["ghes"] = f;
    RepoConfig r;
    r.name = "web";
    r.forge.github = "o/r";
    r.forge.forge = "ghes";
    r.forge.agent_forge_read = true;
    auto ok = add_agent_forge(unit, c, r, token, repo_id);
    ASSERT_TRUE(ok) << ok.error().message;
    EgressProxyOptions o;
    o.socket_path = dir.path + "/egress.sock";
    o.allow = {kHost};
    o.static_hosts = {{kHost, "127.0.0.1"}};
    o.allow_private_upstream = true;
    o.ca_file = cert.cert;  // the fake's certificate, as the test hook would trust it
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> l(mu);
      log.push_back(line);
    };
    unit.into(o);
    auto p = EgressProxy::start(o);
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
  }

  std::string placeholder() {
    for (const auto& kv : unit.env)
      if (kv.starts_with("GH_TOKEN=")) return kv.substr(9);
    return "";
  }

  // argv in the sandbox with the unit's variables (the placeholder, GH_HOST...) and the unit's
  // CA as every client's trust (SSL_CERT_FILE for gh's Go, CURL_CA_BUNDLE for curl).
  test::Ran run(std::vector<std::string> argv) {
    std::string clone = dir.path + "/clone";
    EXPECT_TRUE(make_dirs(clone));
    EXPECT_TRUE(write_file(clone + "/ca.pem", proxy->ca_cert_pem(), 0644));
    SandboxPlan plan;
    plan.network = Network::allowlist;
    plan.proxy_socket = proxy->socket_path();
    plan.writable = {clone};
    plan.apply_limits = false;
    std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                                    "HOME=" + clone,
                                    "LANG=C",
                                    "GH_CONFIG_DIR=" + clone + "/gh",
                                    "GH_NO_UPDATE_NOTIFIER=1",
                                    "NO_COLOR=1",
                                    "SSL_CERT_FILE=" + clone + "/ca.pem",
                                    "CURL_CA_BUNDLE=" + clone + "/ca.pem"};
    env.insert(env.end(), unit.env.begin(), unit.env.end());
    test::Ran r = test::run_with(make_sandbox_launcher(plan), argv, clone, env);
    EXPECT_TRUE(r.started) << r.start_error;
    EXPECT_EQ(r.out.find(token), std::string::npos) << "the token reached the phase";
    EXPECT_EQ(r.err.find(token), std::string::npos);
    return r;
  }

  test::Ran curl(std::vector<std::string> args) {
    std::vector<std::string> argv = {"curl", "-sS", "--max-time", "30",
                                     "-D",   "-",   "-w",         "\nSTATUS %{http_code}\n"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
  }

  std::string url(const std::string& path) {
    return fmt::format("https://{}:{}/api/v3{}", kHost, gh.port(), path);
  }

  // The fake's API log entries for path (what reached GitHub, and as whom).
  std::vector<nlohmann::json> reached(const std::string& path) {
    std::vector<nlohmann::json> out;
    for (const auto& e : gh.log())
      if (e.value("path", "") == path) out.push_back(e);
    return out;
  }

  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> l(mu);
    return log;
  }

  void expect_token_nowhere() {
    for (const auto& l : lines()) EXPECT_EQ(l.find(token), std::string::npos) << l;
  }
};

using IsolateAgentForge = AgentForgeFixture;

TEST_F(IsolateAgentForge, CurlReadsItsRepositorysIssuesWithTheTokenAddedAndCannotWrite) {
  const std::string ph = placeholder();
  ASSERT_TRUE(ph.starts_with("awaywork-placeholder-AGENT_FORGE-")) << ph;
  // A read of the repository's issues: the proxy replaces the phase's placeholder header.
  auto r = curl({"-H", "Authorization: token " + ph, url("/repos/o/r/issues")});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("\nSTATUS 200\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("CI fails on main"), std::string::npos) << r.out;
  auto seen = reached("/repos/o/r/issues");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0]["login"], "o") << seen[0].dump() << ": the token was added";
  bool injected = false;
  for (const auto& l : lines())
    injected = injected || (l.find(R"("method":"GET")") != std::string::npos &&
                            l.find(R"("injected":"AGENT_FORGE")") != std::string::npos);
  EXPECT_TRUE(injected);
  // The repository itself, too (a path, not only a prefix).
  r = curl({url("/repos/o/r")});
  EXPECT_NE(r.out.find("\nSTATUS 200\n"), std::string::npos) << r.out << r.err;

  // A write to the same path: refused at the proxy, nothing reaches the forge.
  r = curl({"-X", "POST", "-H", "Authorization: token " + ph, "-H",
            "Content-Type: application/json", "-d", R"({"title":"pwned"})",
            url("/repos/o/r/issues")});
  EXPECT_NE(r.out.find("\nSTATUS 403\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("X-Awaywork-Refused: deny outside-rule AGENT_FORGE"), std::string::npos)
      << r.out;
  EXPECT_EQ(reached("/repos/o/r/issues").size(), 1u) << "the POST reached the fake";
  // Another repository, and the API's other corners: refused, never sent on bare.
  r = curl({"-H", "Authorization: token " + ph, url("/repos/other/repo/issues")});
  EXPECT_NE(r.out.find("\nSTATUS 403\n"), std::string::npos) << r.out << r.err;
  r = curl({url("/user")});
  EXPECT_NE(r.out.find("deny outside-rule AGENT_FORGE"), std::string::npos) << r.out;
  EXPECT_TRUE(reached("/repos/other/repo/issues").empty());
  EXPECT_TRUE(reached("/user").empty());
  size_t refused = 0;
  for (const auto& l : lines()) {
    if (l.find(R"("rule":"deny outside-rule AGENT_FORGE")") == std::string::npos) continue;
    ++refused;
    EXPECT_NE(l.find(R"("allowed":false)"), std::string::npos) << l;
    EXPECT_EQ(l.find("injected"), std::string::npos) << l;
  }
  EXPECT_EQ(refused, 3u);
  for (const auto& e : gh.log()) EXPECT_NE(e["write"], true) << e.dump();
  expect_token_nowhere();
}

TEST_F(IsolateAgentForge, CurlReadsByTheRepositorysIdButNotByALookAlikeId) {
  const std::string ph = placeholder();
  // GitHub's numeric form (what its pagination links name): the token added, as by name.
  const std::string mine = fmt::format("/repositories/{}/issues", repo_id);
  auto r = curl({"-H", "Authorization: token " + ph, url(mine)});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("\nSTATUS 200\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("CI fails on main"), std::string::npos) << r.out;
  auto seen = reached(mine);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0]["login"], "o") << seen[0].dump() << ": the token was added";
  // Another repository's id, and ids that merely start with this one's: refused at the proxy.
  for (const std::string& bad : {fmt::format("/repositories/{}/issues", other_id),
                                 fmt::format("/repositories/{}0/issues", repo_id),
                                 fmt::format("/repositories/{}1", repo_id)}) {
    r = curl({"-H", "Authorization: token " + ph, url(bad)});
    EXPECT_NE(r.out.find("\nSTATUS 403\n"), std::string::npos) << bad << r.out << r.err;
    EXPECT_NE(r.out.find("X-Awaywork-Refused: deny outside-rule AGENT_FORGE"), std::string::npos)
        << bad << r.out;
    EXPECT_TRUE(reached(bad).empty()) << bad;
  }
  // A write by id: refused too.
  r = curl({"-X", "POST", "-H", "Authorization: token " + ph, "-H",
            "Content-Type: application/json", "-d", R"({"title":"pwned"})", url(mine)});
  EXPECT_NE(r.out.find("\nSTATUS 403\n"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(reached(mine).size(), 1u) << "the POST reached the fake";
  for (const auto& e : gh.log()) EXPECT_NE(e["write"], true) << e.dump();
  expect_token_nowhere();
}

// What the phase can read: its environment, every /proc entry it can open, its folder's files.
constexpr const char* kProbe = R"(
import glob, os
seen = [k + '=' + v for k, v in os.environ.items()]
for p in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):
    try:
        seen.append(open(p, 'rb').read().decode('latin-1'))
    except OSError:
        pass
for d, _, files in os.walk(os.getcwd()):
    for f in files:
        try:
            seen.append(open(os.path.join(d, f), 'rb').read(1 << 20).decode('latin-1'))
        except OSError:
            pass
print('\n'.join(seen))
)";

TEST_F(IsolateAgentForge, ThePhaseHoldsOnlyThePlaceholder) {
  auto r = run({"python3", "-c", kProbe});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("GH_TOKEN=" + placeholder()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GH_ENTERPRISE_TOKEN=" + placeholder()), std::string::npos);
  EXPECT_NE(r.out.find(fmt::format("GH_HOST={}:{}", kHost, gh.port())), std::string::npos);
  // (run() checks that the token is in none of it.)
}

TEST_F(IsolateAgentForge, GhApiReadsThroughTheProxyAndItsWritesAreRefused) {
  if (::access("/usr/bin/gh", X_OK) != 0) AW_SKIP_OR_FAIL("gh is not installed");
  auto r = run({"gh", "api", "repos/o/r/issues", "--jq", ".[].title"});
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
  EXPECT_NE(r.out.find("CI fails on main"), std::string::npos) << r.out << r.err;
  auto seen = reached("/repos/o/r/issues");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0]["login"], "o") << seen[0].dump();
  r = run({"gh", "api", "-X", "POST", "repos/o/r/issues", "-f", "title=pwned"});
  EXPECT_NE(r.exit_code(), 0) << r.out;
  EXPECT_NE((r.out + r.err).find("403"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(reached("/repos/o/r/issues").size(), 1u) << "the POST reached the fake";
  expect_token_nowhere();
}

}  // namespace
}  // namespace aw
