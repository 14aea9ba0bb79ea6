// build_env: the phase's environment is built from nothing.
#include <gtest/gtest.h>

#include "proc/runner.h"

namespace aw {
namespace {

std::vector<char*> env_of(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

TEST(ProcBuildEnv, KeepsOnlyTheAllowlistInItsOrder) {
  std::vector<std::string> from = {"GITHUB_TOKEN=ghp_000000000000000000000000000000000000",
                                   "SSH_AUTH_SOCK=/tmp/agent",
                                   "HOME=/home/o",
                                   "PATH=/usr/bin",
                                   "AWS_SECRET_ACCESS_KEY=x",
                                   "LANG=C.UTF-8",
                                   "LC_ALL=C",
                                   "TERM=xterm",
                                   "TMPDIR=/tmp",
                                   "USER=o",
                                   "LOGNAME=o",
                                   "GH_HOST=x"};
  auto e = env_of(from);
  EXPECT_EQ(build_env(e.data(), {}, {}),
            (std::vector<std::string>{"PATH=/usr/bin", "TERM=xterm", "LANG=C.UTF-8", "LC_ALL=C",
                                      "HOME=/home/o", "TMPDIR=/tmp", "USER=o", "LOGNAME=o"}));
}

TEST(ProcBuildEnv, NamesThatAreNotSetAreNotInvented) {
  std::vector<std::string> from = {"PATH=/bin"};
  auto e = env_of(from);
  EXPECT_EQ(build_env(e.data(), {"NOT_SET"}, {}), (std::vector<std::string>{"PATH=/bin"}));
  EXPECT_TRUE(build_env(nullptr, {"PATH"}, {}).empty());
}

TEST(ProcBuildEnv, ExtraNamesComeFromTheSourceAfterTheAllowlist) {
  std::vector<std::string> from = {"CARGO_HOME=/c", "PATH=/bin", "OTHER=1"};
  auto e = env_of(from);
  EXPECT_EQ(build_env(e.data(), {"CARGO_HOME", "PATH"}, {}),
            (std::vector<std::string>{"PATH=/bin", "CARGO_HOME=/c"}));
}

TEST(ProcBuildEnv, SetWinsOverTheSourceAndIsAddedOtherwise) {
  std::vector<std::string> from = {"HOME=/home/o", "PATH=/bin"};
  auto e = env_of(from);
  EXPECT_EQ(build_env(e.data(), {}, {{"HOME", "/tmp/awaywork-abc"}, {"AWAYWORK_UNIT", "u1"}}),
            (std::vector<std::string>{"PATH=/bin", "HOME=/tmp/awaywork-abc", "AWAYWORK_UNIT=u1"}));
}

TEST(ProcBuildEnv, FirstOccurrenceOfADuplicatedNameWinsLikeGetenv) {
  std::vector<std::string> from = {"PATH=/first", "PATH=/second", "PATHX=/no"};
  auto e = env_of(from);
  EXPECT_EQ(build_env(e.data(), {}, {}), (std::vector<std::string>{"PATH=/first"}));
}

TEST(ProcBuildEnv, NamePrefixesDoNotMatch) {
  std::vector<std::string> from = {"PATHOLOGY=1", "HOMEDIR=/x", "TERM_PROGRAM=y"};
  auto e = env_of(from);
  EXPECT_TRUE(build_env(e.data(), {}, {}).empty());
}

TEST(ProcBuildEnv, InvalidNamesAreIgnored) {
  EXPECT_TRUE(build_env(nullptr, {"A=B", ""}, {{"", "x"}, {"X=Y", "z"}}).empty());
}

}  // namespace
}  // namespace aw
