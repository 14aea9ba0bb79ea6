// Isolation user with the OS sandbox: the managed settings awaywork lends a claude agent at
// /etc/claude-code (from the owner's helper folder) and its plugin folders are readable by the
// worker and not writable. The agent is a script standing in for the CLI (it is the bind that
// is tested here; tests/unit/pipeline_agent_settings_test.cc runs the real CLI); the provider is
// claude, so the unit lends what it lends Claude Code.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "fake_server.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

TEST_F(UserPipeline, TheWorkerReadsTheManagedSettingsAndPluginAndCannotWriteThem) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  use_test_secret_store();
  ASSERT_NO_FATAL_FAILURE(make_tls_certificate(root));
  FakeServer fake;
  ASSERT_TRUE(fake.start("fake_anthropic.py", root + "/fake.jsonl",
                         {"--tls", root + "/cert.pem", root + "/key.pem"}));
  store_secret("MODEL_KEY", kAnthropicKey);
  ASSERT_EQ(sh(fmt::format("chown -R {}: {}/xdg", u->owner, root)), 0);
  std::string plugin = root + "/plugin";
  std::filesystem::create_directories(plugin);
  std::ofstream(plugin + "/SKILL.md") << "a skill\n";
  ASSERT_EQ(sh(fmt::format("chmod 755 {0} && chmod 644 {0}/SKILL.md", plugin)), 0);
  std::string agent = root + "/agents/probe";
  std::ofstream(agent)
      << "#!/bin/sh\n"
         "o=probe.txt\n"
         "{ id -u\n"
         "  echo x > /etc/claude-code/managed-settings.json && echo managed-written"
         " || echo managed-denied\n"
         "  cat /etc/claude-code/managed-settings.json\n"
         "  echo x > "
      << plugin
      << "/planted && echo plugin-written || echo plugin-denied\n"
         "  cat "
      << plugin << "/SKILL.md\n} > \"$o\" 2>&1\n";
  ::chmod(agent.c_str(), 0755);
  std::ofstream(config) << "state_dir: " << root << "/state\n"
                        << "agent: model\n"
                        << "agents:\n  model:\n    provider: claude\n"
                        << "    inference: upstream\n    command: [" << agent << "]\n"
                        << "    plugins: [" << plugin << "]\n"
                        << "inference:\n  upstream:\n    api: anthropic\n"
                        << "    url: https://localhost:" << fake.port() << "\n"
                        << "    credential: MODEL_KEY\n"
                        << "    ca_file: " << root << "/cert.pem\n"
                        << "repos:\n  src:\n    path: " << src << "\n"
                        << "isolation: user\nworker_user: " << kWorker << "\n"
                        << "sandbox: {mode: required, limits: off}\n";
  ::chmod(config.c_str(), 0644);
  RunOutput r =
      run_as_owner("probe", {"XDG_CONFIG_HOME=" + root + "/xdg", "AWAYWORK_SECRET_BACKEND=file"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string run_dir = r.record["run_dir"];
  // What the agent saw, as the unit's patch (the worker's HOME goes with the unit).
  std::string probe = read(run_dir + "/patch.diff");
  EXPECT_NE(probe.find(fmt::format("+{}\n", u->worker.uid)), std::string::npos) << probe;
  EXPECT_NE(probe.find("+managed-denied"), std::string::npos) << probe;
  EXPECT_NE(probe.find("\"allowManagedHooksOnly\": true"), std::string::npos) << probe;
  EXPECT_NE(probe.find("+plugin-denied"), std::string::npos) << probe;
  EXPECT_NE(probe.find("+a skill"), std::string::npos) << probe;
  EXPECT_FALSE(exists(plugin + "/planted"));
}

}  // namespace
}  // namespace aw::test
