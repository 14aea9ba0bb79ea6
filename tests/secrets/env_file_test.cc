// The compatibility env file is read only when private to the caller (0600).
#include <gtest/gtest.h>

#include "helpers.h"
#include "secrets/store.h"

namespace aw {
namespace {

constexpr const char* kContent =
    "# tokens\n"
    "GH_TOKEN=ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7\n"
    "\n"
    "export OPENAI_API_KEY=\"sk-FAKEproj-0123456789abcdef\"\n"
    "  QUOTED='a b = c'\n";

TEST(EnvFile, Mode0644IsRefusedWithTheChmodFix) {
  test::TempDir tmp;
  std::string path = tmp.path + "/env";
  test::spit(path, kContent, 0644);
  auto r = read_env_file(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("chmod 600 " + path), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("ghp_FAKE"), std::string::npos);
}

TEST(EnvFile, Mode0600IsRead) {
  test::TempDir tmp;
  std::string path = tmp.path + "/env";
  test::spit(path, kContent, 0600);
  auto r = read_env_file(path);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->size(), 3u);
  EXPECT_EQ(r->at("GH_TOKEN"), "ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7");
  EXPECT_EQ(r->at("OPENAI_API_KEY"), "sk-FAKEproj-0123456789abcdef");
  EXPECT_EQ(r->at("QUOTED"), "a b = c");
}

TEST(EnvFile, MissingFileIsEmptyAndALinkIsRefused) {
  test::TempDir tmp;
  auto none = read_env_file(tmp.path + "/env");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  test::spit(tmp.path + "/real", kContent, 0600);
  ASSERT_EQ(::symlink((tmp.path + "/real").c_str(), (tmp.path + "/env").c_str()), 0);
  EXPECT_FALSE(read_env_file(tmp.path + "/env"));
}

TEST(EnvFile, MalformedLineNamesItsNumberNotItsContent) {
  test::TempDir tmp;
  std::string path = tmp.path + "/env";
  test::spit(path, "A=1\nghp_FAKEnoequalsign0123456789\n", 0600);
  auto r = read_env_file(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("ghp_FAKE"), std::string::npos);
}

TEST(EnvFile, DefaultPathFollowsXdgConfigHome) {
  test::EnvGuard env;
  env.set("XDG_CONFIG_HOME", "/xdg/cfg");
  EXPECT_EQ(default_env_file_path(), "/xdg/cfg/awaywork/env");
  EXPECT_EQ(default_secret_store_paths().dir, "/xdg/cfg/awaywork/secrets");
}

}  // namespace
}  // namespace aw
