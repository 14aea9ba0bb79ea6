// Real users for isolation `user` tests: an owner and a worker created with useradd, the two
// sudoers lines in /etc/sudoers.d, the deny lists, protected_{hard,sym}links=1 for the run (the
// previous values are restored; scripts/test sets both to 1 before ctest, so there the restore
// changes nothing another test could see). Needs root; skips otherwise (FAIL under CI=true). One
// process at a time holds the machine-wide setup (flock), so ctest -j cannot interleave two of
// them. A test that turns a sysctl off (SysctlScope) belongs to a HostWide* suite: ctest runs it
// alone (cmake/awaywork.cmake).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "isolate/user/worker.h"

namespace aw::test {

inline constexpr const char* kOwner = "aw-owner-test";
inline constexpr const char* kWorker = "aw-worker-test";

struct Users {
  std::string owner = kOwner;
  uid_t owner_uid = 0;
  gid_t owner_gid = 0;
  std::string owner_home;
  WorkerUser worker;
};

// Sets everything up once per process; nullptr with why when the test cannot run.
const Users* users(std::string& why);
bool in_ci();

// AW_NEED_USERS(u): bind `const Users* u` or skip the test (a failure under CI=true).
#define AW_NEED_USERS(u)                                            \
  std::string u##_why;                                              \
  const ::aw::test::Users* u = ::aw::test::users(u##_why);          \
  if (!u) {                                                         \
    if (::aw::test::in_ci() || ::geteuid() == 0) FAIL() << u##_why; \
    GTEST_SKIP() << u##_why;                                        \
  }

// Run fn in a child process as uid/gid (with only gid as group), cwd "/", and return what it
// returned. The child's exit status must be 0 (EXPECTed here).
std::string run_as(uid_t uid, gid_t gid, const std::function<std::string()>& fn);

// Run a shell command as root; returns its exit code.
int sh(const std::string& command);
// Its standard output.
std::string sh_out(const std::string& command);

// Set a sysctl under /proc/sys/fs (e.g. "protected_symlinks") for the scope of the object.
class SysctlScope {
 public:
  SysctlScope(const std::string& key, int value);
  ~SysctlScope();

 private:
  std::string key_;
  std::string old_;
};

// connect(2) to a unix socket as whoever runs it: "ok", "EACCES" or the errno's text.
std::string connect_result(const std::string& path);

}  // namespace aw::test
