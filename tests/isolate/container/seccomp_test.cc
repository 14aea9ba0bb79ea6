// The container's seccomp profile: the engines' default (containers-common's seccomp.json)
// tightened as the OS sandbox's filter is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "base/fs.h"
#include "isolate/container/seccomp_profile.h"

namespace aw {
namespace {

using nlohmann::json;

// Every name the profile lets through without any condition.
std::set<std::string> unconditional(const json& p) {
  std::set<std::string> s;
  for (const auto& r : p["syscalls"])
    if (r["action"] == "SCMP_ACT_ALLOW" && (!r.contains("args") || r["args"].empty()) &&
        (!r.contains("includes") || r["includes"].empty()))
      for (const auto& n : r["names"]) s.insert(n.get<std::string>());
  return s;
}

const char* kBase = R"({"defaultAction":"SCMP_ACT_ERRNO","syscalls":[
  {"names":["read","ptrace","io_uring_setup","socket","ioctl","clone","clone3","unshare","keyctl",
            "mount","setns"],"action":"SCMP_ACT_ALLOW","args":[]},
  {"names":["bpf"],"action":"SCMP_ACT_ALLOW","includes":{"caps":["CAP_SYS_ADMIN"]}}]})";

TEST(ContainerSeccomp, DropsWhatTheSandboxDeniesAndKeepsTheRest) {
  auto t = tighten_seccomp_profile(kBase);
  ASSERT_TRUE(t) << t.error().message;
  json p = json::parse(*t);
  auto allowed = unconditional(p);
  EXPECT_TRUE(allowed.count("read"));
  for (const char* n : {"ptrace", "io_uring_setup", "socket", "ioctl", "clone", "clone3", "unshare",
                        "keyctl", "mount", "setns", "bpf"})
    EXPECT_FALSE(allowed.count(n)) << n;
  std::string text = p.dump();
  EXPECT_EQ(text.find("\"bpf\""), std::string::npos) << "not even with the capability";
}

TEST(ContainerSeccomp, SocketsOnlyOfTheFamiliesAnAgentUsesAndCloneWithoutNamespaces) {
  json p = json::parse(*tighten_seccomp_profile(kBase));
  std::set<unsigned long> families;
  bool clone_masked = false, clone3_enosys = false, ioctl_tiocsti = false;
  for (const auto& r : p["syscalls"]) {
    std::string n = r["names"][0];
    if (n == "socket" && r["args"][0]["op"] == "SCMP_CMP_EQ")
      families.insert(r["args"][0]["value"].get<unsigned long>());
    if (n == "clone")
      clone_masked = r["args"][0]["op"] == "SCMP_CMP_MASKED_EQ" &&
                     r["args"][0]["value"] == 0x7E020000 && r["args"][0]["valueTwo"] == 0;
    if (n == "clone3") clone3_enosys = r["action"] == "SCMP_ACT_ERRNO" && r["errnoRet"] == 38;
    if (n == "ioctl")
      ioctl_tiocsti = r["args"][0]["index"] == 1 && r["args"][0]["op"] == "SCMP_CMP_NE";
  }
  EXPECT_EQ(families, (std::set<unsigned long>{1, 2, 10, 16}));  // unix, inet, inet6, netlink
  EXPECT_TRUE(clone_masked);
  EXPECT_TRUE(clone3_enosys);
  EXPECT_TRUE(ioctl_tiocsti);
}

TEST(ContainerSeccomp, RefusesABaseThatAllowsByDefaultOrIsNoProfile) {
  EXPECT_FALSE(tighten_seccomp_profile(R"({"defaultAction":"SCMP_ACT_ALLOW","syscalls":[]})"));
  EXPECT_FALSE(tighten_seccomp_profile("[]"));
  EXPECT_FALSE(tighten_seccomp_profile("not json"));
  EXPECT_FALSE(write_seccomp_profile("/tmp/aw-never-written.json", "/nonexistent/seccomp.json"));
  // Issue 38, item 2: a defaultAction of the wrong type is an error naming it, not a type_error.
  auto typed = tighten_seccomp_profile(R"({"defaultAction":1,"syscalls":[]})");
  ASSERT_FALSE(typed);
  EXPECT_EQ(typed.error().message,
            R"(the base profile: field "defaultAction": expected a string, got number)");
}

// The machine's own base (containers-common), when installed, tightens cleanly.
TEST(ContainerSeccomp, TheInstalledBaseTightens) {
  if (!read_file(kEngineSeccompBase)) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << kEngineSeccompBase << " not installed";
    GTEST_SKIP() << kEngineSeccompBase << " not installed (golang-github-containers-common)";
  }
  auto t = tighten_seccomp_profile(*read_file(kEngineSeccompBase, 1 << 22));
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_FALSE(unconditional(json::parse(*t)).count("ptrace"));
}

}  // namespace
}  // namespace aw
