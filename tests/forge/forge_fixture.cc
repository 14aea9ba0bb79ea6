#include "forge_fixture.h"

#include "awaywork_cli.h"

namespace aw::test {

void ForgeTest::SetUp() {
  fake = std::make_unique<FakeGitHub>(tmp.path, fake_args);
  ASSERT_FALSE(fake->api_url().empty()) << fake->why();
  home = tmp.path + "/home";
  ASSERT_TRUE(make_dirs(home));
  src_dir = tmp.path + "/src";
  sh("git init -q -b main " + sq(src_dir));
  sh("printf 'alpha\\n' > a.txt && git add a.txt && git commit -qm init", src_dir);
  owner_token = fake->user("octo");
  token = fake->user("aw-bot");
  auto repo =
      fake->control("POST", "repos", {{"owner", "octo"}, {"name", "web"}, {"source", src_dir}});
  ASSERT_EQ(repo.value("full_name", ""), "octo/web") << repo.dump();
  collaborator("aw-bot", "write");
  Captured set = aw({"secret", "set", "GH_TOKEN"}, token);
  ASSERT_EQ(set.exit_code, 0) << set.out << set.err;
  write_agent("printf 'bravo\\n' > b.txt");
}

void ForgeTest::write_agent(const std::string& body) {
  agent_script = tmp.path + "/agent.sh";
  ASSERT_TRUE(write_file(agent_script, "#!/bin/sh\nset -e\n" + body + "\n", 0755));
  write_config();
}

void ForgeTest::write_claude_agent(const std::string& body) {
  // Shaped like a Claude Code OAuth token (`claude setup-token`); valid nowhere.
  Captured set = aw({"secret", "set", "CLAUDE_CODE_OAUTH_TOKEN"},
                    "sk-ant-oat01-" + std::string(80, 'F') + "AA");
  ASSERT_EQ(set.exit_code, 0) << set.out << set.err;
  extra_agent_keys = "    provider: claude\n    profile: login\n";
  extra_keys = "profiles:\n  login:\n    secrets: [CLAUDE_CODE_OAUTH_TOKEN]\n";
  write_agent(body);
}

void ForgeTest::write_config() {
  config = tmp.path + "/config.yml";
  std::string text = "state_dir: " + tmp.path + "/state\n" +
                     "sandbox: {mode: preferred}\n"
                     "agent: test\n"
                     "agents:\n  test:\n    command: [" +
                     agent_script + "]\n" + extra_agent_keys + "forges:\n  fake:\n    api_url: " +
                     (api_url.empty() ? fake->api_url() : api_url) +
                     "\n    credential: " + credential + "\n" + extra_forge_keys +
                     "repos:\n  web:\n    github: octo/web\n" + extra_repo_keys + extra_keys;
  ASSERT_TRUE(write_file(config, text));
}

Captured ForgeTest::aw(const std::vector<std::string>& args, const std::string& stdin_data) {
  return run_awaywork(config, home, args, stdin_data);
}

nlohmann::json ForgeTest::run_issue(int64_t n) {
  Captured c = aw({"run", "--issue", "web#" + std::to_string(n), "--json"});
  auto j = nlohmann::json::parse(c.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "exit " << c.exit_code << "\n" << c.out << c.err;
  if (j.is_discarded()) return nullptr;
  j["_stderr"] = c.err;
  j["_exit"] = c.exit_code;
  return j;
}

int64_t ForgeTest::issue(const std::string& user, const std::string& title, const std::string& body,
                         const std::vector<std::string>& labels) {
  auto j = fake->control("POST", "repos/octo/web/issues",
                         {{"user", user}, {"title", title}, {"body", body}, {"labels", labels}});
  return j.value("number", int64_t{0});
}

void ForgeTest::comment(int64_t issue, const std::string& user, const std::string& body) {
  fake->control("POST", "repos/octo/web/issues/" + std::to_string(issue) + "/comments",
                {{"user", user}, {"body", body}});
}

void ForgeTest::collaborator(const std::string& login, const std::string& role) {
  fake->control("PUT", "repos/octo/web/collaborators/" + login, {{"permission", role}});
}

nlohmann::json ForgeTest::get(const std::string& target) {
  return fake->api("GET", target, owner_token).second;
}

std::string ForgeTest::fake_git(const std::string& args) {
  return sh("git --git-dir=" + sq(tmp.path + "/fake-state/repos/octo/web.git") + " " + args);
}

}  // namespace aw::test
