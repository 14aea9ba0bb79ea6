#include "host/lock.h"

#include <pwd.h>
#include <unistd.h>

#include <array>

namespace aw {

namespace {

constexpr std::array<std::pair<LockStep, const char*>, 6> kSteps = {{
    {LockStep::kernel, "kernel"},
    {LockStep::user, "user"},
    {LockStep::home, "home"},
    {LockStep::walk, "walk"},
    {LockStep::acl, "acl"},
    {LockStep::sudoers, "sudoers"},
}};

}  // namespace

const char* to_string(LockStep s) {
  for (const auto& [step, name] : kSteps)
    if (step == s) return name;
  return "?";
}

Result<LockStep> parse_lock_step(const std::string& name) {
  std::string all;
  for (const auto& [step, n] : kSteps) {
    if (name == n) return step;
    all += (all.empty() ? "" : ", ") + std::string(n);
  }
  return fail("unknown step '{}' (one of {})", name, all);
}

Result<LockReport> host_lock(const LockOptions& o) {
  if (::geteuid() != 0)
    return fail("it changes users, sudoers and modes: run it as root (sudo awaywork host lock)");
  struct passwd* pw = ::getpwnam(o.runner.c_str());
  if (o.runner.empty() || !pw) return fail("runner user '{}' does not exist", o.runner);
  if (pw->pw_uid == 0) return fail("the runner must not be root (it is who runs awaywork)");
  if (o.runner == o.worker) return fail("the runner and the worker must be two users");
  LockReport r;
  auto on = [&](LockStep s) {
    if (!o.skip.count(s)) return true;
    r.skipped.push_back(s);
    return false;
  };
  if (o.for_image)
    r.notes.push_back(
        "kernel: not checked while building an image; doctor and run check it where it runs");
  else if (on(LockStep::kernel))
    AW_CHECK(with_context(lock_kernel(o.sysctl_dir, r.changes), "kernel"));
  if (on(LockStep::user)) AW_CHECK(with_context(lock_user(o.worker, o.runner, r.changes), "user"));
  if (on(LockStep::home)) AW_CHECK(with_context(lock_home(o.runner, r.changes), "home"));
  WalkSteps w{on(LockStep::walk), on(LockStep::acl)};
  if (w.clear_writable || w.clear_acls) {
    AW_TRY(r.walked, with_context(lock_walk(o.root, w, r.changes), "walk"));
  }
  if (on(LockStep::sudoers)) {
    AW_CHECK(with_context(lock_sudoers(o.worker, o.runner, r.changes), "sudoers"));
    AW_CHECK(with_context(lock_runner_sudo(o.worker, o.runner, r.changes), "sudoers"));
  }
  return r;
}

}  // namespace aw
