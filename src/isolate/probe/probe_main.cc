// aw_probe_inside [--json] TARGETS_FILE: the inside half of `awaywork probe` for tests and bench
// (the CLI's hidden `__probe-inside` subcommand calls run_probes the same way).
#include <cstring>
#include <iostream>

#include "base/fs.h"
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
  auto text = aw::read_file(file);
  if (!text) {
    std::cerr << "aw_probe_inside: " << text.error().message << "\n";
    return 2;
  }
  auto targets = aw::parse_probe_targets(*text);
  if (!targets) {
    std::cerr << "aw_probe_inside: " << targets.error().message << "\n";
    return 2;
  }
  return aw::run_probes(*targets, json, std::cout) > 0 ? 1 : 0;
}
