// For benchmarks: a fresh folder made from a mkdtemp template, removed with everything in it when
// the benchmark ends, also on the early return of a failed round.
#pragma once

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/fs.h"

namespace aw::bench {

class TempRoot {
 public:
  // prefix: "/tmp/aw-NAME-" (mkdtemp's XXXXXX is added).
  explicit TempRoot(const std::string& prefix) {
    std::string tmpl = prefix + "XXXXXX";
    if (!::mkdtemp(tmpl.data())) {
      std::fprintf(stderr, "mkdtemp %s failed\n", tmpl.c_str());
      std::exit(1);  // nothing to measure in
    }
    path_ = tmpl;
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
  ~TempRoot() { (void)remove_tree(path_); }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace aw::bench
