// Internal to the sandbox's host side: what of the host the view includes besides the system
// trees, decided before any phase runs (make_plan): toolchains the phases resolve into, the
// owner's `sandbox.readable` paths, and the files only root may read, which are masked.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "isolate/sandbox/plan.h"

namespace aw::sandbox {

// The owner's `sandbox.readable` paths, lent read-only ("readable"). Refuses a path inside a
// hidden one (hidden wins; say so rather than drop it) and "/" or a whole home.
Status add_readable(const SandboxConfig& config, const SandboxPaths& unit, SandboxPlan& plan);

// The install folders of unit.programs and of unit.path_value's entries that lie outside the
// view (an nvm, pyenv, cargo, ~/.local or npm-prefix install), lent read-only ("toolchain: X").
void add_toolchains(const SandboxPaths& unit, SandboxPlan& plan);

// Lend the install folder of one program (given as found, real = its link-free path).
void lend_install(const std::string& given, const std::string& why, SandboxPlan& plan);

// The named secrets of /etc always; with root_owner, also every file or folder of /etc, /opt
// and /usr/local a user other than root could not read.
std::vector<std::string> root_only_files(bool root_owner);

}  // namespace aw::sandbox
