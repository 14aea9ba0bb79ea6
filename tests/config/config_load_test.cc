// load_config and default_config_path against real files in a temporary folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config/config.h"
#include "env_guard.h"

namespace aw {
namespace {

namespace fs = std::filesystem;

class ConfigLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-config-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    env_.set("HOME", (dir_ + "/home").c_str());
    env_.set("XDG_CONFIG_HOME", nullptr);
    env_.set("XDG_STATE_HOME", nullptr);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    fs::path p = fs::path(dir_) / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string dir_;
  EnvGuard env_;
};

TEST_F(ConfigLoad, DefaultPathIsUnderXdgConfigHomeOrHome) {
  EXPECT_EQ(default_config_path(), dir_ + "/home/.config/awaywork/config.yml");
  env_.set("XDG_CONFIG_HOME", "/xdg/conf");
  EXPECT_EQ(default_config_path(), "/xdg/conf/awaywork/config.yml");
}

TEST_F(ConfigLoad, MissingFileAtTheDefaultPathGivesTheDefaults) {
  auto c = load_config(default_config_path(), /*explicit_path=*/false);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->file, "");
  EXPECT_EQ(c->isolation, Isolation::none);
  EXPECT_EQ(c->unit_minutes, 60);
  EXPECT_EQ(c->state_dir, dir_ + "/home/.local/state/awaywork");
}

TEST_F(ConfigLoad, MissingExplicitFileIsAnErrorNamingThePath) {
  std::string path = dir_ + "/nope.yml";
  auto c = load_config(path, /*explicit_path=*/true);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            path +
                ": no such file; create it (see examples/config.yml) or leave out --config to "
                "use " +
                dir_ + "/home/.config/awaywork/config.yml");
}

// Every command's --config (issue 40: one load_given_config): "" is the default path, whose
// absence is the defaults; a file named is one that must exist.
TEST_F(ConfigLoad, GivenConfigIsTheNamedFileOrTheDefaultPath) {
  auto defaults = load_given_config("");
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->file, "");
  std::string named = write("c.yml", "unit_minutes: 7\n");
  auto c = load_given_config(named);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->file, named);
  EXPECT_EQ(c->unit_minutes, 7);
  auto missing = load_given_config(dir_ + "/nope.yml");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(dir_ + "/nope.yml: no such file"), std::string::npos);
  std::string at_default = write("home/.config/awaywork/config.yml", "unit_minutes: 9\n");
  auto found = load_given_config("");
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->file, at_default);
  EXPECT_EQ(found->unit_minutes, 9);
}

TEST_F(ConfigLoad, EmptyFileIsTheDefaults) {
  std::string path = write("c.yml", "");
  auto c = load_config(path, true);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->file, path);
  EXPECT_EQ(c->sandbox.mode, SandboxMode::required);
  EXPECT_TRUE(c->repos.empty());
}

TEST_F(ConfigLoad, RelativePathsResolveAgainstTheConfigFolderNotTheWorkingDirectory) {
  std::string path = write("etc/aw/config.yml", "repos: {r: {path: ../src/r}}\nstate_dir: st\n");
  auto c = load_config(path, true);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->repos.at("r").path, dir_ + "/etc/src/r");
  EXPECT_EQ(c->state_dir, dir_ + "/etc/aw/st");
}

TEST_F(ConfigLoad, ErrorsNameTheFileAsGiven) {
  std::string path = write("bad.yml", "isolation: jail\n");
  auto c = load_config(path, true);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            path + ":1:12: isolation: 'jail' is not one of none, user, container");
}

TEST_F(ConfigLoad, AFolderIsNotAConfigFile) {
  fs::create_directories(dir_ + "/d");
  auto c = load_config(dir_ + "/d", true);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, dir_ + "/d: not a regular file; point --config at a YAML file");
}

TEST_F(ConfigLoad, ADefaultPathThatExistsButIsNoFileIsAnErrorNotTheDefaults) {
  // Only "does not exist" means "use the defaults"; anything else would hide the user's config.
  fs::create_directories(default_config_path());
  auto c = load_config(default_config_path(), false);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            default_config_path() + ": not a regular file; point --config at a YAML file");
  fs::remove_all(dir_ + "/home/.config");
  write("home/.config", "a file where a folder should be");
  c = load_config(default_config_path(), false);
  ASSERT_FALSE(c);
  EXPECT_TRUE(
      c.error().message.starts_with(default_config_path() + ": cannot open: Not a directory"))
      << c.error().message;
}

TEST_F(ConfigLoad, SymlinkedConfigIsFollowed) {
  std::string real = write("dotfiles/config.yml", "unit_minutes: 7\n");
  fs::create_directories(dir_ + "/home/.config/awaywork");
  fs::create_symlink(real, default_config_path());
  auto c = load_config(default_config_path(), false);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->unit_minutes, 7);
}

TEST_F(ConfigLoad, TheShippedExampleParses) {
  auto c = load_config(std::string(AW_SOURCE_DIR) + "/examples/config.yml", true);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->agents.empty());
  EXPECT_FALSE(c->repos.empty());
  EXPECT_TRUE(c->agents.count(c->default_agent)) << c->default_agent;
  ASSERT_TRUE(c->profiles.count("ci"));
  EXPECT_FALSE(c->profiles.at("ci").secrets.empty());
  ASSERT_TRUE(c->inference.count("anthropic"));
  EXPECT_EQ(c->agents.at("claude").inference, "anthropic");
}

}  // namespace
}  // namespace aw
