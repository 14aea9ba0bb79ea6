// Where apply's forge credential goes: to a smart-HTTP remote behind Basic auth
// (http_test_server.h, a test server) through awaywork's askpass only, never on an argv, in a
// config or in a URL; never steered elsewhere by a planted git config; never over plain http to
// another host. All real git.
#include <dirent.h>

#include <atomic>
#include <thread>

#include "apply_fixture.h"
#include "git/git_internal.h"
#include "http_test_server.h"

namespace aw::test {
namespace {

// Shaped like a GitHub token, but fake.
const std::string kToken = "ghp_TESTONLYx9Qz0000000000000000000000aa";

// Watches every /proc/*/cmdline (and the scratch git dirs' config) while a push runs.
struct LeakScanner {
  std::string needle, scratch;
  std::atomic<bool> stop{false};
  std::atomic<int> git_cmdlines{0}, configs_read{0};
  std::vector<std::string> leaks;
  std::thread t;
  LeakScanner(std::string n, std::string s) : needle(std::move(n)), scratch(std::move(s)) {
    t = std::thread([this] { run(); });
  }
  void run() {
    while (!stop) {
      DIR* d = ::opendir("/proc");
      while (dirent* e = d ? ::readdir(d) : nullptr) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        auto c = read_file(std::string("/proc/") + e->d_name + "/cmdline");
        if (!c) continue;
        if (c->find("git") != std::string::npos) ++git_cmdlines;
        if (c->find(needle) != std::string::npos) leaks.push_back("cmdline: " + *c);
      }
      if (d) ::closedir(d);
      DIR* s = ::opendir(scratch.c_str());
      while (dirent* e = s ? ::readdir(s) : nullptr) {
        auto c = read_file(scratch + "/" + e->d_name + "/git/config");
        if (!c) continue;
        ++configs_read;
        if (c->find(needle) != std::string::npos) leaks.push_back("scratch config: " + *c);
      }
      if (s) ::closedir(s);
    }
  }
  void finish() {
    stop = true;
    t.join();
  }
};

TEST_F(ApplyTest, HttpRemoteGetsTheCredentialFromTheStoreAndNeverOnArgvConfigOrUrl) {
  GitHttpTestServer server(srv, "x-access-token", kToken);
  ASSERT_GT(server.port(), 0);
  std::string askpass_log = "/tmp/aw-askpass-argv-" + std::to_string(server.port()) + ".log";
  ::unlink(askpass_log.c_str());
  store.values["forge"] = kToken;
  ApplyTarget t = remote("http://127.0.0.1:" + std::to_string(server.port()) + "/r.git");
  t.credential = "forge";

  LeakScanner scan(kToken, scratch);
  auto r = publish(request(t));
  scan.finish();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->already_applied);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), r->commit);

  EXPECT_TRUE(scan.leaks.empty()) << scan.leaks.front();
  EXPECT_GT(scan.git_cmdlines, 0) << "the scanner saw no git process at all";
  EXPECT_GT(scan.configs_read, 0) << "the scanner never read the scratch git dir's config";
  EXPECT_GT(server.unauthorized(), 0);  // git first tried without, then asked awaywork
  EXPECT_GT(server.authorized(), 0);
  for (const auto& target : server.targets()) EXPECT_EQ(target.find(kToken), std::string::npos);
  std::string argv_log = slurp(askpass_log);
  EXPECT_NE(argv_log.find("Username for 'http://127.0.0.1:"), std::string::npos) << argv_log;
  EXPECT_NE(argv_log.find("Password for 'http://x-access-token@127.0.0.1:"), std::string::npos)
      << argv_log;
  EXPECT_EQ(argv_log.find(kToken), std::string::npos);
  EXPECT_EQ(sh_capture("grep -r -F " + sq(kToken) + " " + sq(scratch)).exit_code, 1);
  EXPECT_EQ(sh_capture("grep -r -F " + sq(kToken) + " " + sq(srv)).exit_code, 1);

  auto again = publish(request(t));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->already_applied);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), r->commit);
  ::unlink(askpass_log.c_str());
}

TEST_F(ApplyTest, WrongCredentialFailsClearlyAndPushesNothing) {
  GitHttpTestServer server(srv, "x-access-token", kToken);
  store.values["forge"] = "ghp_WRONGxx0000000000000000000000000000bb";
  ApplyTarget t = remote("http://127.0.0.1:" + std::to_string(server.port()) + "/r.git");
  t.credential = "forge";
  auto r = publish(request(t));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("refused the credential 'forge' (authentication failed)"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().message.find("ghp_"), std::string::npos);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), "");

  // No credential at all: git gets no answer (GIT_ASKPASS=/bin/false) and fails.
  ApplyTarget anon = remote(t.url);
  auto r2 = publish(request(anon));
  ASSERT_FALSE(r2);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), "");

  // A credential name the store does not have.
  t.credential = "absent";
  auto r3 = publish(request(t));
  ASSERT_FALSE(r3);
  EXPECT_NE(r3.error().message.find("credential 'absent'"), std::string::npos);
  ::unlink(("/tmp/aw-askpass-argv-" + std::to_string(server.port()) + ".log").c_str());
}

// Issue 41 item 6: the config of awaywork's own git dir (its mirror here), changed behind its back
// (as only an unconfined process could), must not steer the git that carries the token. A second
// server that would accept the same token stands in for the planter's proxy or host: anything it
// receives was sent away from the forge. Before the fix, http.proxy (and http.<url>.proxy and
// remote.<url>.proxy, which outrank a -c http.proxy= pin) sent the fetch and the token there.
TEST_F(ApplyTest, APlantedMirrorConfigNeverSendsTheTokenElsewhere) {
  GitHttpTestServer forge(srv, "x-access-token", kToken);
  std::string elsewhere_root = tmp.path + "/elsewhere";
  ASSERT_TRUE(make_dirs(elsewhere_root));
  GitHttpTestServer elsewhere(elsewhere_root, "x-access-token", kToken);
  ASSERT_GT(forge.port(), 0);
  ASSERT_GT(elsewhere.port(), 0);
  std::string forge_root = "http://127.0.0.1:" + std::to_string(forge.port()) + "/";
  std::string other = "http://127.0.0.1:" + std::to_string(elsewhere.port());
  store.values["forge"] = kToken;
  ApplyTarget t = remote(forge_root + "r.git");
  t.credential = "forge";
  std::string mirror = tmp.path + "/state/mirrors/r.git";
  {
    auto m = update_mirror(t, mirror, AW_TEST_ASKPASS);
    ASSERT_TRUE(m) << m.error().message;
  }
  ASSERT_GT(forge.authorized(), 0);
  const std::string own = slurp(mirror + "/config");
  const std::string config = mirror + "/config";
  std::string included = tmp.path + "/included.conf";
  ASSERT_TRUE(write_file(included, "[http]\n\tproxy = " + other + "\n", 0644));
  struct Plant {
    std::string text, named;  // what is appended to the config; what the error must name
  };
  std::vector<Plant> plants = {
      {"[http]\n\tproxy = " + other + "\n", "http.proxy in " + config},
      {"[http \"" + forge_root + "\"]\n\tproxy = " + other + "\n",
       "http." + forge_root + ".proxy in " + config},
      {"[remote \"" + t.url + "\"]\n\tproxy = " + other + "\n",
       "remote." + t.url + ".proxy in " + config},
      {"[url \"" + other + "/\"]\n\tinsteadOf = " + forge_root + "\n",
       "url." + other + "/.insteadof in " + config},
      {"[url \"" + other + "/\"]\n\tpushInsteadOf = " + forge_root + "\n",
       "url." + other + "/.pushinsteadof in " + config},
      {"[http]\n\textraHeader = X-Planted: 1\n", "http.extraheader in " + config},
      {"[http \"" + forge_root + "\"]\n\tfollowRedirects = true\n",
       "http." + forge_root + ".followredirects in " + config},
      {"[credential]\n\thelper = " + marker_script("helper") + "\n",
       "credential.helper in " + config},
      {"[core]\n\tsshCommand = " + marker_script("ssh") + "\n", "core.sshcommand in " + config},
      {"[core]\n\tgitProxy = " + marker_script("gitproxy") + "\n", "core.gitproxy in " + config},
      {"[include]\n\tpath = " + included + "\n", "http.proxy in " + included},
      {"[core]\n\tbare = false\n", "core.bare (not awaywork's value) in " + config},
  };
  for (const Plant& p : plants) {
    SCOPED_TRACE(p.text);
    ASSERT_TRUE(write_file(config, own + p.text, 0644));
    size_t forge_requests = forge.targets().size();
    auto m = update_mirror(t, mirror, AW_TEST_ASKPASS);
    if (m) {
      ADD_FAILURE() << "the mirror was fetched with this in its config";
      continue;
    }
    EXPECT_NE(m.error().message.find(p.named), std::string::npos) << m.error().message;
    EXPECT_NE(m.error().message.find("updating the mirror " + mirror), std::string::npos)
        << m.error().message;
    EXPECT_EQ(m.error().message.find(kToken), std::string::npos);
    EXPECT_EQ(forge.targets().size(), forge_requests) << "a request went out all the same";
  }
  std::vector<std::string> got = elsewhere.targets();
  EXPECT_TRUE(got.empty()) << got.size() << " requests reached the other server, the first "
                           << got.front();
  EXPECT_EQ(elsewhere.authorized(), 0) << "the token reached the other server";
  EXPECT_FALSE(exists(marker)) << slurp(marker);

  // awaywork's own config again: fetched as before.
  ASSERT_TRUE(write_file(config, own, 0644));
  auto m = update_mirror(t, mirror, AW_TEST_ASKPASS);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(elsewhere.targets().empty());
  ::unlink(("/tmp/aw-askpass-argv-" + std::to_string(forge.port()) + ".log").c_str());
}

// The push (publish's, from its scratch git dir) runs the same check: with a planted proxy it is
// refused before anything goes out.
TEST_F(ApplyTest, APushFromAGitDirWithAPlantedConfigIsRefused) {
  GitHttpTestServer forge(srv, "x-access-token", kToken);
  std::string elsewhere_root = tmp.path + "/elsewhere";
  ASSERT_TRUE(make_dirs(elsewhere_root));
  GitHttpTestServer elsewhere(elsewhere_root, "x-access-token", kToken);
  ASSERT_GT(forge.port(), 0);
  ASSERT_GT(elsewhere.port(), 0);
  std::string host = "127.0.0.1:" + std::to_string(forge.port());
  std::string dir = tmp.path + "/push-scratch";
  ASSERT_TRUE(gitx::make_borrowing_git_dir(dir, src.git_dir + "/objects", "sha1"));
  ASSERT_TRUE(gitx::check_own_config(dir));  // awaywork's own config passes
  ASSERT_TRUE(
      write_file(dir + "/config",
                 gitx::minimal_config(true, "sha1") + "[http \"http://" + host +
                     "/\"]\n\tproxy = http://127.0.0.1:" + std::to_string(elsewhere.port()) + "\n",
                 0644));
  auto env = gitx::askpass_env(AW_TEST_ASKPASS, host, "x-access-token", kToken);
  ASSERT_TRUE(env) << env.error().message;
  gitx::PushTarget to{.dest = "http://" + host + "/r.git",
                      .shown = "http://" + host + "/r.git",
                      .pre_args = {"-c", "protocol.http.allow=always", "-c", "http.proxy="},
                      .env = *env,
                      .remote = true};
  auto r = gitx::push_create(gitx::at(dir, {}), to, head, "refs/heads/awaywork/planted");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("http.http://" + host + "/.proxy in " + dir + "/config"),
            std::string::npos)
      << r.error().message;
  EXPECT_TRUE(elsewhere.targets().empty());
  EXPECT_EQ(elsewhere.authorized(), 0) << "the token reached the other server";
  EXPECT_TRUE(forge.targets().empty());
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/planted"), "");
}

TEST(ApplyRules, AwayworksOwnGitDirsPassTheConfigCheckAndAChangedValueDoesNot) {
  TempDir t;
  ASSERT_TRUE(gitx::make_own_git_dir(t.path + "/own"));
  auto own = gitx::check_own_config(t.path + "/own");
  EXPECT_TRUE(own) << own.error().message;
  ASSERT_TRUE(make_dirs(t.path + "/objects"));
  ASSERT_TRUE(gitx::make_borrowing_git_dir(t.path + "/sha256", t.path + "/objects", "sha256"));
  auto sha256 = gitx::check_own_config(t.path + "/sha256");
  EXPECT_TRUE(sha256) << sha256.error().message;
  ASSERT_TRUE(write_file(t.path + "/own/config",
                         gitx::minimal_config(true, "sha1") + "[gc]\n\tauto = 1\n", 0644));
  auto changed = gitx::check_own_config(t.path + "/own");
  ASSERT_FALSE(changed);
  EXPECT_NE(
      changed.error().message.find("gc.auto (not awaywork's value) in " + t.path + "/own/config"),
      std::string::npos)
      << changed.error().message;
  ASSERT_TRUE(write_file(t.path + "/own/config", "[core\n", 0644));  // git cannot read it
  auto broken = gitx::check_own_config(t.path + "/own");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("reading the config of " + t.path + "/own"),
            std::string::npos)
      << broken.error().message;
}

TEST(ApplyRules, RemoteUrlsWithASecretOrAHelperAreRefused) {
  EXPECT_TRUE(check_remote_url("https://git.example.com/o/r.git"));
  EXPECT_TRUE(check_remote_url("git://127.0.0.1:9418/r.git"));
  EXPECT_TRUE(check_remote_url("file:///srv/r.git"));
  EXPECT_TRUE(check_remote_url("https://bot@git.example.com/o/r.git"));
  for (std::string bad :
       {"https://bot:ghp_TESTONLY000000000000000000000000000000@git.example.com/o/r.git",
        "ext::sh -c touch% /tmp/x", "-uhttps://x/r", "ssh://git@example.com/r.git",
        "git@example.com:o/r.git", "http://host/r .git", ""})
    EXPECT_FALSE(check_remote_url(bad)) << bad;
  TempDir t;
  PublishRequest req;
  req.target.url = "https://bot:ghp_TESTONLY000000000000000000000000000000@h/r.git";
  req.unit_id = "u";
  req.base_commit = std::string(40, 'a');
  req.patch = "x";
  req.scratch_dir = t.path;
  auto r = publish(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("carries a password or token"), std::string::npos);
}

TEST(ApplyRules, ACredentialIsNeverSentOverPlainHttpToAnotherHost) {
  MemoryStore store;
  store.values["forge"] = kToken;
  TempDir t;
  PublishRequest req;
  req.target.url = "http://git.example.com/o/r.git";
  req.target.credential = "forge";
  req.target.secrets = &store;
  req.unit_id = "u";
  req.base_commit = std::string(40, 'a');
  req.patch = "x";
  req.scratch_dir = t.path;
  req.askpass = AW_TEST_ASKPASS;
  auto r = publish(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("unencrypted"), std::string::npos) << r.error().message;
  req.target.url = "git://git.example.com/o/r.git";
  r = publish(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("only an http(s) remote takes a credential"), std::string::npos)
      << r.error().message;
}

TEST(ApplyRules, AskpassAnswersOnlyForItsHost) {
  auto ask = [](const std::string& prompt) {
    CaptureSpec s;
    s.argv = {AW_TEST_ASKPASS, prompt};
    s.env = {"AWAYWORK_ASKPASS=1", "AWAYWORK_ASKPASS_HOST=127.0.0.1:1",
             "AWAYWORK_ASKPASS_USERNAME=bot", "AWAYWORK_ASKPASS_PASSWORD=" + kToken};
    auto r = capture(s);
    return r ? *r : Captured{};
  };
  EXPECT_EQ(ask("Username for 'http://127.0.0.1:1': ").out, "bot\n");
  EXPECT_EQ(ask("Password for 'http://bot@127.0.0.1:1': ").out, kToken + "\n");
  for (std::string other : {"Password for 'http://bot@evil.example:1': ",
                            "Password for 'http://bot@127.0.0.1:1.evil': ", "anything"}) {
    Captured c = ask(other);
    EXPECT_NE(c.exit_code, 0) << other;
    EXPECT_EQ(c.out, "") << other;
  }
  ::unlink("/tmp/aw-askpass-argv-1.log");
}

}  // namespace
}  // namespace aw::test
