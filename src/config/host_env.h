// Where awaywork runs, read from its environment, and what that imposes on the isolation
// (DESIGN.md section 11): on a GitHub-hosted runner and in awaywork's image the repository's code
// never runs as the user awaywork runs as (the runner has the job's token and passwordless sudo;
// the image's `away` holds the forge credential), so isolation `none` is not allowed there.
//   HostKind k = host_kind(std::getenv);
//   if (auto why = force_isolation(cfg, k); !why.empty()) ...  // isolation raised to user
#pragma once

#include <functional>
#include <string>

namespace aw {

struct Config;

enum class HostKind { plain, github_hosted, image };

using EnvLookup = std::function<const char*(const char*)>;

// image: AWAYWORK_IMAGE=1 (set by contrib/docker/Dockerfile). github_hosted: GITHUB_ACTIONS=true
// and RUNNER_ENVIRONMENT=github-hosted (what GitHub's runner sets on its own machines; a
// self-hosted runner says self-hosted and is a box like any other).
HostKind host_kind(const EnvLookup& env);

// In the image isolation is `user` whatever the config says; on a hosted runner `none` becomes
// `user` (a container stays a container). Returns why it changed cfg.isolation, or "".
std::string force_isolation(Config& cfg, HostKind kind);

// "; isolation user: <why>" for doctor's isolation line where the host decides it, else "".
std::string host_isolation_note(HostKind kind);

// Why the worker user is required and missing here, and how to get it: "" on a plain host
// (doctor's fix applies there).
std::string missing_worker_refusal(HostKind kind);

}  // namespace aw
