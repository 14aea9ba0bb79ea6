// aw_probe_inside [--json] TARGETS_FILE: the inside half of `awaywork probe` for tests and bench
// (the CLI's hidden `__probe-inside` subcommand runs the same probe_inside).
#include <cstring>
#include <iostream>

#include "isolate/probe/probes.h"

int main(int argc, char** argv) {
  bool json = false;
  const char* file = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else
      file = argv[i];
  }
  if (!file) {
    std::cerr << "usage: aw_probe_inside [--json] TARGETS_FILE\n";
    return 2;
  }
  return aw::probe_inside("aw_probe_inside", json, file, std::cout, std::cerr);
}
