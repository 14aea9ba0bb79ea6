// The two sudoers lines allow exactly the two chowns of a unit folder, and sudo refuses every
// other form: checked with `sudo -n -l CMD` (would it run?) and with real attempts, as the owner.
#include <sys/stat.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/fs.h"
#include "isolate/user/handoff.h"
#include "isolate/user/sudoers.h"
#include "proc/capture.h"
#include "user_fixture.h"

namespace aw {
namespace {

using test::run_as;

const std::vector<std::string> kEnv = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};

// Exit code of `sudo -n ARGS...` run as uid/gid.
int sudo_as(uid_t uid, gid_t gid, std::vector<std::string> args) {
  std::vector<std::string> argv = {"/usr/bin/sudo", "-n"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string out = run_as(uid, gid, [&] {
    auto c = capture({argv, kEnv, "/", ""});
    return c ? std::to_string(c->exit_code) : std::string("start failed");
  });
  return std::atoi(out.c_str());
}

uid_t owner_of(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

TEST(UserSudoers, GeneratedLinesPassVisudo) {
  SudoersParams p{"alice", 1000, 1000, "awaywork"};
  auto lines = sudoers_lines(p);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "alice ALL=(awaywork) NOPASSWD:SETENV: ALL");
  EXPECT_EQ(lines[1].find('*'), std::string::npos) << "never a `*` wildcard";
  EXPECT_NE(lines[1].find("/tmp/awaywork-[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]"
                          "[A-Za-z0-9],"),
            std::string::npos);
  if (::access("/usr/sbin/visudo", X_OK) != 0) GTEST_SKIP() << "visudo missing";
  ASSERT_TRUE(write_file("/tmp/aw-user-visudo-check", lines[0] + "\n" + lines[1] + "\n", 0440));
  EXPECT_EQ(test::sh("visudo -cqf /tmp/aw-user-visudo-check"), 0);
  ::unlink("/tmp/aw-user-visudo-check");
}

TEST(UserSudoers, TheTwoChownsOfAUnitFolderAreAllowed) {
  AW_NEED_USERS(u);
  std::string path = run_as(u->owner_uid, u->owner_gid, [] {
    auto f = make_unit_folder();
    return f ? f->path : std::string();
  });
  ASSERT_TRUE(is_unit_path(path)) << path;
  std::string c = chown_path();
  std::string back = fmt::format("{}:{}", u->owner_uid, u->owner_gid);
  EXPECT_EQ(
      sudo_as(u->owner_uid, u->owner_gid, {"-l", c, "-R", "-h", "-P", u->worker.name + ":", path}),
      0);
  EXPECT_EQ(sudo_as(u->owner_uid, u->owner_gid, {c, "-R", "-h", "-P", u->worker.name + ":", path}),
            0);
  EXPECT_EQ(owner_of(path), u->worker.uid);
  EXPECT_EQ(sudo_as(u->owner_uid, u->owner_gid, {c, "-R", "-h", "-P", back, path}), 0);
  EXPECT_EQ(owner_of(path), u->owner_uid);
  ::rmdir(path.c_str());
}

// Each form: sudo -l must refuse it, and a real attempt must fail and leave the target alone.
TEST(UserSudoers, EveryOtherFormIsRefused) {
  AW_NEED_USERS(u);
  uid_t ou = u->owner_uid;
  gid_t og = u->owner_gid;
  std::string c = chown_path();
  std::string w = u->worker.name + ":";
  std::string back = fmt::format("{}:{}", ou, og);
  // Harmless root-owned decoys that a refused form would otherwise have chowned.
  ASSERT_EQ(test::sh("rm -rf /tmp/awaywork-abcdef /tmp/awaywork-abcdefg /tmp/aw-user-decoy && "
                     "mkdir -p /tmp/awaywork-abcdef /tmp/awaywork-abcdefg /tmp/aw-user-decoy && "
                     "chmod 755 /tmp/awaywork-abcdef"),
            0);
  const std::vector<std::vector<std::string>> refused = {
      {c, "-R", "-h", "-P", w, "/etc/shadow"},
      {c, "-R", "-h", "-P", back, "/etc/shadow"},
      {c, "-R", "-h", "-P", w, "/tmp/awaywork-abcdefg"},                  // a seventh character
      {c, "-R", "-h", "-P", w, "/tmp/awaywork-abcde"},                    // five
      {c, "-R", "-h", "-P", w, "/tmp/awaywork-abcdef/../aw-user-decoy"},  // ../
      {c, "-R", "-h", "-P", w, "/tmp/awaywork-../aw-user-decoy"},
      {c, "-R", "-h", "-P", w, "/tmp/awaywork-ab def"},                        // a space
      {c, "-R", "-h", "-P", w, "/tmp/awaywork-abcdef", "/tmp/aw-user-decoy"},  // a second path
      {c, "-R", "-h", "-P", w, "/tmp/aw-user-decoy", "/tmp/awaywork-abcdef"},
      {c, "-R", "-h", "-L", w, "/tmp/awaywork-abcdef"},  // -L follows links
      {c, "-R", "-L", "-P", w, "/tmp/awaywork-abcdef"},
      {c, "-R", "-P", w, "/tmp/awaywork-abcdef"},              // without -h
      {c, "-R", "-h", "-P", "root:", "/tmp/awaywork-abcdef"},  // root:
      {c, "-R", "-h", "-P", "root:root", "/tmp/awaywork-abcdef"},
      {c, "-R", "-h", "-P", "0:0", "/tmp/awaywork-abcdef"},
      {c, "-R", "-h", "-P", w + "root", "/tmp/awaywork-abcdef"},
      {c, "-R", "-h", "-P", "--from=0", w, "/tmp/awaywork-abcdef"},
      {c, "--reference=/etc/shadow", "/tmp/awaywork-abcdef"},
      {"/bin/chown", "-R", "-h", "-P", "root:", "/tmp/awaywork-abcdef"},
      {"/usr/bin/chmod", "-R", "777", "/tmp/awaywork-abcdef"},
      {"-u", "root", "/usr/bin/id"},  // -u root
      {"-g", "root", "/usr/bin/id"},  // -g root
      {"-u", u->worker.name, "-g", "root", "/usr/bin/id"},
      {"/usr/bin/id"},
      {"-s"},
      {"-i"},
  };
  for (const auto& form : refused) {
    std::string shown;
    for (const auto& a : form) shown += " " + a;
    std::vector<std::string> listed = {"-l"};
    if (form[0] != "-s" && form[0] != "-i") {
      // sudo -l takes -u/-g before -l's command: move them in front.
      size_t i = 0;
      std::vector<std::string> opts;
      while (i + 1 < form.size() && (form[i] == "-u" || form[i] == "-g")) {
        opts.push_back(form[i]);
        opts.push_back(form[i + 1]);
        i += 2;
      }
      listed = opts;
      listed.push_back("-l");
      listed.insert(listed.end(), form.begin() + static_cast<long>(i), form.end());
      EXPECT_NE(sudo_as(ou, og, listed), 0) << "sudo -l allows:" << shown;
    }
    // Real attempts only where a wrongly allowed one would be harmless (never /etc/shadow).
    if (shown.find("/etc/shadow") != std::string::npos) continue;
    EXPECT_NE(sudo_as(ou, og, form), 0) << "sudo ran:" << shown;
  }
  EXPECT_EQ(owner_of("/tmp/awaywork-abcdef"), 0u);
  EXPECT_EQ(owner_of("/tmp/awaywork-abcdefg"), 0u);
  EXPECT_EQ(owner_of("/tmp/aw-user-decoy"), 0u);
  EXPECT_EQ(owner_of("/etc/shadow"), 0u);
  test::sh("rm -rf /tmp/awaywork-abcdef /tmp/awaywork-abcdefg /tmp/aw-user-decoy");
}

TEST(UserSudoers, WorkerRuleRunsAnythingAsTheWorkerOnly) {
  AW_NEED_USERS(u);
  std::string out = run_as(u->owner_uid, u->owner_gid, [&] {
    auto c = capture(
        {{"/usr/bin/sudo", "-n", "-u", u->worker.name, "--", "/usr/bin/id", "-u"}, kEnv, "/", ""});
    return c ? c->out : std::string();
  });
  EXPECT_EQ(out, fmt::format("{}\n", u->worker.uid));
}

}  // namespace
}  // namespace aw
