// A fresh folder under /var/tmp, removed with all it holds at the end. Not /tmp: a plugin's
// sandbox has a private /tmp, so what a test lends a plugin lives elsewhere.
//   struct PluginTest : ::testing::Test {
//     test::VarTmpDir tmp{"aw-plugin-test"};
//     const std::string dir = tmp.path;  // "" when it could not be made: ASSERT in SetUp
//   };
#pragma once

#include <stdlib.h>

#include <string>

#include "base/fs.h"

namespace aw::test {

struct VarTmpDir {
  std::string path;
  explicit VarTmpDir(const std::string& prefix) {
    std::string tmpl = "/var/tmp/" + prefix + "-XXXXXX";
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~VarTmpDir() {
    if (!path.empty()) (void)remove_tree(path);
  }
  VarTmpDir(const VarTmpDir&) = delete;
  VarTmpDir& operator=(const VarTmpDir&) = delete;
};

}  // namespace aw::test
