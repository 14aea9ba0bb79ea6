// `awaywork probe` and the sandbox's read view (docs/sandbox.md): nothing of the owner's home but
// what the view lends, no other user's open home, no file only root may read. Run by the real
// awaywork as root and as an ordinary owner (a real user, tests/isolate/user's fixture), isolation
// none. The positive control is the same probe with the sandbox off: what the view keeps out is
// there.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "../isolate/user/user_fixture.h"
#include "../unit/unit_fixture.h"
#include "proc/capture.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

const char* const kViewProbes[] = {"view.home_notes", "view.browser_cookies",
                                   "view.other_tool_login"};

class ViewProbe : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    // Another user's home, open to everyone, with a diary in it.
    ASSERT_EQ(sh(fmt::format("mkdir -p {0} && echo CANARY > {0}/diary.txt && chmod 755 {0} && "
                             "chmod 644 {0}/diary.txt && chown -R 4243:4243 {0}",
                             other_)),
              0);
  }
  void TearDown() override {
    fs::remove_all(other_);
    UnitTest::TearDown();
  }

  // `awaywork probe --json` with sandbox: SANDBOX, as uid/gid (0: as this root process).
  RunOutput probe(const std::string& sandbox, const Users* as = nullptr) {
    fs::create_directories(root + "/state");
    std::ofstream(config) << "state_dir: " << root << "/state\nsandbox: " << sandbox << "\n";
    CaptureSpec spec;
    spec.argv = {awaywork_binary(), "--config", config, "probe", "--json"};
    spec.env = {"PATH=/usr/bin:/bin", "LANG=C", "HOME=" + (as ? as->owner_home : root + "/home")};
    if (as) {
      EXPECT_EQ(sh(fmt::format("chmod 711 {0} && chmod 644 {1} && chown -R {2}: {0}/state && "
                               "chmod 700 {0}/state",
                               root, config, as->owner)),
                0);
      spec.argv.insert(spec.argv.begin(),
                       {"/usr/bin/setpriv", fmt::format("--reuid={}", as->owner_uid),
                        fmt::format("--regid={}", as->owner_gid), "--init-groups", "--"});
    } else {
      fs::create_directories(root + "/home");
    }
    spec.cwd = "/";
    RunOutput o = run_captured(spec);
    if (std::getenv("AW_SHOW")) std::fprintf(stderr, "%s\n%s\n", o.out.c_str(), o.err.c_str());
    return o;
  }

  static std::map<std::string, bool> leaked(const RunOutput& r) {
    std::map<std::string, bool> out;
    if (r.record.is_object())
      for (const auto& p : r.record["probes"])
        out[p["name"].get<std::string>()] = !p["ok"].get<bool>();
    return out;
  }

  // Every view probe ran and is ok, the planted other home's and /etc/shadow's among them.
  void expect_view_probes_ok(const RunOutput& r) {
    ASSERT_TRUE(r.record.is_object()) << r.out << r.err;
    auto l = leaked(r);
    std::vector<std::string> names(std::begin(kViewProbes), std::end(kViewProbes));
    names.push_back("view.other_home:" + other_);
    names.push_back("rootonly:/etc/shadow");
    for (const auto& n : names) {
      ASSERT_TRUE(l.count(n)) << n << " missing: " << r.out;
      EXPECT_FALSE(l[n]) << n << ": " << r.out;
    }
    EXPECT_EQ(r.exit_code, 0) << r.out;
  }

  std::string other_ = fmt::format("/home/aw-view-other-{}", ::getpid());
};

#define NEED_ROOT()                                                   \
  if (::geteuid() != 0) {                                             \
    if (in_ci()) FAIL() << "needs root (plants another user's home)"; \
    GTEST_SKIP() << "needs root (plants another user's home)";        \
  }

TEST_F(ViewProbe, AsRootNothingOfTheHomesNorRootOnlyFilesIsReadable) {
  NEED_ROOT();
  auto r = probe("{}");
  expect_view_probes_ok(r);
  // Positive control: without the sandbox every one of them is read.
  auto off = leaked(probe("{mode: off}"));
  for (const char* n : kViewProbes) EXPECT_TRUE(off[n]) << n;
  EXPECT_TRUE(off["view.other_home:" + other_]);
  EXPECT_TRUE(off["rootonly:/etc/shadow"]);
  // The canaries were planted for the run only.
  for (const auto& e : fs::directory_iterator(root + "/home"))
    ADD_FAILURE() << "left behind: " << e.path();
}

TEST_F(ViewProbe, AsAnOrdinaryOwnerNothingOfTheHomesNorRootOnlyFilesIsReadable) {
  AW_NEED_USERS(u);
  auto r = probe("{limits: off}", u);  // an ordinary owner has no cgroup to limit with
  expect_view_probes_ok(r);
  // Positive control: unsandboxed, the owner reads their own home and the open one; /etc/shadow
  // stays the kernel's to refuse (an ordinary user never reads it).
  auto off = leaked(probe("{mode: off}", u));
  for (const char* n : kViewProbes) EXPECT_TRUE(off[n]) << n;
  EXPECT_TRUE(off["view.other_home:" + other_]);
  EXPECT_FALSE(off["rootonly:/etc/shadow"]);
}

}  // namespace
}  // namespace aw::test
