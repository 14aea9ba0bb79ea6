// The real engine for the container tests: started by scripts/engine-up, with the local test image
// built by scripts/test-image (no registry is reachable, nothing is pulled).
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "isolate/container/container_launcher.h"
#include "isolate/container/engine.h"

namespace aw::test {

inline constexpr const char* kImage = "awaywork-test:bookworm";

// The engine, or nullptr with `why` set (the caller skips, or fails under CI=true).
const Engine* test_engine(std::string* why);

bool under_ci();

#define AW_NEED_ENGINE(var)                                                               \
  std::string aw_why_;                                                                    \
  const ::aw::Engine* var##_p = ::aw::test::test_engine(&aw_why_);                        \
  if (!var##_p) {                                                                         \
    if (::aw::test::under_ci()) FAIL() << "CI=true and no container engine: " << aw_why_; \
    GTEST_SKIP() << "no container engine: " << aw_why_;                                   \
  }                                                                                       \
  const ::aw::Engine& var = *var##_p

// A clone stand-in: a fresh folder owned by the test's container user.
struct Scratch {
  std::string root;    // 0700 temp folder
  std::string clone;   // root/work, owned by uid:gid
  std::string plugin;  // root/plugin, read-only inside
  uid_t uid;
  gid_t gid;
  Scratch();
  ~Scratch();
};

struct Ran {
  int status = -1;  // waitpid status of the client
  std::string out, err;
};

// Start a phase through the container launcher, as the runner's keeper would.
pid_t start_phase(const ContainerPlan& plan, const std::string& name,
                  const std::vector<std::string>& argv, const std::vector<std::string>& env,
                  int* out_fd, int* err_fd);
// Start, wait for the client, collect output; then remove_container (as the lead does).
Ran run_phase_in(const ContainerPlan& plan, const std::vector<std::string>& argv,
                 const std::vector<std::string>& env = {});

ContainerPlan plan_for(const Engine& e, const Scratch& s);
std::string unique_name(const char* what);
int exit_code(const Ran& r);

// Every /proc/<pid>/cmdline of the host, NULs as spaces.
std::vector<std::string> host_cmdlines();

}  // namespace aw::test
