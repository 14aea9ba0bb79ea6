#include "isolate/container/setid.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "base/fs.h"

namespace aw {
namespace {

mode_t mode_of(const std::string& p) {
  struct stat st {};
  ::lstat(p.c_str(), &st);
  return st.st_mode & 07777;
}

TEST(DropSetidBits, ClearsSetuidAndSetgidOnFilesAndFoldersAtAnyDepth) {
  char tmpl[] = "/tmp/aw-setid-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  ASSERT_TRUE(make_dirs(root + "/a/b"));
  ASSERT_TRUE(write_file(root + "/a/b/tool", "x", 0755));
  ASSERT_TRUE(write_file(root + "/plain", "x", 0644));
  ASSERT_EQ(::chmod((root + "/a/b/tool").c_str(), 06755), 0);
  ASSERT_EQ(::chmod((root + "/a").c_str(), 02755), 0);
  auto n = drop_setid_bits(root);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(mode_of(root + "/a/b/tool"), 0755u);
  EXPECT_EQ(mode_of(root + "/a"), 0755u);
  EXPECT_EQ(mode_of(root + "/plain"), 0644u);
  (void)remove_tree(root);
}

TEST(DropSetidBits, NeverFollowsALinkOutOfTheFolder) {
  char tmpl[] = "/tmp/aw-setid-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  ASSERT_TRUE(make_dirs(root + "/in"));
  ASSERT_TRUE(make_dirs(root + "/outside/d"));
  ASSERT_TRUE(write_file(root + "/outside/tool", "x", 0755));
  ASSERT_EQ(::chmod((root + "/outside/tool").c_str(), 04755), 0);
  ASSERT_EQ(::chmod((root + "/outside/d").c_str(), 02755), 0);
  ASSERT_EQ(::symlink((root + "/outside/tool").c_str(), (root + "/in/tool").c_str()), 0);
  ASSERT_EQ(::symlink((root + "/outside/d").c_str(), (root + "/in/d").c_str()), 0);
  auto n = drop_setid_bits(root + "/in");
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 0);
  EXPECT_EQ(mode_of(root + "/outside/tool"), 04755u);
  EXPECT_EQ(mode_of(root + "/outside/d"), 02755u);
  EXPECT_FALSE(drop_setid_bits(root + "/in/d")) << "a link as the top folder is refused";
  (void)remove_tree(root);
}

}  // namespace
}  // namespace aw
