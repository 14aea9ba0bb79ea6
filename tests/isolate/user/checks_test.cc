// doctor for isolation `user`: all ✔ on a machine set up as print_setup says, and each broken
// prerequisite is a ✖ carrying the exact command that fixes it.
#include <sys/stat.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "doctor/doctor.h"
#include "isolate/user/sudoers.h"
#include "isolate/user/user_checks.h"
#include "user_fixture.h"

namespace aw {
namespace {

UserCheckInput input_for(const test::Users& u) {
  UserCheckInput in;
  in.worker = u.worker.name;
  in.owner = u.owner;
  in.owner_uid = u.owner_uid;
  in.owner_gid = u.owner_gid;
  in.owner_home = u.owner_home;
  in.path_value = "/usr/local/bin:/usr/bin:/bin";
  in.env_file = u.owner_home + "/.config/awaywork/env";
  return in;
}

// The checks as the owner would run them, serialized through run_as.
std::vector<Check> checks_as_owner(const test::Users& u, const UserCheckInput& in) {
  std::string j =
      test::run_as(u.owner_uid, u.owner_gid, [&] { return render_json(user_checks(in)); });
  std::vector<Check> out;
  auto doc = nlohmann::json::parse(j, nullptr, false);
  if (doc.is_discarded()) return out;
  for (const auto& c : doc["checks"]) out.push_back({c["name"], c["ok"], c["detail"], c["fix"]});
  return out;
}

const Check* find(const std::vector<Check>& cs, const std::string& part) {
  for (const auto& c : cs)
    if (c.name.find(part) != std::string::npos) return &c;
  return nullptr;
}

std::string failing(const std::vector<Check>& cs) {
  std::string s;
  for (const auto& c : cs)
    if (!c.ok) s += c.name + ": " + c.detail + " | fix: " + c.fix + "\n";
  return s;
}

TEST(UserDoctor, AllPassOnAMachineSetUpAsPrinted) {
  AW_NEED_USERS(u);
  auto cs = checks_as_owner(*u, input_for(*u));
  ASSERT_GE(cs.size(), 12u);
  EXPECT_TRUE(all_ok(cs)) << failing(cs);
}

// HostWide*: sets the machine's sysctl, so ctest runs it alone (cmake/awaywork.cmake).
TEST(HostWideUserDoctor, ProtectedSymlinksZeroIsCaughtAndRunRefuses) {
  AW_NEED_USERS(u);
  test::SysctlScope zero("protected_symlinks", 0);
  auto cs = checks_as_owner(*u, input_for(*u));
  const Check* c = find(cs, "fs.protected_symlinks");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->ok);
  EXPECT_NE(c->fix.find("sysctl -w fs.protected_symlinks=1"), std::string::npos) << c->fix;
  std::string ready = test::run_as(u->owner_uid, u->owner_gid, [&] {
    auto s = user_isolation_ready(input_for(*u));
    return s ? std::string("ready") : s.error().message;
  });
  EXPECT_NE(ready.find("fs.protected_symlinks"), std::string::npos) << ready;
}

TEST(UserDoctor, OpenHomeEnvFileAndPathUnderHomeAreFlaggedWithFixes) {
  AW_NEED_USERS(u);
  std::string env_dir = u->owner_home + "/.config/awaywork";
  ASSERT_EQ(
      test::sh(fmt::format("mkdir -p {0} {1}/.local/bin && echo K=v > {0}/env && chmod 644 "
                           "{0}/env && chown -R {2}:{3} {1}/.config {1}/.local && chmod 755 {1}",
                           env_dir, u->owner_home, u->owner_uid, u->owner_gid)),
      0);
  auto in = input_for(*u);
  in.path_value = u->owner_home + "/.local/bin:/usr/bin:/bin";
  // Home open: the worker reaches ~/.local/bin, so only the home and env file fail.
  auto cs = checks_as_owner(*u, in);
  const Check* home = find(cs, "is closed to others");
  ASSERT_NE(home, nullptr);
  EXPECT_FALSE(home->ok);
  EXPECT_EQ(home->fix, "chmod o-rwx " + u->owner_home);
  const Check* env = find(cs, "the env file");
  ASSERT_NE(env, nullptr);
  EXPECT_FALSE(env->ok);
  EXPECT_EQ(env->fix, "chmod 600 " + env_dir + "/env");
  // Home closed: now ~/.local/bin is out of the worker's reach.
  test::sh(fmt::format("chmod 750 {0} && chmod 600 {1}/env", u->owner_home, env_dir));
  cs = checks_as_owner(*u, in);
  const Check* path = find(cs, "PATH entry");
  ASSERT_NE(path, nullptr);
  EXPECT_FALSE(path->ok);
  EXPECT_NE(path->detail.find(u->owner_home + "/.local/bin"), std::string::npos);
  EXPECT_EQ(path->fix, "export PATH='/usr/bin:/bin'");
  EXPECT_TRUE(find(cs, "the env file")->ok);
  EXPECT_TRUE(find(cs, "is closed to others")->ok);
  test::sh(fmt::format("rm -rf {0}/.config {0}/.local", u->owner_home));
}

TEST(UserDoctor, BadlyShapedWorkerGetsOneFixPerProblem) {
  AW_NEED_USERS(u);
  const char* bad = "aw-worker-bad";
  test::sh(
      fmt::format("userdel -r {0} >/dev/null 2>&1; useradd --create-home --shell /bin/bash "
                  "--groups users {0}",
                  bad));
  auto in = input_for(*u);
  in.worker = bad;
  auto cs = checks_as_owner(*u, in);
  test::sh(fmt::format("userdel -r {} >/dev/null 2>&1", bad));
  struct Want {
    const char* name;
    const char* fix;
  };
  for (const Want& w : {Want{"has no home", "usermod -d /nonexistent/aw-worker-bad aw-worker-bad"},
                        Want{"has shell", "sudo usermod -s /usr/sbin/nologin aw-worker-bad"},
                        Want{"its own group only", "sudo gpasswd -d aw-worker-bad users"},
                        Want{"/etc/cron.deny", "echo aw-worker-bad | sudo tee -a /etc/cron.deny"},
                        Want{"/etc/at.deny", "echo aw-worker-bad | sudo tee -a /etc/at.deny"},
                        Want{"sudoers lines",
                             "sudo EDITOR=tee visudo -f "
                             "/etc/sudoers.d/awaywork-aw-worker-bad"}}) {
    const Check* c = find(cs, w.name);
    ASSERT_NE(c, nullptr) << w.name;
    EXPECT_FALSE(c->ok) << w.name;
    EXPECT_NE(c->fix.find(w.fix), std::string::npos) << w.name << ": " << c->fix;
  }
}

TEST(UserDoctor, MissingWorkerAndBroaderRuleAreFlagged) {
  AW_NEED_USERS(u);
  auto in = input_for(*u);
  in.worker = "aw-worker-none";
  auto cs = checks_as_owner(*u, in);
  const Check* c = find(cs, "worker user aw-worker-none exists");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->ok);
  EXPECT_NE(c->fix.find("useradd --system --user-group --no-create-home"), std::string::npos);
  // A broader rule for the worker itself, then for the owner.
  ASSERT_EQ(
      test::sh(fmt::format("echo '{} ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/aw-user-test-x "
                           "&& chmod 440 /etc/sudoers.d/aw-user-test-x",
                           u->worker.name)),
      0);
  cs = checks_as_owner(*u, input_for(*u));
  c = find(cs, "can run nothing with sudo");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->ok) << c->detail;
  ASSERT_EQ(test::sh(fmt::format("echo '{} ALL=({}) NOPASSWD: /usr/bin/id' > "
                                 "/etc/sudoers.d/aw-user-test-x",
                                 u->owner, u->worker.name)),
            0);
  cs = checks_as_owner(*u, input_for(*u));
  test::sh("rm -f /etc/sudoers.d/aw-user-test-x");
  c = find(cs, "sudoers lines");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->ok);
  EXPECT_NE(c->detail.find("broader"), std::string::npos) << c->detail;
}

TEST(UserDoctor, PrintedSetupMakesDoctorPass) {
  AW_NEED_USERS(u);
  const char* w = "aw-worker-setup";
  test::sh(fmt::format("userdel {0} >/dev/null 2>&1; groupdel {0} >/dev/null 2>&1", w));
  SudoersParams p{u->owner, u->owner_uid, u->owner_gid, w};
  std::string setup = print_setup(p, u->owner_home);
  EXPECT_NE(setup.find("useradd"), std::string::npos);
  EXPECT_NE(setup.find("visudo -cf"), std::string::npos);
  // Everything but the persistent sysctl file (the fixture already set the values for the run).
  std::string script;
  for (size_t a = 0, b; a < setup.size(); a = b + 1) {
    b = setup.find('\n', a);
    std::string line = setup.substr(a, b - a);
    if (line.find("sysctl") == std::string::npos) script += line + "\n";
  }
  ASSERT_TRUE(write_file("/tmp/aw-user-setup.sh", script, 0700));
  EXPECT_EQ(test::sh("sh /tmp/aw-user-setup.sh"), 0) << script;
  auto in = input_for(*u);
  in.worker = w;
  auto cs = checks_as_owner(*u, in);
  test::sh(
      fmt::format("userdel {0} >/dev/null 2>&1; groupdel {0} >/dev/null 2>&1; rm -f "
                  "/etc/sudoers.d/awaywork-{0} /tmp/aw-user-setup.sh; sed -i '/^{0}$/d' "
                  "/etc/cron.deny /etc/at.deny",
                  w));
  EXPECT_TRUE(all_ok(cs)) << failing(cs) << script;
}

TEST(Doctor, RenderShowsMarksAndFixes) {
  std::vector<Check> cs = {{"a thing", true, "fine", ""},
                           {"b thing", false, "broken", "chmod o-rwx /home/x\nsecond step"}};
  EXPECT_EQ(render(cs),
            "✔ a thing (fine)\n✖ b thing: broken\n    fix: chmod o-rwx /home/x\n"
            "    fix: second step\n1 of 2 checks fail\n");
  auto j = nlohmann::json::parse(render_json(cs));
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(j["checks"][1]["fix"], "chmod o-rwx /home/x\nsecond step");
  Registry r;
  r.add("user", [] { return std::vector<Check>{{"x", true, "", ""}}; });
  EXPECT_EQ(r.run("user").size(), 1u);
  EXPECT_TRUE(r.run("container").empty());
}

// A check's detail and fix name what it found (a path, a user, a group), which may be any bytes:
// the JSON report writes a byte that is not UTF-8 as U+FFFD, where nlohmann's dump() threw
// type_error 316 and `awaywork doctor --json` ended with no report (DESIGN.md section 9, 7).
TEST(Doctor, RenderJsonWritesInvalidUtf8AsReplacementInsteadOfThrowing) {
  std::vector<Check> cs = {{"home", false, "/home/o\xff/x is open", "chmod o-rwx /home/o\xfe"}};
  std::string text;
  ASSERT_NO_THROW(text = render_json(cs));
  auto j = nlohmann::json::parse(text, nullptr, false);
  ASSERT_TRUE(j.is_object()) << text;
  EXPECT_EQ(j["checks"][0]["detail"], "/home/o\xEF\xBF\xBD/x is open");
  EXPECT_EQ(j["checks"][0]["fix"], "chmod o-rwx /home/o\xEF\xBF\xBD");
  EXPECT_FALSE(j["ok"].get<bool>());
}

}  // namespace
}  // namespace aw

namespace aw {
namespace {

TEST(UserDoctor, ProviderAndSetupUseTheCallerAsOwner) {
  AW_NEED_USERS(u);
  std::string out = test::run_as(u->owner_uid, u->owner_gid, [&] {
    Registry r;
    r.add("user", user_provider(u->worker.name));
    auto cs = r.run("user");
    auto setup = setup_for_current_owner(u->worker.name);
    return fmt::format("{}|{}", cs.size(), setup ? *setup : setup.error().message);
  });
  EXPECT_EQ(out.rfind("0|", 0), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format("{} ALL=({}) NOPASSWD:SETENV: ALL", u->owner, u->worker.name)),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("chmod o-rwx " + u->owner_home), std::string::npos) << out;
}

}  // namespace
}  // namespace aw
