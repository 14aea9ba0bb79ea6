// The sandbox's read view inside a unit (docs/sandbox.md): a toolchain installed under the owner's
// home (a node in an nvm-like tree) is lent to the check that uses it, read-only, and the record
// says so; the rest of the home stays out of the view.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "unit_fixture.h"

extern char** environ;

namespace aw::test {
namespace {

namespace fs = std::filesystem;

class View : public UnitTest {
 protected:
  // awaywork run with HOME and PATH of our choosing (no second HOME or PATH from our environ).
  RunOutput run_as_owner(const std::string& home, const std::string& path) {
    CaptureSpec spec;
    spec.argv = {awaywork_binary(), "--config", config,  "run", "--repo", "src",
                 "--prompt",        "go",       "--json"};
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      if (kv.rfind("HOME=", 0) != 0 && kv.rfind("PATH=", 0) != 0) spec.env.push_back(kv);
    }
    spec.env.push_back("HOME=" + home);
    spec.env.push_back("PATH=" + path);
    return run_captured(spec);
  }
};

TEST_F(View, ANodeUnderTheOwnersHomeRunsAsACheckAndTheRestOfTheHomeIsNotInTheView) {
  if (::geteuid() != 0) {
    if (std::getenv("CI") && std::string(std::getenv("CI")) == "true") FAIL() << "needs root";
    GTEST_SKIP() << "needs root (the default sandbox's cgroup limits)";
  }
  ASSERT_EQ(::access("/usr/bin/node", X_OK), 0) << "needs node (scripts/deps)";
  // The owner's home outside /tmp (a program under the host's /tmp is lent alone, not its tree).
  char tmpl[] = "/var/tmp/aw-view-home-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string home = tmpl, bin = home + "/.nvm/versions/node/v99.0.0/bin";
  struct Cleanup {
    std::string dir;
    ~Cleanup() { fs::remove_all(dir); }
  } cleanup{home};
  fs::create_directories(bin);
  fs::create_directories(home + "/notes");
  std::ofstream(home + "/notes/plans.md") << "CANARY the owner's note\n";
  // The node of this tree: a hard link when the file system allows it (the same inode, so no
  // link leads back into /usr), else a copy.
  std::error_code ec;
  fs::create_hard_link("/usr/bin/node", bin + "/node", ec);
  if (ec) fs::copy_file("/usr/bin/node", bin + "/node");
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("peek", "cat \"" + home +
                                        "/notes/plans.md\" > \"$AWAYWORK_OUTPUTS/peek\" "
                                        "2>&1 || true; echo y > a.txt"),
               "    checks: [[node, -e, \"require('fs').writeFileSync(process.env.AWAYWORK_OUTPUTS "
               "+ '/node', process.execPath + ' ' + process.version)\"]]\n");
  auto r = run_as_owner(home, bin + ":/usr/bin:/bin");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string outputs = r.record["run_dir"].get<std::string>() + "/outputs";
  std::string ran = read(outputs + "/node");
  EXPECT_EQ(ran.rfind(bin + "/node v", 0), 0u) << ran;  // the owner's node ran, from its tree
  EXPECT_NE(read(outputs + "/peek").find("No such file"), std::string::npos)
      << read(outputs + "/peek");
  std::string note = r.record["sandbox"];
  EXPECT_NE(note.find("~/.nvm/versions/node/v99.0.0 (toolchain: "), std::string::npos) << note;
  EXPECT_EQ(note.find("notes"), std::string::npos) << note;
  // Positive control: the lend is what makes it run. With the tree hidden, nothing lends it: the
  // check's PATH lookup passes the owner's node by and finds the system's.
  std::ofstream(config, std::ios::app) << "sandbox: {hidden: [~/.nvm]}\n";
  auto hidden = run_as_owner(home, bin + ":/usr/bin:/bin");
  ASSERT_EQ(hidden.exit_code, 0) << hidden.err << hidden.out;
  std::string ran_hidden = read(hidden.record["run_dir"].get<std::string>() + "/outputs/node");
  EXPECT_EQ(ran_hidden.rfind("/usr/bin/node v", 0), 0u) << ran_hidden;
  EXPECT_EQ(hidden.record["sandbox"].get<std::string>().find(".nvm"), std::string::npos)
      << hidden.out;
}

}  // namespace
}  // namespace aw::test
