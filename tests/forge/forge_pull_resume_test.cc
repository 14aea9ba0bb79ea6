// `resume: true` (issue 26 item 6): the follow-up continues the opening unit's agent session from
// its HOME, another pull request never gets it, and without resume nothing is kept or resumed.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "forge_pull_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

// Issue 26 item 6, `resume: true`: a stand-in Claude Code (provider claude) that notes its argv
// and the session files it finds in its HOME, then writes a session of its own, named by a uuid
// made from its unit's id, where Claude Code files one: under projects/ in a folder named after
// its working folder. It writes its login token into the session, as a transcript may hold what
// the agent printed.
const std::string kSessionAgent =
    "out=\"$AWAYWORK_OUTPUTS\"\n"
    "printf '%s\\n' \"$@\" > \"$out/argv\"\n"
    "find \"$CLAUDE_CONFIG_DIR/projects\" -name '*.jsonl' 2>/dev/null | sort > \"$out/sessions\"\n"
    "for f in $(cat \"$out/sessions\"); do cat \"$f\"; done > \"$out/handed\"\n"
    "pwd | sed 's/[^A-Za-z0-9]/-/g' > \"$out/project\"\n"
    "h=$(printf %s \"$AWAYWORK_UNIT\" | sha256sum | cut -c1-32)\n"
    "id=$(echo \"$h\" | sed "
    "'s/^\\(.\\{8\\}\\)\\(.\\{4\\}\\)\\(.\\{4\\}\\)\\(.\\{4\\}\\)/\\1-\\2-\\3-\\4-/')\n"
    "echo \"$id\" > \"$out/id\"\n"
    "proj=\"$CLAUDE_CONFIG_DIR/projects/$(cat \"$out/project\")\"\n"
    "mkdir -p \"$proj\"\n"
    "printf '{\"said\":\"conversation of %s\",\"token\":\"%s\"}\\n' \"$id\" "
    "\"$CLAUDE_CODE_OAUTH_TOKEN\" >> \"$proj/$id.jsonl\"\n"
    "if [ -e b.txt ]; then printf 'BRAVO\\nline two\\n' > b.txt; "
    "else printf 'bravo\\nline two\\nline three\\n' > b.txt; fi";

class ForgeResume : public ForgePull {
 protected:
  std::string sessions() const { return tmp.path + "/state/sessions"; }
  // The pull requests' folders under STATE/sessions, and the session files kept in each.
  std::map<std::string, std::vector<std::string>> kept() const {
    std::map<std::string, std::vector<std::string>> out;
    std::error_code ec;
    for (const auto& d : std::filesystem::directory_iterator(sessions(), ec)) {
      auto& files = out[d.path().filename().string()];
      for (auto it = std::filesystem::recursive_directory_iterator(d.path(), ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".jsonl")
          files.push_back(it->path().stem().string());
      std::sort(files.begin(), files.end());
    }
    return out;
  }
  static std::string out_of(const json& u, const std::string& name) {
    std::string v = read_file(u["run_dir"].get<std::string>() + "/outputs/" + name).value_or("");
    while (!v.empty() && v.back() == '\n') v.pop_back();
    return v;
  }
  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }
  const std::string oauth = "sk-ant-oat01-" + std::string(80, 'F') + "AA";  // write_claude_agent's
};

TEST_F(ForgeResume, TheFollowUpContinuesTheOpeningUnitsSessionFromItsHome) {
  extra_repo_keys = "    resume: true\n";
  write_claude_agent(kSessionAgent);
  open_pull();
  auto before = kept();
  ASSERT_EQ(before.size(), 1u) << "the opening unit's session, kept for its pull request";
  ASSERT_EQ(before.begin()->second.size(), 1u);
  std::string opening = before.begin()->second[0];
  std::string folder = sessions() + "/" + before.begin()->first;
  struct stat st {};
  ASSERT_EQ(::lstat(folder.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  ASSERT_EQ(::lstat(sessions().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(read_file(folder + "/pull").value_or(""), pull_url + "\n");

  request_changes();
  auto u = run_pr();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  // The CLI was told to continue the opening unit's session, and found it in its HOME where
  // Claude Code looks for the follow-up's own clone.
  auto argv = lines(out_of(u, "argv"));
  auto flag = std::find(argv.begin(), argv.end(), "--resume");
  ASSERT_NE(flag, argv.end()) << out_of(u, "argv");
  ASSERT_NE(flag + 1, argv.end());
  EXPECT_EQ(*(flag + 1), opening);
  std::string found = out_of(u, "sessions");
  EXPECT_EQ(lines(found).size(), 1u) << found;
  EXPECT_NE(found.find("/projects/" + out_of(u, "project") + "/" + opening + ".jsonl"),
            std::string::npos)
      << found;
  std::string handed = out_of(u, "handed");
  EXPECT_NE(handed.find("conversation of " + opening), std::string::npos) << handed;
  EXPECT_EQ(handed.find(oauth), std::string::npos) << "kept redacted of the unit's secrets";
  EXPECT_NE(u.dump().find("resume: the agent continues session " + opening), std::string::npos)
      << u.dump(2);
  // Both sessions are kept now, for the same pull request's next unit.
  auto after = kept();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after.begin()->first, before.begin()->first);
  std::vector<std::string> both = {opening, out_of(u, "id")};
  std::sort(both.begin(), both.end());
  EXPECT_EQ(after.begin()->second, both);
}

TEST_F(ForgeResume, AnotherPullRequestNeverGetsThem) {
  extra_repo_keys = "    resume: true\n";
  write_claude_agent(kSessionAgent);
  open_pull();
  ASSERT_EQ(kept().size(), 1u);
  std::string first = kept().begin()->second.at(0);
  // A second issue, a second pull request of awaywork's, a follow-up on it.
  int64_t n = issue("octo", "Add a b file again", "Please add b.txt, again.");
  auto opening = run_issue(n);
  ASSERT_EQ(opening["state"], "done") << opening.dump(2);
  std::string second = out_of(opening, "id");
  auto pulls = get("/repos/octo/web/pulls");
  ASSERT_EQ(pulls.size(), 2u) << pulls.dump(2);
  for (const auto& p : pulls)
    if (p["head"]["ref"] == "awaywork/" + opening["id"].get<std::string>()) pull = p["number"];
  ASSERT_EQ(kept().size(), 2u) << "one folder per pull request";
  request_changes();
  auto u = run_pr();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_EQ(out_of(u, "handed").find("conversation of " + first), std::string::npos)
      << out_of(u, "handed");
  EXPECT_NE(out_of(u, "handed").find("conversation of " + second), std::string::npos);
  auto argv = lines(out_of(u, "argv"));
  auto flag = std::find(argv.begin(), argv.end(), "--resume");
  ASSERT_NE(flag, argv.end());
  ASSERT_NE(flag + 1, argv.end());
  EXPECT_EQ(*(flag + 1), second);
}

TEST_F(ForgeResume, WithoutResumeNothingIsKeptAndNothingResumed) {
  write_claude_agent(kSessionAgent);
  open_pull();
  request_changes();
  auto u = run_pr();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_EQ(out_of(u, "argv").find("--resume"), std::string::npos) << out_of(u, "argv");
  EXPECT_EQ(out_of(u, "sessions"), "") << "the follow-up's HOME starts empty";
  struct stat st {};
  EXPECT_NE(::lstat(sessions().c_str(), &st), 0) << "no session kept in the state folder";
}

}  // namespace
}  // namespace aw::test
