// The fixtures of the watch_gitlab*_test files (issue 29): the fake GitLab with one project
// (grp/sub/app) and awaywork's login (tests/forge/gitlab_fixture.h's FakeGitlabTest), `awaywork
// watch --once` against it, and awaywork's own merge request opened by a first pass. In namespace
// aw::test, not an anonymous one: several files run tests of these suites, and GoogleTest requires
// one fixture type per suite.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "../forge/awaywork_cli.h"
#include "../forge/gitlab_fixture.h"
#include "base/fs.h"
#include "event_lines.h"
#include "forge/admission.h"
#include "forge/gitlab/session.h"
#include "forge/gitlab/watch_source.h"
#include "proc/capture.h"
#include "watch/triggers.h"

namespace aw::test {

// The fake GitLab with kProject (tests/forge/gitlab_fixture.h), a Developer and a Guest on it.
class WatchGitlabTest : public FakeGitlabTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(open_project(kProject));
    fake->member(kProject, "dev", 30);
    fake->member(kProject, "guest", 10);
  }

  // A session on kProject: its user read, not the project.
  std::unique_ptr<GitLabSession> session() { return gitlab_session(kProject, clock, false); }

  // An issue by `user`, labelled `label` by the same user (a resource label event naming them).
  int64_t labelled_issue(const std::string& user, const std::string& label) {
    int64_t iid = fake->control("POST", "projects/" + kProject + "/issues",
                                {{"username", user}, {"title", "fix it"}, {"description", "x"}})
                      .value("iid", int64_t{0});
    fake->control("POST", "projects/" + kProject + "/issues/" + std::to_string(iid) + "/labels",
                  {{"username", user}, {"add", nlohmann::json::array({label})}});
    return iid;
  }

  TriggerScan scan(GitLabSession& s, GitLabWatchReader& rd, int64_t iid, Seen seen) {
    auto events = rd.label_events(iid);
    EXPECT_TRUE(events) << events.error().message;
    auto comments = rd.comments(iid);
    EXPECT_TRUE(comments) << comments.error().message;
    Admission adm(TrustConfig{}, 0, s.self.user.login, rd.roles(), ::time(nullptr));
    WatchRepoConfig spec;
    spec.repo = "app";
    return scan_triggers(spec, events ? *events : nlohmann::json(),
                         comments ? *comments : nlohmann::json(), seen,
                         [&](const ForgeUser& u) { return adm.check(u); });
  }
};

class WatchGitlabE2eTest : public WatchGitlabTest {
 protected:
  std::string home, agent;
  // More of the repository's config (lines indented under `app:`), set before SetUp writes it.
  std::string repo_options;

  void SetUp() override {
    WatchGitlabTest::SetUp();
    home = tmp.path + "/home";
    ASSERT_TRUE(make_dirs(home));
    agent = tmp.path + "/agent.sh";
    ASSERT_TRUE(write_file(agent,
                           "#!/bin/sh\nset -e\nprintf 'bravo\\n' > b.txt\nprintf '%s\\n' "
                           "'{\"type\":\"create_pull_request\",\"title\":\"Add b\",\"body\":"
                           "\"Adds b.txt.\"}' >> \"$AWAYWORK_OUTPUTS/requests.jsonl\"\n",
                           0755));
    config("a");
    Captured set = aw("a", {"secret", "set", "GITLAB_TOKEN"}, token);
    ASSERT_EQ(set.exit_code, 0) << set.out << set.err;
  }

  // A watcher's config and state folder (two names: two machines sharing the project).
  std::string config(const std::string& name) {
    std::string file = tmp.path + "/" + name + ".yml";
    EXPECT_TRUE(write_file(
        file, "state_dir: " + tmp.path + "/state-" + name +
                  "\nsandbox: {mode: preferred}\nagent: test\n"
                  "agents:\n  test:\n    command: [" +
                  agent + "]\nforges:\n  lab:\n    kind: gitlab\n    api_url: " + fake->api_url() +
                  "\n    credential: GITLAB_TOKEN\nrepos:\n  app:\n    gitlab: " + kProject + "\n" +
                  repo_options + "watch:\n  poll_seconds: 5\n  repos: {app: {}}\n"));
    return file;
  }

  Captured aw(const std::string& name, const std::vector<std::string>& args,
              const std::string& in = "") {
    // One secret store for both watchers: one HOME, as one owner's two machines would each hold.
    return run_awaywork(tmp.path + "/" + name + ".yml", home, args, in);
  }

  // watch --once as `name`; the log's lines.
  nlohmann::json watch_once(const std::string& name) {
    std::string log = tmp.path + "/" + name + "-watch.jsonl";
    (void)::unlink(log.c_str());
    Captured c = aw(name, {"watch", "--once", "--log", log});
    std::string text = slurp(log);
    EXPECT_EQ(c.exit_code, 0) << c.out << c.err << "\nlog:\n" << text;
    return event_lines(text);
  }

  static std::vector<nlohmann::json> events(const nlohmann::json& log, const std::string& name,
                                            int64_t issue) {
    std::vector<nlohmann::json> out;
    for (const auto& l : log)
      if (l.value("event", "") == name && l.value("issue", int64_t{0}) == issue) out.push_back(l);
    return out;
  }

  nlohmann::json notes_of(int64_t iid) { return fake->notes(kProject, iid, token); }
  std::vector<std::string> labels_of(int64_t iid) {
    auto j =
        fake->api("GET", "/projects/grp%2Fsub%2Fapp/issues/" + std::to_string(iid), token).body;
    std::vector<std::string> out;
    for (const auto& l : j["labels"]) out.push_back(l);
    return out;
  }
  void note(int64_t iid, const std::string& user, const std::string& body, bool system = false) {
    fake->control("POST", "projects/" + kProject + "/issues/" + std::to_string(iid) + "/notes",
                  {{"username", user}, {"body", body}, {"system", system}});
  }
};

// awaywork's own merge request, opened by a first pass on a Developer's labelled issue.
class WatchGitlabMrTest : public WatchGitlabE2eTest {
 protected:
  int64_t mr = 0;
  std::string branch, first_commit;

  void SetUp() override {
    WatchGitlabE2eTest::SetUp();
    int64_t iid = labelled_issue("dev", "awaywork");
    nlohmann::json log = watch_once("a");
    ASSERT_EQ(events(log, "unit_spawned", iid).size(), 1u) << log.dump(1);
    auto mrs = fake->control("GET", "projects/" + kProject + "/merge_requests");
    ASSERT_EQ(mrs.size(), 1u) << mrs.dump(2) << log.dump(1);
    mr = mrs[0]["iid"];
    branch = mrs[0]["source_branch"];
    first_commit = git("rev-parse refs/heads/" + branch);
    // The follow-up's agent: one change, no request of its own.
    ASSERT_TRUE(write_file(agent, "#!/bin/sh\nset -e\nprintf 'BRAVO\\n' > b.txt\n", 0755));
  }

  std::string git(const std::string& args) {
    return sh("git --git-dir=" + sq(tmp.path + "/fake-gitlab/repos/" + kProject + ".git") + " " +
              args);
  }

  // A note by `user` on the merge request: a diff discussion when `path` places it.
  std::string discuss(const std::string& user, const std::string& body,
                      const std::string& path = "", int line = 0, bool system = false) {
    nlohmann::json b = {{"username", user}, {"body", body}, {"system", system}};
    if (!path.empty()) b["path"] = path, b["line"] = line;
    auto n = fake->control(
        "POST", "projects/" + kProject + "/merge_requests/" + std::to_string(mr) + "/discussions",
        b);
    EXPECT_TRUE(n.is_object()) << fake->error();
    return n.is_object() ? n.value("discussion_id", "") : "";
  }

  nlohmann::json discussions() {
    return fake
        ->api("GET",
              "/projects/grp%2Fsub%2Fapp/merge_requests/" + std::to_string(mr) +
                  "/discussions?per_page=100",
              token)
        .body;
  }

  // The log's lines about the merge request (named merge_request: its iid is not an issue's).
  std::vector<nlohmann::json> mr_events(const nlohmann::json& log, const std::string& name) {
    std::vector<nlohmann::json> out;
    for (const auto& l : log)
      if (l.value("event", "") == name && l.value("merge_request", int64_t{0}) == mr)
        out.push_back(l);
    return out;
  }
};

}  // namespace aw::test
