#include "isolate/container/doctor.h"

#include <fmt/format.h>

#include "base/fs.h"
#include "isolate/container/engine.h"
#include "isolate/container/seccomp_profile.h"
#include "isolate/static_program.h"

namespace aw {

namespace {

using C = ContainerCheck;

void check_image(const Engine& e, const std::string& image,
                 const std::vector<std::string>& programs, std::vector<C>& out) {
  const char* eng = to_string(e.kind);
  if (!image_present(e, image)) {
    auto pulled = pull_image(e, image);
    if (!pulled) {
      out.push_back({C::failure,
                     fmt::format("image {} is not present locally and could not be pulled: {}",
                                 image, pulled.error().message),
                     fmt::format("build or load it on this machine: `{0} load -i FILE.tar`, or "
                                 "`{0} import ROOTFS.tar {1}` (for the test image: "
                                 "scripts/test-image)",
                                 eng, image)});
      return;
    }
    out.push_back({C::ok, fmt::format("image {} was missing and has been pulled", image), ""});
  } else {
    out.push_back({C::ok, fmt::format("image {} is present", image), ""});
  }
  for (const auto& p : programs) {
    auto where = program_in_image(e, image, p);
    if (where)
      out.push_back({C::ok, fmt::format("{} is in image {} ({})", p, image, *where), ""});
    else
      out.push_back(
          {C::failure, where.error().message,
           fmt::format("install {} in the image {} (its Dockerfile), then rebuild it", p, image)});
  }
}

}  // namespace

std::vector<ContainerCheck> check_container_setup(const ContainerSetup& s) {
  std::vector<C> out;
  auto e = find_engine(s.engine);
  if (!e) {
    out.push_back({C::failure, e.error().message,
                   "start the engine (scripts/engine-up starts containerd and dockerd), or install "
                   "one: apt-get install docker.io (or podman); set container_engine in the "
                   "config to the one you use"});
    return out;
  }
  out.push_back(
      {C::ok, fmt::format("{} {} answers ({})", to_string(e->kind), e->version, e->client), ""});
  if (s.owner == 0)
    out.push_back({C::warning,
                   "containers run as uid 0 (awaywork runs as root): without capabilities and "
                   "with no-new-privileges, but files in the clone are root's",
                   "run awaywork as an unprivileged owner"});
  if (s.images.empty())
    out.push_back({C::failure, "no image is configured for isolation: container",
                   "set `image:` for each repository (or the default container_image)"});
  for (const auto& image : s.images) check_image(*e, image, s.programs, out);
  if (read_file(kEngineSeccompBase, 1 << 22).and_then(tighten_seccomp_profile))
    out.push_back({C::ok, fmt::format("seccomp profile: {} tightened", kEngineSeccompBase), ""});
  else
    out.push_back({C::warning,
                   fmt::format("{} is missing or not a profile: containers get the engine's "
                               "default seccomp profile (ptrace, io_uring, AF_VSOCK allowed)",
                               kEngineSeccompBase),
                   "apt-get install golang-github-containers-common"});
  if (s.allowlist) {
    if (auto b = static_program("aw_bridge_static"))
      out.push_back({C::ok, "egress bridge for network allowlist: " + *b, ""});
    else
      out.push_back({C::failure, b.error().message,
                     "install aw_bridge_static beside awaywork (ninja aw_bridge_static)"});
  }
  auto left = containers_of_unit(*e, "");
  if (left && !left->empty()) {
    std::string names;
    for (const auto& n : *left) names += " " + n;
    out.push_back(
        {C::warning,
         fmt::format("{} container(s) of an earlier awaywork still exist:{}", left->size(), names),
         fmt::format("{} rm -f{}", to_string(e->kind), names)});
  }
  return out;
}

}  // namespace aw
