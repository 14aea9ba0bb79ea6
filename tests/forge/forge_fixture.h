// A fake GitHub with one repository (octo/web, imported from a real git repository), awaywork's
// login (aw-bot, role write), a config naming it, and the awaywork binary run against it with its
// token in a file-backed secret store. Test code only.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "../fakes/fake_github.h"
#include "../git/git_fixture.h"

namespace aw::test {

class ForgeTest : public ::testing::Test {
 protected:
  TempDir tmp;
  std::unique_ptr<FakeGitHub> fake;
  std::string token, owner_token, config, home, src_dir, agent_script;
  std::string extra_repo_keys;  // appended to the repo entry (indented 4)
  // Set before SetUp: the fake's extra arguments ({"--tls", cert, key}), the forge's api_url
  // ("" = the fake's) and keys appended to the forge entry (indented 4).
  std::vector<std::string> fake_args;
  std::string api_url, extra_forge_keys, credential = "GH_TOKEN";

  void SetUp() override;
  // The agent: a shell script run in the clone.
  void write_agent(const std::string& body);
  void write_config();
  Captured aw(const std::vector<std::string>& args, const std::string& stdin_data = "");
  // run --issue web#N --json: the record (null when the output was not JSON).
  nlohmann::json run_issue(int64_t n);
  int64_t issue(const std::string& user, const std::string& title, const std::string& body,
                const std::vector<std::string>& labels = {});
  void comment(int64_t issue, const std::string& user, const std::string& body);
  void collaborator(const std::string& login, const std::string& role);
  nlohmann::json get(const std::string& target);  // as the repo's owner
  // git in the fake's bare repository.
  std::string fake_git(const std::string& args);
};

}  // namespace aw::test
