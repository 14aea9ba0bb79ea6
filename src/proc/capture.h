// Run a short trusted command (awaywork's own git) to completion and capture its output.
// Not for phases: those go through run_phase (runner.h), which contains and reaps what they start.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

struct Captured {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

struct CaptureSpec {
  std::vector<std::string> argv;  // argv[0] must be an absolute path or found in env's PATH
  std::vector<std::string> env;   // complete environment
  std::string cwd;                // "" = inherit
  std::string stdin_data;         // written then closed
};

// Error only when the command could not be started; a non-zero exit is a Captured.
Result<Captured> capture(const CaptureSpec& spec);

// Resolve argv0 against a PATH value (no shell): "/usr/bin/git" for "git".
Result<std::string> find_program(const std::string& name, const std::string& path_value);

}  // namespace aw
