// doctor for isolation user: world-writable folders without the sticky bit, outside the swept
// /tmp, /var/tmp and /dev/shm, are warnings with the fix; sticky ones, links and other file
// systems are not followed or listed.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "isolate/user/leftovers.h"
#include "isolate/user/shared_folders.h"

namespace aw {
namespace {

namespace fs = std::filesystem;

TEST(SharedFolders, ListsWorldWritableNonStickyFoldersOnlyWithTheFix) {
  // Not under /tmp, /var/tmp or /dev/shm: those are swept, so never listed (a build tree may
  // itself be under /tmp: then the home folder serves).
  std::string base = AW_BINARY_DIR;
  for (const auto& r : leftover_roots())
    if (base == r || base.rfind(r + "/", 0) == 0)
      base = std::getenv("HOME") ? std::getenv("HOME") : "/root";
  std::string tmpl = base + "/aw-shared-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  std::string root = tmpl;
  fs::create_directories(root + "/open/inner");
  fs::create_directories(root + "/sticky");
  fs::create_directories(root + "/closed");
  ASSERT_EQ(::chmod((root + "/open").c_str(), 0777), 0);
  ASSERT_EQ(::chmod((root + "/open/inner").c_str(), 0757), 0);
  ASSERT_EQ(::chmod((root + "/sticky").c_str(), 01777), 0);
  fs::create_directory_symlink(root + "/open", root + "/link-to-open");
  auto found = open_shared_folders(root);
  EXPECT_EQ(found, (std::vector<std::string>{root + "/open", root + "/open/inner"}));
  Check c = shared_folders_check(root);
  EXPECT_TRUE(c.ok);  // a warning: it does not stop a unit
  EXPECT_EQ(c.detail.rfind("warning; ", 0), 0u) << c.detail;
  EXPECT_NE(c.detail.find("sudo chmod o-w '" + root + "/open'"), std::string::npos) << c.detail;
  ASSERT_EQ(::chmod((root + "/open").c_str(), 0755), 0);
  ASSERT_EQ(::chmod((root + "/open/inner").c_str(), 0755), 0);
  EXPECT_EQ(shared_folders_check(root).detail, "none found");
  fs::remove_all(root);
}

TEST(SharedFolders, TheSweptTreesAreNotListed) {
  for (const auto& f : open_shared_folders("/"))
    for (const char* swept : {"/tmp", "/var/tmp", "/dev/shm"})
      EXPECT_NE(f.rfind(std::string(swept) + "/", 0), 0u) << f;
}

}  // namespace
}  // namespace aw
