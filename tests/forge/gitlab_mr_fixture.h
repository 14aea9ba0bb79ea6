// The fixture of the gitlab_follow*_test files (issue 29): the awaywork binary against the fake
// GitLab, awaywork's draft merge request opened by `run --issue`, then followed up by
// `run --pr app!N`. In namespace aw::test, not an anonymous one: several files run tests of the
// suite GitlabMrTest, and GoogleTest requires one fixture type per suite.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "awaywork_cli.h"
#include "proc/capture.h"

#include "gitlab_fixture.h"

namespace aw::test {

// The awaywork binary against the fake GitLab: awaywork's draft merge request from an issue, then
// its follow-up by `run --pr app!N`.
class GitlabMrTest : public GitlabTest {
 protected:
  std::string home, agent, config, branch, first_commit, mr_url;
  int64_t mr = 0;

  void SetUp() override {
    GitlabTest::SetUp();
    home = tmp.path + "/home";
    ASSERT_TRUE(make_dirs(home));
    agent = tmp.path + "/agent.sh";
    config = tmp.path + "/config.yml";
    write_config();
    Captured set = aw({"secret", "set", "GITLAB_TOKEN"}, token);
    ASSERT_EQ(set.exit_code, 0) << set.out << set.err;
  }

  // repo_extra: more keys of the repository's entry ("    follow_ci: true\n").
  void write_config(const std::string& repo_extra = "") {
    ASSERT_TRUE(write_file(
        config, "state_dir: " + tmp.path +
                    "/state\nsandbox: {mode: preferred}\nagent: test\n"
                    "agents:\n  test:\n    command: [" +
                    agent +
                    "]\nforges:\n  lab:\n    kind: gitlab\n    api_url: " + fake->api_url() +
                    "\n    credential: GITLAB_TOKEN\nrepos:\n  app:\n"
                    "    gitlab: grp/sub/app\n" +
                    repo_extra));
  }

  void write_agent(const std::string& body) {
    ASSERT_TRUE(write_file(agent, "#!/bin/sh\nset -e\n" + body + "\n", 0755));
  }

  Captured aw(const std::vector<std::string>& args, const std::string& in = "") {
    CaptureSpec c;
    c.argv = {std::string(AW_BINARY_DIR) + "/src/cli/awaywork", "--config", config};
    c.argv.insert(c.argv.end(), args.begin(), args.end());
    c.env = {
        "PATH=/usr/bin:/bin",           "HOME=" + home,          "LC_ALL=C",
        "AWAYWORK_SECRET_BACKEND=file", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"};
    c.stdin_data = in;
    auto r = capture(c);
    return r ? *r : Captured{-1, "", r.error().message};
  }

  nlohmann::json run_json(const std::vector<std::string>& args) {
    Captured c = aw(args);
    auto j = nlohmann::json::parse(c.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "exit " << c.exit_code << "\n" << c.out << c.err;
    if (j.is_discarded()) return nullptr;
    j["_stderr"] = c.err;
    return j;
  }

  // issue -> run --issue -> awaywork's draft merge request on branch awaywork/<unit>.
  void open_mr() {
    write_agent("printf 'bravo\\nline two\\nline three\\n' > b.txt");
    int64_t iid = issue("maint", "Add a b file", "Please add b.txt with three lines.");
    ASSERT_GT(iid, 0);
    auto u = run_json({"run", "--issue", "app#" + std::to_string(iid), "--json"});
    ASSERT_FALSE(u.is_null());
    ASSERT_EQ(u["state"], "done") << u.dump(2);
    branch = "awaywork/" + u["id"].get<std::string>();
    first_commit = u["commit"];
    auto mrs = fake->control("GET", "projects/" + kProject + "/merge_requests");
    ASSERT_EQ(mrs.size(), 1u) << mrs.dump(2);
    mr = mrs[0]["iid"];
    mr_url = mrs[0]["web_url"];
    ASSERT_EQ(mrs[0]["source_branch"], branch);
  }

  // A note by `user` on the merge request: a diff discussion when `path` and `line` place it.
  std::string discuss(int64_t on, const std::string& user, const std::string& body,
                      const std::string& path = "", int line = 0, bool system = false) {
    nlohmann::json b = {{"username", user}, {"body", body}, {"system", system}};
    if (!path.empty()) b["path"] = path, b["line"] = line;
    auto n = fake->control(
        "POST", "projects/" + kProject + "/merge_requests/" + std::to_string(on) + "/discussions",
        b);
    EXPECT_TRUE(n.is_object()) << fake->error();
    return n.is_object() ? n.value("discussion_id", "") : "";
  }

  nlohmann::json discussions(int64_t on) {
    return fake
        ->api("GET",
              "/projects/grp%2Fsub%2Fapp/merge_requests/" + std::to_string(on) +
                  "/discussions?per_page=100",
              token)
        .body;
  }

  // awaywork's notes in a discussion.
  std::vector<std::string> replies_in(int64_t on, const std::string& discussion) {
    std::vector<std::string> out;
    for (const auto& d : discussions(on))
      if (d["id"] == discussion)
        for (const auto& n : d["notes"])
          if (n["author"]["username"] == "aw-bot") out.push_back(n["body"]);
    return out;
  }

  std::string fake_git(const std::string& args) {
    return sh("git --git-dir=" + sq(bare) + " " + args);
  }
};

}  // namespace aw::test
