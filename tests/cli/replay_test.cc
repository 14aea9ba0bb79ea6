// `awaywork replay ID [--latest]`: a new unit with the recorded repository, base commit, task,
// agent and profile, recorded with replay_of, in a fresh clone.
#include <gtest/gtest.h>

#include "../unit/unit_fixture.h"

namespace aw::test {
namespace {

class Replay : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    make_repo({{"a.txt", "a\n"}});
    // The agent records which commit it started from and leaves a mark in its clone (a replay
    // must not find the old clone's mark: its clone is new).
    write_config(agent_script("edit",
                              "git log -1 --format=%H > started-from.txt\n"
                              "test ! -e .left-by-first || echo reused > reused.txt\n"
                              "touch .left-by-first\n"),
                 "", "sandbox: {mode: off}\n");
  }
  std::string head() { return git({"rev-parse", "HEAD"}).substr(0, 40); }
  void commit_more() {
    git({"-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "--allow-empty", "-m",
         "later"});
  }
};

TEST_F(Replay, RepeatsTheRecordedTaskFromTheRecordedBaseInAFreshClone) {
  std::string first_base = head();
  auto first = run_unit("edit the file");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  std::string id = first.record.value("id", "");
  commit_more();
  ASSERT_NE(head(), first_base);

  auto again = awaywork({"replay", id.substr(0, 18), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  const auto& u = again.record;
  EXPECT_NE(u.value("id", ""), id);
  EXPECT_EQ(u.value("replay_of", ""), id);
  EXPECT_EQ(u.value("state", ""), "done");
  EXPECT_EQ(u.value("prompt", ""), "edit the file");
  EXPECT_EQ(u.value("agent", ""), first.record.value("agent", ""));
  EXPECT_EQ(u.value("base_commit", ""), first_base);
  EXPECT_NE(u.value("run_dir", ""), first.record.value("run_dir", ""));
  std::string patch = read(u.value("run_dir", "") + "/patch.diff");
  EXPECT_NE(patch.find("+" + first_base), std::string::npos) << patch;
  EXPECT_EQ(patch.find("reused"), std::string::npos) << patch;
}

TEST_F(Replay, LatestStartsFromTheBaseBranchsHead) {
  auto first = run_unit("edit the file");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  commit_more();
  auto again = awaywork({"replay", first.record.value("id", ""), "--latest", "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(again.record.value("base_commit", ""), head());
  EXPECT_EQ(again.record.value("replay_of", ""), first.record.value("id", ""));
}

TEST_F(Replay, ABaseCommitNoLongerThereIsRefusedNamingLatest) {
  git({"-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "--allow-empty", "-m",
       "to be dropped"});
  auto first = run_unit("edit the file");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  // The published branch holds the base too: drop it with the commit.
  git({"branch", "-D", first.record.value("branch", "")});
  git({"reset", "-q", "--hard", "HEAD~1"});
  git({"reflog", "expire", "--expire=now", "--all"});
  git({"gc", "-q", "--prune=now"});
  auto again = awaywork({"replay", first.record.value("id", "")});
  EXPECT_EQ(again.exit_code, 2) << again.out << again.err;
  EXPECT_NE(again.err.find("no longer in repo"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--latest"), std::string::npos) << again.err;
}

TEST_F(Replay, AnUnknownUnitIsAUsageError) {
  auto r = awaywork({"replay", "19990101-nope"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("awaywork replay:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aw::test
