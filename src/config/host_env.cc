#include "config/host_env.h"

#include <cstring>

#include "config/config.h"

namespace aw {

namespace {

bool is(const EnvLookup& env, const char* name, const char* value) {
  const char* v = env(name);
  return v && std::strcmp(v, value) == 0;
}

}  // namespace

HostKind host_kind(const EnvLookup& env) {
  if (is(env, "AWAYWORK_IMAGE", "1")) return HostKind::image;
  if (is(env, "GITHUB_ACTIONS", "true") && is(env, "RUNNER_ENVIRONMENT", "github-hosted"))
    return HostKind::github_hosted;
  return HostKind::plain;
}

std::string force_isolation(Config& cfg, HostKind kind) {
  if (kind == HostKind::image && cfg.isolation != Isolation::user) {
    cfg.isolation = Isolation::user;
    return "AWAYWORK_IMAGE=1: awaywork's image always uses isolation user";
  }
  if (kind == HostKind::github_hosted && cfg.isolation == Isolation::none) {
    cfg.isolation = Isolation::user;
    return "a GitHub-hosted runner: the repository's code never runs as the runner";
  }
  return "";
}

std::string host_isolation_note(HostKind kind) {
  if (kind == HostKind::image) return "; AWAYWORK_IMAGE=1: the image always uses isolation user";
  if (kind == HostKind::github_hosted)
    return "; a GitHub-hosted runner: isolation none becomes user (code never runs as the runner)";
  return "";
}

std::string missing_worker_refusal(HostKind kind) {
  switch (kind) {
    case HostKind::github_hosted:
      return "can't run as the awaywork user on this GitHub-hosted runner: run awaywork through "
             "its action, which creates it";
    case HostKind::image:
      return "can't run as the awaywork user in this image: build it from awaywork's Dockerfile, "
             "which creates it";
    case HostKind::plain:
      break;
  }
  return "";
}

}  // namespace aw
