// Test helpers for the git room: real repositories in temporary folders, set up with a shell
// (test code only; the library itself never uses one).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/fs.h"
#include "git/git.h"
#include "proc/capture.h"

namespace aw::test {

inline std::string sq(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct TempDir {
  std::string path;
  TempDir() {
    char buf[] = "/tmp/aw-git-test-XXXXXX";
    path = ::mkdtemp(buf);
  }
  ~TempDir() { (void)remove_tree(path); }
};

// Run a shell command for setup; the environment is clean so the host's git config plays no part.
inline Captured sh_capture(const std::string& cmd, const std::string& cwd = "/") {
  CaptureSpec spec;
  spec.argv = {"/bin/sh", "-c", cmd};
  spec.env = {"PATH=/usr/bin:/bin",
              "HOME=/nonexistent",
              "GIT_CONFIG_NOSYSTEM=1",
              "GIT_CONFIG_GLOBAL=/dev/null",
              "GIT_AUTHOR_NAME=Owner",
              "GIT_AUTHOR_EMAIL=owner@example.com",
              "GIT_COMMITTER_NAME=Owner",
              "GIT_COMMITTER_EMAIL=owner@example.com",
              "LC_ALL=C"};
  spec.cwd = cwd;
  auto r = capture(spec);
  return r ? *r : Captured{-1, "", r.error().message};
}

inline std::string sh(const std::string& cmd, const std::string& cwd = "/") {
  Captured c = sh_capture(cmd, cwd);
  EXPECT_EQ(c.exit_code, 0) << cmd << "\n" << c.out << c.err;
  std::string out = c.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

#ifdef AW_BINARY_DIR
// The askpass git runs in a test that fetches or pushes: awaywork's own binary in the build tree.
inline const std::string kAskpass = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
#endif

inline bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

inline std::string slurp(const std::string& p) {
  auto r = read_file(p);
  return r ? *r : std::string("<unreadable: ") + r.error().message + ">";
}

// A source repository with two commits; base = the first, HEAD = the second.
class GitTest : public ::testing::Test {
 protected:
  TempDir tmp;
  std::string src_dir, work, shadow, scratch, marker;
  SourceRepo src;
  std::string base, head;

  void SetUp() override {
    src_dir = tmp.path + "/source";
    work = tmp.path + "/run/work";
    shadow = tmp.path + "/run/git";
    scratch = tmp.path + "/run/scratch";
    marker = tmp.path + "/MARKER";
    ASSERT_EQ(::mkdir((tmp.path + "/run").c_str(), 0700), 0);
    sh("git init -q -b main " + sq(src_dir));
    sh("printf 'alpha\\n' > a.txt && printf 'bravo\\n' > b.txt && mkdir dir && "
       "printf 'charlie\\n' > dir/c.txt && printf '*.log\\n' > .gitignore && git add -A && "
       "git commit -q -m one",
       src_dir);
    base = sh("git rev-parse HEAD", src_dir);
    sh("printf 'alpha two\\n' > a.txt && git commit -q -am two", src_dir);
    head = sh("git rev-parse HEAD", src_dir);
    auto s = open_source(src_dir);
    ASSERT_TRUE(s) << s.error().message;
    src = *s;
  }

  Clone clone_at(const std::string& commit) {
    auto c = make_clone(src, commit, "main", work, shadow);
    EXPECT_TRUE(c) << c.error().message;
    return c ? *c : Clone{};
  }

  // A script that leaves the marker when anything runs it.
  std::string marker_script(const std::string& name) {
    std::string p = tmp.path + "/" + name;
    EXPECT_TRUE(write_file(p, "#!/bin/sh\necho " + name + " >> " + sq(marker) + "\ncat\n", 0755));
    return p;
  }
};

}  // namespace aw::test
