// The agent's session kept between a pull request's units (unit/session_keep.h, issue 26 item 6):
// only the provider's regular session files are copied (a link, a fifo or an oversized file is
// refused, and nothing outside HOME is reached through a link), owner-only, capped, redacted; the
// next unit of the same pull request gets them where its CLI looks for its new clone, and another
// pull request never does.
#include "unit/session_keep.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "base/fs.h"
#include "git_fixture.h"
#include "provider/resume.h"

namespace aw::test {
namespace {

const std::string kPull = "https://github.com/octo/web/pull/9";
const std::string kOther = "https://github.com/octo/web/pull/10";
const std::string kOld = "11111111-2222-4333-8444-555555555555";
const std::string kNew = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const std::string kProject = "-tmp-runs-a-work";  // the first unit's clone, /tmp/runs/a/work
const std::string kClone = "/srv/state/runs/b_2/work";
const std::string kNewProject = "-srv-state-runs-b-2-work";

mode_t mode_of(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

// Every regular file below dir, relative to it.
std::vector<std::string> files_below(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file()) out.push_back(std::filesystem::relative(it->path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

void set_mtime(const std::string& p, time_t sec) {
  struct timespec t[2] = {{sec, 0}, {sec, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), t, AT_SYMLINK_NOFOLLOW), 0) << p;
}

class SessionKeep : public ::testing::Test {
 protected:
  void SetUp() override {
    state = tmp.path + "/state";
    home = tmp.path + "/home";
    next_home = tmp.path + "/next-home";
    outside = tmp.path + "/outside";
    ASSERT_TRUE(make_dirs(state));
    ASSERT_TRUE(make_dirs(home + "/.claude/projects/" + kProject));
    ASSERT_TRUE(make_dirs(next_home));
    ASSERT_TRUE(make_dirs(outside));
    ASSERT_TRUE(write_file(outside + "/secret.jsonl", "THE OWNER'S OWN FILE\n"));
  }
  std::string session(const std::string& id) const {
    return home + "/.claude/projects/" + kProject + "/" + id + ".jsonl";
  }
  SessionKey key(const std::string& pull = kPull, const char* provider = "claude") const {
    return {state, pull, find_provider(provider)};
  }
  Status keep(const SessionCaps& caps = {}, const std::vector<std::string>& literals = {}) {
    return keep_agent_session(key(), home, literals, notes, caps);
  }
  std::string all_notes() const {
    std::string s;
    for (const auto& n : notes) s += n + "\n";
    return s;
  }

  TempDir tmp;
  std::string state, home, next_home, outside;
  std::vector<std::string> notes;
};

TEST_F(SessionKeep, TheSessionIsKeptOwnerOnlyAndTheNextUnitOfThePullRequestGetsIt) {
  ASSERT_TRUE(write_file(session(kOld), "{\"turn\":\"old\"}\n", 0644));
  ASSERT_TRUE(write_file(session(kNew), "{\"turn\":\"new\"}\n", 0644));
  set_mtime(session(kOld), 1000);
  set_mtime(session(kNew), 2000);
  ASSERT_TRUE(write_file(home + "/.claude/projects/" + kProject + "/notes.txt", "not a session\n"));
  auto ok = keep();
  ASSERT_TRUE(ok) << ok.error().message;

  std::string folder = session_folder(key());
  EXPECT_EQ(mode_of(state + "/sessions"), 0700u);
  EXPECT_EQ(mode_of(folder), 0700u);
  EXPECT_EQ(files_below(folder),
            (std::vector<std::string>{"claude/" + kProject + "/" + kOld + ".jsonl",
                                      "claude/" + kProject + "/" + kNew + ".jsonl", "pull"}));
  EXPECT_EQ(mode_of(folder + "/claude/" + kProject + "/" + kNew + ".jsonl"), 0600u);

  auto id = hand_agent_session(key(), next_home, kClone, notes);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, kNew) << "the newest session is the one resumed";
  std::string at = next_home + "/.claude/projects/" + kNewProject + "/";
  EXPECT_EQ(read_file(at + kNew + ".jsonl").value_or(""), "{\"turn\":\"new\"}\n");
  EXPECT_EQ(read_file(at + kOld + ".jsonl").value_or(""), "{\"turn\":\"old\"}\n");
  EXPECT_EQ(mode_of(at + kNew + ".jsonl"), 0600u);
  EXPECT_EQ(mode_of(next_home + "/.claude"), 0700u);
  EXPECT_EQ(files_below(next_home).size(), 2u) << "the session files only";
}

TEST_F(SessionKeep, AnotherPullRequestOrProviderNeverGetsThem) {
  ASSERT_TRUE(write_file(session(kNew), "{\"turn\":\"pull 9\"}\n"));
  ASSERT_TRUE(keep());
  EXPECT_NE(session_folder(key()), session_folder(key(kOther)));
  EXPECT_NE(session_folder(key()), session_folder(key("https://github.com/other/web/pull/9")));
  auto id = hand_agent_session(key(kOther), next_home, kClone, notes);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, "");
  EXPECT_TRUE(files_below(next_home).empty());
  // The same pull request with an agent of another provider: nothing of claude's.
  id = hand_agent_session(key(kPull, "codex"), next_home, kClone, notes);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, "");
  EXPECT_TRUE(files_below(next_home).empty());
  // A folder kept for another address (its name collides) is not handed over.
  ASSERT_TRUE(write_file(session_folder(key()) + "/pull", kOther + "\n"));
  id = hand_agent_session(key(), next_home, kClone, notes);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, "");
  EXPECT_TRUE(files_below(next_home).empty());
}

TEST_F(SessionKeep, LinksFifosAndOversizedFilesAreRefusedAndNothingOutsideIsRead) {
  const std::string linked = "33333333-2222-4333-8444-555555555555";
  const std::string fifo = "44444444-2222-4333-8444-555555555555";
  const std::string big = "55555555-2222-4333-8444-555555555555";
  ASSERT_EQ(::symlink((outside + "/secret.jsonl").c_str(), session(linked).c_str()), 0);
  ASSERT_EQ(::mkfifo(session(fifo).c_str(), 0600), 0);
  ASSERT_TRUE(write_file(session(big), std::string(4096, 'x')));
  // A project folder that is a link to a folder outside HOME holding a session-shaped file.
  ASSERT_TRUE(write_file(outside + "/" + kNew + ".jsonl", "OUTSIDE\n"));
  ASSERT_EQ(::symlink(outside.c_str(), (home + "/.claude/projects/-evil").c_str()), 0);
  ASSERT_TRUE(write_file(session(kOld), "{\"turn\":\"real\"}\n"));
  SessionCaps caps;
  caps.file_bytes = 1024;
  auto ok = keep(caps);  // a fifo must not block: it is never opened
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(files_below(session_folder(key())),
            (std::vector<std::string>{"claude/" + kProject + "/" + kOld + ".jsonl", "pull"}));
  std::string said = all_notes();
  EXPECT_NE(said.find(linked + ".jsonl is a symbolic link: not kept"), std::string::npos) << said;
  EXPECT_NE(said.find(fifo + ".jsonl is a fifo: not kept"), std::string::npos) << said;
  EXPECT_NE(said.find(big + ".jsonl is larger than"), std::string::npos) << said;
  EXPECT_NE(said.find("-evil is a symbolic link: not kept"), std::string::npos) << said;
  EXPECT_EQ(read_file(outside + "/secret.jsonl").value_or(""), "THE OWNER'S OWN FILE\n");
}

TEST_F(SessionKeep, AHomeWhoseClaudeFolderIsALinkKeepsNothing) {
  ASSERT_TRUE(remove_tree(home + "/.claude"));
  ASSERT_TRUE(make_dirs(outside + "/projects/" + kProject));
  ASSERT_TRUE(write_file(outside + "/projects/" + kProject + "/" + kNew + ".jsonl", "OUTSIDE\n"));
  ASSERT_EQ(::symlink(outside.c_str(), (home + "/.claude").c_str()), 0);
  ASSERT_TRUE(keep());
  EXPECT_FALSE(exists(session_folder(key())));
}

TEST_F(SessionKeep, TheNewestFilesAreKeptUpToTheCapsAndRedacted) {
  const std::string token = "ghp_" + std::string(36, 'F');
  std::vector<std::string> ids = {kOld, "22222222-2222-4333-8444-555555555555", kNew};
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_TRUE(write_file(session(ids[i]), "{\"saw\":\"" + token + "\"}\n"));
    set_mtime(session(ids[i]), 1000 + static_cast<time_t>(i));
  }
  SessionCaps caps;
  caps.files = 2;
  ASSERT_TRUE(keep(caps, {token}));
  std::string folder = session_folder(key());
  EXPECT_EQ(files_below(folder),
            (std::vector<std::string>{"claude/" + kProject + "/" + ids[1] + ".jsonl",
                                      "claude/" + kProject + "/" + kNew + ".jsonl", "pull"}));
  EXPECT_NE(all_notes().find("1 older session file(s) left out"), std::string::npos) << all_notes();
  std::string kept = read_file(folder + "/claude/" + kProject + "/" + kNew + ".jsonl").value_or("");
  EXPECT_EQ(kept.find(token), std::string::npos) << kept;
  EXPECT_NE(kept.find("\"saw\""), std::string::npos) << kept;
}

TEST_F(SessionKeep, ANewKeepReplacesTheLastAndAnEmptyOneLeavesIt) {
  ASSERT_TRUE(write_file(session(kOld), "first\n"));
  ASSERT_TRUE(keep());
  ASSERT_TRUE(remove_tree(home + "/.claude/projects/" + kProject));
  ASSERT_TRUE(keep());  // the unit left no session: the earlier one stays
  EXPECT_EQ(files_below(session_folder(key())).size(), 2u);
  ASSERT_TRUE(make_dirs(home + "/.claude/projects/" + kProject));
  ASSERT_TRUE(write_file(session(kNew), "second\n"));
  ASSERT_TRUE(keep());
  EXPECT_EQ(files_below(session_folder(key())),
            (std::vector<std::string>{"claude/" + kProject + "/" + kNew + ".jsonl", "pull"}));
}

TEST_F(SessionKeep, CodexRolloutsKeepTheirDatedPlace) {
  std::string rel = "2026/12/06/rollout-2026-12-06T05-01-02-" + kNew + ".jsonl";
  ASSERT_TRUE(make_dirs(home + "/.codex/sessions/2026/12/06"));
  ASSERT_TRUE(write_file(home + "/.codex/sessions/" + rel, "{\"codex\":1}\n"));
  ASSERT_TRUE(write_file(home + "/.codex/sessions/2026/12/06/other.jsonl", "not a rollout\n"));
  ASSERT_TRUE(write_file(home + "/.codex/history.jsonl", "not a session\n"));
  ASSERT_TRUE(keep_agent_session(key(kPull, "codex"), home, {}, notes));
  auto id = hand_agent_session(key(kPull, "codex"), next_home, kClone, notes);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(*id, kNew);
  EXPECT_EQ(files_below(next_home), (std::vector<std::string>{".codex/sessions/" + rel}));
}

TEST_F(SessionKeep, TheLeastRecentlyKeptPullRequestsGoFirst) {
  ASSERT_TRUE(write_file(session(kNew), "s\n"));
  SessionCaps caps;
  caps.pulls = 2;
  for (int n = 1; n <= 3; ++n) {
    SessionKey k = key("https://github.com/octo/web/pull/" + std::to_string(n));
    ASSERT_TRUE(keep_agent_session(k, home, {}, notes, caps));
    set_mtime(session_folder(k), 1000 + n);
  }
  EXPECT_FALSE(exists(session_folder(key("https://github.com/octo/web/pull/1"))));
  EXPECT_TRUE(exists(session_folder(key("https://github.com/octo/web/pull/2"))));
  EXPECT_TRUE(exists(session_folder(key("https://github.com/octo/web/pull/3"))));
}

}  // namespace
}  // namespace aw::test
