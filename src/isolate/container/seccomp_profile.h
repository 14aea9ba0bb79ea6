// The container's syscall filter: the engines' default profile (containers-common's
// seccomp.json, the lineage Docker's built-in one shares) tightened where the OS sandbox's own
// filter is stricter (sandbox/seccomp.cc): no ptrace, no io_uring, sockets only of the families
// an agent uses (unix, inet, inet6, netlink but audit), no TIOCSTI.
#pragma once

#include <string>

#include "base/result.h"

namespace aw {

inline constexpr const char* kEngineSeccompBase = "/usr/share/containers/seccomp.json";

// The tightened profile as JSON text, from the base profile's text. Error on a base that is not
// such a profile (no defaultAction that refuses, no syscalls list).
Result<std::string> tighten_seccomp_profile(const std::string& base);

// Reads kEngineSeccompBase (or `base_path`), writes the tightened profile to `path` (0644: the
// engine's client reads it). Error when the base is missing: the caller then runs with the
// engine's own default and says so.
Status write_seccomp_profile(const std::string& path,
                             const std::string& base_path = kEngineSeccompBase);

}  // namespace aw
