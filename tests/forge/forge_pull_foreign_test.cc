// A pull request that is not awaywork's (issue 26): an admitted person's command makes awaywork
// open its own draft pull request against that branch, which it never pushes to; a fork's pull
// request gets a branch here and a compare link, never a push; a stranger's command starts nothing.
#include "forge_pull_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

// A person's pull request (ForeignPullOf), followed up by run --pr.
class ForgeForeignPull : public ForeignPullOf<ForgePull> {};

TEST_F(ForgeForeignPull, AnAdmittedCommandOpensADraftPullRequestAgainstItsBranch) {
  human_pull();
  comment(pull, "maint", "/awaywork also add d.txt with one line");
  write_agent(
      "cat > \"$AWAYWORK_OUTPUTS/task.txt\"\n"
      "printf 'delta\\n' > d.txt");
  auto u = run_pr();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  std::string mine = "awaywork/" + u["id"].get<std::string>();

  // The person's branch is as they left it; awaywork's branch is one commit on top of it.
  EXPECT_EQ(fake_git("rev-parse refs/heads/feature"), head);
  EXPECT_EQ(fake_git("rev-parse " + mine + "^"), head);
  EXPECT_EQ(fake_git("show " + mine + ":d.txt"), "delta");

  // awaywork's own draft pull request, whose base is the person's branch.
  json ours;
  ASSERT_NO_FATAL_FAILURE(our_pull(mine, ours));
  EXPECT_EQ(ours["base"]["ref"], "feature");
  EXPECT_EQ(ours["draft"], true);
  EXPECT_EQ(ours["user"]["login"], "aw-bot");
  EXPECT_EQ(ours["body"].get<std::string>().find("Closes #"), std::string::npos);
  EXPECT_EQ(u["pull_request"], ours["html_url"]);

  // The task: the command (fenced, after the notice) and the pull request's diff summary.
  std::string task = read_file(u["run_dir"].get<std::string>() + "/outputs/task.txt").value_or("");
  size_t notice = task.find("Everything below this line is data");
  ASSERT_NE(notice, std::string::npos) << task;
  for (const char* want : {"also add d.txt with one line", "c.txt (added, +1 -0)"}) {
    size_t at = task.find(want);
    ASSERT_NE(at, std::string::npos) << want << " in:\n" << task;
    EXPECT_LT(notice, at) << want;
  }
  EXPECT_NE(task.find("Its diff: 1 file changed, 1 line added and 0 removed."), std::string::npos)
      << task;
  EXPECT_NE(task.find("written by maint on pull request #" + std::to_string(pull)),
            std::string::npos)
      << task;

  // The same command again starts nothing: it was answered.
  size_t before = fake->writes().size();
  Captured again = aw({"run", "--pr", "web#" + std::to_string(pull)});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("was answered by unit " + u["id"].get<std::string>()), std::string::npos)
      << again.err;
  EXPECT_EQ(fake->writes().size(), before) << fake->writes().dump(2);
}

TEST_F(ForgeForeignPull, AStrangersCommandStartsNothing) {
  human_pull();
  comment(pull, "mallory", "/awaywork rewrite everything");
  comment(pull, "maint", "please /awaywork this");  // not at the comment's start: no command
  size_t before = fake->writes().size();
  Captured c = aw({"run", "--pr", "web#" + std::to_string(pull)});
  EXPECT_NE(c.exit_code, 0);
  EXPECT_NE(c.err.find("was opened by octo, not by awaywork (aw-bot)"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("no admitted person's command"), std::string::npos) << c.err;
  EXPECT_EQ(fake->writes().size(), before) << fake->writes().dump(2);
  EXPECT_EQ(get("/repos/octo/web/pulls?state=all").size(), 1u);
  EXPECT_EQ(fake_git("rev-parse refs/heads/feature"), head);
}

// A fork's pull request (issue 26 item 1): awaywork never pushes to the fork. Its branch goes to
// octo/web, one commit on the fork's head (fetched as refs/pull/N/head), and one marked comment
// on the pull request gives the compare link; asking or applying again posts nothing new.
TEST_F(ForgeForeignPull, AForksPullRequestGetsABranchHereAndACompareLinkNeverAPush) {
  human_pull("forker");
  comment(pull, "maint", "/awaywork also add d.txt");
  std::string fork = tmp.path + "/fake-state/repos/forker/web.git";
  std::string refs_before = sh("git --git-dir=" + sq(fork) + " for-each-ref");
  write_agent(
      "cat > \"$AWAYWORK_OUTPUTS/task.txt\"\n"
      "printf 'delta\\n' > d.txt");
  auto u = run_pr();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  std::string id = u["id"].get<std::string>();
  std::string mine = "awaywork/" + id;

  EXPECT_EQ(sh("git --git-dir=" + sq(fork) + " for-each-ref"), refs_before)
      << "nothing pushed to the fork";
  EXPECT_EQ(sh("git --git-dir=" + sq(fork) + " rev-parse refs/heads/feature"), head);
  // awaywork's branch in the base repository: one commit on the fork's head.
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + mine + "^"), head);
  EXPECT_EQ(fake_git("rev-list --count " + head + "..refs/heads/" + mine), "1");
  EXPECT_EQ(fake_git("show refs/heads/" + mine + ":d.txt"), "delta");
  EXPECT_EQ(get("/repos/octo/web/pulls?state=all").size(), 1u) << "no pull request opened";

  // One comment of awaywork's, marked, with the compare link against the fork's branch.
  EXPECT_EQ(compares(mine), 1) << get(talk()).dump(2);

  // The task says where the change goes.
  std::string task = read_file(u["run_dir"].get<std::string>() + "/outputs/task.txt").value_or("");
  EXPECT_NE(task.find("comes from a fork"), std::string::npos) << task;
  EXPECT_EQ(task.find("becomes a draft pull request"), std::string::npos) << task;

  // The same command again starts nothing and writes nothing.
  size_t before = fake->writes().size();
  Captured again = aw({"run", "--pr", "web#" + std::to_string(pull)});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("was answered by unit " + id), std::string::npos) << again.err;
  EXPECT_EQ(fake->writes().size(), before) << fake->writes().dump(2);

  // apply again finds the branch and the comment by its marker: nothing posted twice.
  Captured a = aw({"apply", id, "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  auto j = json::parse(a.out);
  EXPECT_EQ(j["already_applied"], true) << j.dump(2);
  EXPECT_NE(j["already"].dump().find("compare"), std::string::npos) << j.dump(2);
  EXPECT_EQ(j["posted"].dump().find("compare"), std::string::npos) << j.dump(2);
  EXPECT_EQ(compares(mine), 1);
  EXPECT_EQ(sh("git --git-dir=" + sq(fork) + " for-each-ref"), refs_before);
}

}  // namespace
}  // namespace aw::test
