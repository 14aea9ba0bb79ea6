// What `awaywork doctor` checks for isolation: container, each line with the command that fixes it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aw {

struct ContainerCheck {
  enum Level { ok, warning, failure } level = ok;
  std::string what;  // "docker 20.10.24 answers (/usr/bin/docker)"
  std::string fix;   // the exact command or step; "" when ok
};

struct ContainerSetup {
  std::string engine;                 // config container_engine: docker, podman, a path, or ""
  std::vector<std::string> images;    // every repository's image (and the default one)
  std::vector<std::string> programs;  // argv[0] of every configured agent and check
  uid_t owner = 0;                    // who the containers run as
  bool allowlist = false;             // network: allowlist (needs the static egress bridge)
};

// The engine answers; each image is present (pulled when not, and said plainly when nothing can be
// pulled); each program is found inside each image; the owner is not root; no container of an
// earlier awaywork is left over; the seccomp base (seccomp_profile.h) is installed (a warning
// when not: the engine's own default applies); under allowlist, the static egress bridge exists.
std::vector<ContainerCheck> check_container_setup(const ContainerSetup& s);

}  // namespace aw
