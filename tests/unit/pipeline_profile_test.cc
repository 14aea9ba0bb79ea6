// Environment profiles end to end: the real binary, the real encrypted-file secret store, units in
// the default sandbox. A profile's vars and secrets reach every phase by name; the record names
// the secrets per phase and holds no value anywhere; a secret the agent prints is redacted; a
// missing secret fails the unit before any phase; no value is ever on a command line.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "proc/capture.h"
#include "secrets/store.h"
#include "unit_fixture.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

// Shaped like a real GitHub token (the pattern redactor knows it) and a plain one (only the literal
// list catches it). Both fake.
const std::string kGhToken = "ghp_" + std::string("FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6");
const std::string kPlain = "correct-horse-battery-staple-4711";

class Profiles : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    use_test_secret_store();
  }
  // A repo whose setup and check run seen.sh, and an agent that runs it too and prints secrets.
  void make_world(const std::string& profiles, const std::string& agent_body,
                  const std::string& repo_extra = "", const std::string& agent_extra = "") {
    make_repo({{"seen.sh",
                "set -eu\n"
                "h() { printf '%s' \"$1\" | sha256sum | cut -c1-64; }\n"
                "echo \"$AWAYWORK_PHASE var=${AW_TEST_VAR:-unset} gh=$(h \"${GH_FAKE_TOKEN:-}\") "
                "plain=$(h \"${PLAIN_SECRET:-}\")\" >> \"$AWAYWORK_OUTPUTS/seen\"\n"}});
    write_config(agent_script("agent", agent_body),
                 "    setup: [sh, seen.sh]\n    checks: [[sh, seen.sh]]\n" + repo_extra,
                 agent_extra + profiles);
  }
  static std::string sha256(const std::string& text) {
    auto r = capture({{"/usr/bin/sha256sum"}, {"PATH=/usr/bin:/bin"}, "", text});
    return r ? r->out.substr(0, 64) : "";
  }
  // Every file under dir (not following links), with its bytes.
  static std::vector<std::pair<std::string, std::string>> files_under(const std::string& dir) {
    std::vector<std::pair<std::string, std::string>> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::end(it); it.increment(ec)) {
      if (it->is_symlink() || !it->is_regular_file()) continue;
      std::ifstream in(it->path(), std::ios::binary);
      out.emplace_back(it->path(), std::string(std::istreambuf_iterator<char>(in), {}));
    }
    return out;
  }
  void expect_no_value_under(const std::string& dir) {
    auto files = files_under(dir);
    EXPECT_FALSE(files.empty()) << dir;
    for (const auto& [path, bytes] : files) {
      EXPECT_EQ(bytes.find(kGhToken), std::string::npos) << path;
      EXPECT_EQ(bytes.find(kPlain), std::string::npos) << path;
    }
  }
};

const std::string kProfiles =
    "profiles:\n  web:\n    vars: {AW_TEST_VAR: hello-var}\n"
    "    secrets: [GH_FAKE_TOKEN, PLAIN_SECRET]\n";

TEST_F(Profiles, VarsAndSecretsReachEveryPhaseAndTheRecordNamesOnlyTheSecrets) {
  store_secret("GH_FAKE_TOKEN", kGhToken);
  store_secret("PLAIN_SECRET", kPlain);
  make_world(kProfiles, "sh seen.sh\necho \"leak: $GH_FAKE_TOKEN and $PLAIN_SECRET\"\n",
             "    profile: web\n");
  auto r = run_unit("use the profile; a prompt that quotes " + kPlain);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto& u = r.record;
  EXPECT_EQ(u["profile"], "web");
  EXPECT_EQ(u["sandbox"].get<std::string>().rfind("sandboxed:", 0), 0u) << u["sandbox"];
  ASSERT_EQ(u["phases"].size(), 3u);
  for (const auto& p : u["phases"])
    EXPECT_EQ(p["secrets"], nlohmann::json({"GH_FAKE_TOKEN", "PLAIN_SECRET"})) << p.dump();
  std::string run_dir = u["run_dir"];
  std::string expect = "var=hello-var gh=" + sha256(kGhToken) + " plain=" + sha256(kPlain) + "\n";
  EXPECT_EQ(read(run_dir + "/outputs/seen"),
            "setup " + expect + "agent " + expect + "check 1 " + expect);
  std::string transcript = read(run_dir + "/transcript.log");
  EXPECT_NE(transcript.find("leak: [REDACTED] and [REDACTED]"), std::string::npos) << transcript;
  EXPECT_NE(u["prompt"].get<std::string>().find("quotes [REDACTED]"), std::string::npos);
  // Nowhere a value: stdout/stderr, the run folder (clone included), the database and its WAL.
  for (const std::string& text : {r.out, r.err}) {
    EXPECT_EQ(text.find(kGhToken), std::string::npos);
    EXPECT_EQ(text.find(kPlain), std::string::npos);
  }
  expect_no_value_under(run_dir);
  expect_no_value_under(root + "/state");
  auto show = awaywork({"show", u["id"]});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("secrets (by name): GH_FAKE_TOKEN, PLAIN_SECRET"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("profile web"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find(kPlain), std::string::npos);
}

TEST_F(Profiles, ASecretWrittenIntoThePatchIsRefusedAndNotRecorded) {
  store_secret("GH_FAKE_TOKEN", kGhToken);
  store_secret("PLAIN_SECRET", kPlain);
  make_world(kProfiles, "echo \"$PLAIN_SECRET\" > leaked.txt\n", "    profile: web\n");
  auto r = run_unit("leak into the patch");
  EXPECT_EQ(r.record["state"], "refused") << r.out << r.err;
  EXPECT_TRUE(r.record["branch"].get<std::string>().empty());
  std::string run_dir = r.record["run_dir"];
  EXPECT_EQ(read(run_dir + "/verdict.json").find(kPlain), std::string::npos);
  EXPECT_EQ(read(run_dir + "/patch.diff").find(kPlain), std::string::npos)
      << "the patch file is kept redacted";
}

TEST_F(Profiles, MissingSecretFailsTheUnitBeforeAnyPhaseNamingTheFix) {
  store_secret("GH_FAKE_TOKEN", kGhToken);
  make_world(kProfiles, "touch \"$AWAYWORK_OUTPUTS/agent-ran\"\n", "    profile: web\n");
  auto r = run_unit("needs a secret that is not stored");
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto& u = r.record;
  EXPECT_EQ(u["state"], "failed");
  EXPECT_TRUE(u["phases"].empty());
  std::string reason = u["reason"];
  EXPECT_NE(reason.find("secret PLAIN_SECRET of profile web is missing"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find("awaywork secret set PLAIN_SECRET"), std::string::npos) << reason;
  std::string run_dir = u["run_dir"];
  EXPECT_FALSE(exists(run_dir + "/outputs/agent-ran"));
  EXPECT_FALSE(exists(run_dir + "/outputs/seen"));
  auto show = awaywork({"show", u["id"], "--json"});
  EXPECT_EQ(show.record["state"], "failed");
}

TEST_F(Profiles, ASecretTooShortToRedactFailsTheUnitBeforeAnyPhase) {
  store_secret("GH_FAKE_TOKEN", kGhToken);
  store_secret("PLAIN_SECRET", "12345");
  make_world(kProfiles, "touch \"$AWAYWORK_OUTPUTS/agent-ran\"\n", "    profile: web\n");
  auto r = run_unit("short secret");
  EXPECT_EQ(r.record["state"], "failed") << r.out << r.err;
  EXPECT_TRUE(r.record["phases"].empty());
  std::string reason = r.record["reason"];
  EXPECT_NE(reason.find("secret PLAIN_SECRET of profile web is shorter than 6 bytes"),
            std::string::npos)
      << reason;
}

TEST_F(Profiles, UnknownProfileIsAUsageErrorNamingTheDefinedOnes) {
  make_world(kProfiles + "  ci: {vars: {X: y}}\n", "true\n");
  auto r = run_unit("x", {"--profile", "wbe"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown profile 'wbe'; configured profiles: ci, web"), std::string::npos)
      << r.err;
  auto units = awaywork({"units", "--json"});
  EXPECT_EQ(units.out.find("\"id\""), std::string::npos) << "no unit was made: " << units.out;
}

TEST_F(Profiles, TheFlagWinsOverTheReposProfileWhichWinsOverTheAgents) {
  std::string profiles =
      "profiles:\n  a: {vars: {AW_TEST_VAR: from-a}}\n  b: {vars: {AW_TEST_VAR: from-b}}\n"
      "  c: {vars: {AW_TEST_VAR: from-c}}\n";
  make_world(profiles, "sh seen.sh\n", "    profile: b\n", "    profile: a\n");
  auto by_repo = run_unit("repo's");
  ASSERT_EQ(by_repo.exit_code, 0) << by_repo.err;
  EXPECT_EQ(by_repo.record["profile"], "b");
  EXPECT_NE(read(by_repo.record["run_dir"].get<std::string>() + "/outputs/seen").find("var=from-b"),
            std::string::npos);
  auto by_flag = run_unit("flag's", {"--profile", "c"});
  ASSERT_EQ(by_flag.exit_code, 0) << by_flag.err;
  EXPECT_EQ(by_flag.record["profile"], "c");
  EXPECT_TRUE(by_flag.record["phases"][0]["secrets"].empty());
  EXPECT_NE(read(by_flag.record["run_dir"].get<std::string>() + "/outputs/seen").find("var=from-c"),
            std::string::npos);
}

TEST_F(Profiles, NoSecretValueIsOnAnyCommandLineWhileTheUnitRuns) {
  store_secret("GH_FAKE_TOKEN", kGhToken);
  store_secret("PLAIN_SECRET", kPlain);
  CmdlineScanner scanner({kGhToken, kPlain});
  // Positive control: the scanner does see a value planted in a sleep's argv (as its argv[0]).
  pid_t planted = ::fork();
  if (planted == 0) {
    ::execl("/bin/sleep", kPlain.c_str(), "600", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool seen = false;
  while (!seen) {
    seen = !scanner.pass().empty();
    int st = 0;
    if (::waitpid(planted, &st, WNOHANG) == planted) break;  // exec failed: not seen
  }
  ::kill(planted, SIGKILL);
  ::waitpid(planted, nullptr, 0);
  ASSERT_TRUE(seen) << "the scanner never found a value planted on a command line";
  ASSERT_TRUE(scanner.pass().empty());

  // The agent waits (with every phase's value in its environment) until the scanner has made
  // enough passes while it was alive, then ends.
  make_world(kProfiles,
             "sh seen.sh\n"
             "i=0; while [ ! -e \"$AWAYWORK_OUTPUTS/go\" ] && [ $i -lt 600 ]; do sleep 0.1; "
             "i=$((i+1)); done\n",
             "    profile: web\n");
  std::atomic<bool> done{false};
  std::vector<std::string> hits;
  int passes_while_agent = 0;
  std::thread scan([&] {
    while (!done) {
      for (auto& h : scanner.pass()) hits.push_back(h);
      // The agent's phase has begun once seen.sh wrote its line; count passes from then on.
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(root + "/state/runs", ec)) {
        std::string seen_file = e.path().string() + "/outputs/seen";
        if (read(seen_file).find("agent ") == std::string::npos) continue;
        if (++passes_while_agent == 20) std::ofstream(e.path().string() + "/outputs/go");
      }
    }
  });
  auto r = run_unit("sit still while scanned");
  done = true;
  scan.join();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_GE(passes_while_agent, 20) << "the agent phase ended before it was scanned";
  for (const auto& h : hits) ADD_FAILURE() << "a secret value on a command line: " << h;
}

// Notifier plugins (issue 28) end to end: the real binary runs a unit, then the owner's notifier
// in its sandbox with its declared secret from the store, given the unit's outcome as data. A
// notifier that fails, printing its secret, leaves the unit's outcome as it was and the record
// holds a note without the value; one changed since its approval does not run, and the note says
// what changed and how to approve it again.
class Notifiers : public Profiles {
 protected:
  void SetUp() override {
    Profiles::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "needs root for the plugin's cgroup limits";
  }
  void make_notifier(const std::string& body) {
    fs::create_directories(root + "/plugins/notify");
    std::ofstream(root + "/plugins/notify/notify.sh")
        << "#!/bin/sh\nread -r req\nprintf '%s\\n' \"$req\" > \"$HOME/request.json\"\n"
        << body;
    fs::permissions(root + "/plugins/notify/notify.sh", fs::perms::owner_all);
    make_repo({{"a.txt", "base\n"}});
    write_config(agent_script("agent", "echo changed > a.txt\n"), "",
                 "plugins:\n  run: true\n  notify:\n    kind: notifier\n    command: [" + root +
                     "/plugins/notify/notify.sh]\n    secrets: [NOTIFY_TOKEN]\n    timeout: 20s\n");
    // The owner approves it as it is now; a plugin not approved does not run.
    auto approved = awaywork({"plugin", "approve", "notify"});
    ASSERT_EQ(approved.exit_code, 0) << approved.out << approved.err;
  }
  std::string data() { return root + "/state/plugins/notify/data"; }
};

TEST_F(Notifiers, AUnitsEndReachesTheNotifierWithItsDeclaredSecret) {
  store_secret("NOTIFY_TOKEN", kPlain);
  make_notifier("[ \"$NOTIFY_TOKEN\" = " + kPlain +
                " ] && echo yes > \"$HOME/secret-ok\"\n"
                "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\\n'\n");
  auto r = run_unit("change a.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto& u = r.record;
  EXPECT_EQ(u["state"], "done");
  for (const auto& n : u["notes"])
    EXPECT_EQ(n.get<std::string>().find("notifier"), std::string::npos) << n;
  auto req = nlohmann::json::parse(read(data() + "/request.json"), nullptr, false);
  ASSERT_TRUE(req.is_object()) << read(data() + "/request.json");
  EXPECT_EQ(req["method"], "unit_ended");
  EXPECT_EQ(req["params"]["unit"], u["id"]);
  EXPECT_EQ(req["params"]["state"], "done");
  EXPECT_EQ(req["params"]["repo"], "src");
  EXPECT_EQ(read(data() + "/secret-ok"), "yes\n");
  EXPECT_EQ(r.out.find(kPlain), std::string::npos);
}

TEST_F(Notifiers, AFailingNotifierLeavesTheOutcomeAndANoteWithoutItsSecret) {
  store_secret("NOTIFY_TOKEN", kPlain);
  make_notifier("echo \"oops $NOTIFY_TOKEN\" >&2\nexit 3\n");
  auto r = run_unit("change a.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("notifier plugin notify failed at unit_ended (the unit's outcome stands)"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("exited 3"), std::string::npos) << notes;
  for (const std::string& text : {r.out, r.err}) EXPECT_EQ(text.find(kPlain), std::string::npos);
  expect_no_value_under(root + "/state/runs");
}

TEST_F(Notifiers, ANotifierChangedSinceApprovalDoesNotRunAndTheNoteSaysWhy) {
  store_secret("NOTIFY_TOKEN", kPlain);
  make_notifier("printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\\n'\n");
  std::ofstream(root + "/plugins/notify/notify.sh", std::ios::app) << "# one more line\n";
  auto r = run_unit("change a.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("plugin notify did not run: it changed since you approved it (file "
                       "notify.sh changed); review the change, then run awaywork plugin approve "
                       "notify"),
            std::string::npos)
      << notes;
  EXPECT_FALSE(exists(data() + "/request.json"));
}

}  // namespace
}  // namespace aw::test
