#include "isolate/user/worker_sandbox.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.h"
#include "base/gcc_quirks.h"
#include "base/random.h"
#include "isolate/sandbox/plan_json.h"

namespace aw {

namespace {

bool writable_by(const struct stat& st, const WorkerUser& w) {
  if (st.st_uid == w.uid) return true;
  if (st.st_gid == w.gid && (st.st_mode & S_IWGRP)) return true;
  if (!(st.st_mode & S_IWOTH)) return false;
  // Others may write: harmless for a sticky folder (nobody renames another's entry there).
  return !(S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX));
}

bool has_x(const struct stat& st, const WorkerUser& w) {
  if (st.st_uid == w.uid) return st.st_mode & S_IXUSR;
  if (st.st_gid == w.gid) return st.st_mode & S_IXGRP;
  return st.st_mode & S_IXOTH;
}

Status copy_file(const std::string& from, const std::string& to, mode_t mode) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return fail("open {}: {}", from, errno_text(errno));
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  Status result;
  struct stat st {};
  if (out < 0)
    result = fail("create {}: {}", to, errno_text(errno));
  else if (::fstat(in, &st) != 0)
    result = fail("stat {}: {}", from, errno_text(errno));
  for (off_t off = 0; result && off < st.st_size;) {
    ssize_t n = ::sendfile(out, in, &off, static_cast<size_t>(st.st_size - off));
    if (n <= 0) result = fail("copy {} to {}: {}", from, to, errno_text(errno));
  }
  if (result && ::fchmod(out, mode) != 0) result = fail("chmod {}: {}", to, errno_text(errno));
  ::close(in);
  if (out >= 0) ::close(out);
  return result;
}

}  // namespace

bool worker_can_run_unchanged(const std::string& path, const WorkerUser& worker) {
  struct stat st {};
  if (path.empty() || path[0] != '/' || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return false;
  if (!has_x(st, worker) || writable_by(st, worker)) return false;
  for (std::string dir = path.substr(0, path.rfind('/'));; dir = dir.substr(0, dir.rfind('/'))) {
    AW_NO_WRESTRICT(if (dir.empty()) dir = "/";)  // base/gcc_quirks.h
    if (::stat(dir.c_str(), &st) != 0 || !has_x(st, worker) || writable_by(st, worker))
      return false;
    if (dir == "/") return true;
  }
}

Result<std::unique_ptr<WorkerSandboxFiles>> WorkerSandboxFiles::make(const WorkerUser& worker,
                                                                     const std::string& helper) {
  std::unique_ptr<WorkerSandboxFiles> f(new WorkerSandboxFiles());
  char tmpl[] = "/tmp/awaywork-helper-XXXXXX";
  if (!::mkdtemp(tmpl)) return fail("mkdtemp {}: {}", tmpl, errno_text(errno));
  f->dir_ = tmpl;
  if (::chmod(tmpl, 0711) != 0) return fail("chmod 711 {}: {}", tmpl, errno_text(errno));
  if (worker_can_run_unchanged(helper, worker)) {
    f->helper_ = helper;
    return f;
  }
  f->helper_ = f->dir_ + "/awaywork";
  f->copied_ = true;
  AW_CHECK(copy_file(helper, f->helper_, 0755));
  return f;
}

WorkerSandboxFiles::~WorkerSandboxFiles() {
  if (!dir_.empty()) (void)remove_tree(dir_);
}

Result<std::string> WorkerSandboxFiles::write_plan(const SandboxPlan& plan, int index) {
  std::string path = fmt::format("{}/plan-{}.json", dir_, index);
  AW_CHECK(write_file(path, plan_to_json(plan), 0644));
  return path;
}

}  // namespace aw

namespace aw {

Result<std::string> WorkerSandboxFiles::socket_path(const std::string& stem) const {
  AW_TRY(std::string tag, random_hex(16));
  return dir_ + "/" + stem + "-" + tag + ".sock";
}

bool WorkerSandboxFiles::holds(const std::string& path) const {
  return path.size() > dir_.size() + 1 && path.compare(0, dir_.size() + 1, dir_ + "/") == 0 &&
         path.find('/', dir_.size() + 1) == std::string::npos;
}

}  // namespace aw
