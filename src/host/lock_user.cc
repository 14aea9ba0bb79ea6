// The worker user as isolation `user` requires it (isolate/user/worker.h), made or reshaped with
// the system's own tools (useradd, usermod, gpasswd), so that /etc/passwd, /etc/group and
// /etc/shadow stay as those tools keep them.
#include <shadow.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "base/fs.h"
#include "host/lock.h"
#include "isolate/user/handoff.h"
#include "isolate/user/worker.h"
#include "proc/capture.h"

namespace aw {

namespace {

const std::vector<std::string> kEnv = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};

Status run(std::vector<std::string> argv) {
  AW_TRY(Captured c, capture({argv, kEnv, "/", ""}));
  if (c.exit_code == 0) return {};
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return fail("{} failed (exit {}): {}", cmd, c.exit_code, c.err);
}

Status shape(const WorkerUser& w, std::vector<LockChange>& out) {
  auto note = [&](std::string what) { out.push_back({LockStep::user, std::move(what)}); };
  if (w.shell != "/usr/sbin/nologin") {
    AW_CHECK(run({"usermod", "-s", "/usr/sbin/nologin", w.name}));
    note(fmt::format("{}: shell {} -> /usr/sbin/nologin", w.name, w.shell));
  }
  if (w.home != worker_home(w.name)) {
    // The old folder stays (it may be anyone's); the worker's passwd home no longer names it.
    AW_CHECK(run({"usermod", "-d", worker_home(w.name), w.name}));
    note(fmt::format("{}: home {} -> {}", w.name, w.home, worker_home(w.name)));
  }
  struct stat st {};
  if (::lstat(worker_home(w.name).c_str(), &st) == 0) {
    AW_CHECK(remove_tree(worker_home(w.name)));
    note(fmt::format("removed {} (the worker's home must not exist)", worker_home(w.name)));
  }
  if (w.group != w.name) {
    AW_CHECK(run({"groupadd", "-f", w.name}));
    AW_CHECK(run({"usermod", "-g", w.name, w.name}));
    note(fmt::format("{}: primary group {} -> {}", w.name, w.group, w.name));
  }
  for (const auto& g : w.others) {
    AW_CHECK(run({"gpasswd", "-d", w.name, g}));
    note(fmt::format("{}: removed from group {}", w.name, g));
  }
  return {};
}

Status lock_password(const std::string& name, std::vector<LockChange>& out) {
  struct spwd* sp = ::getspnam(name.c_str());
  if (!sp || !sp->sp_pwdp || sp->sp_pwdp[0] == '!' || sp->sp_pwdp[0] == '*') return {};
  AW_CHECK(run({"usermod", "-L", name}));
  out.push_back({LockStep::user, name + ": password locked"});
  return {};
}

Status deny_cron_and_at(const std::string& name, std::vector<LockChange>& out) {
  for (const char* f : {"/etc/cron.deny", "/etc/at.deny"}) {
    if (listed_in(f, name)) continue;
    std::string text = read_or_empty(f);
    if (!text.empty() && text.back() != '\n') text += '\n';
    AW_CHECK(replace_file(f, text + name + "\n", 0644));
    out.push_back({LockStep::user, fmt::format("{}: listed in {}", name, f)});
  }
  // A crontab written before the deny list would still run.
  for (const char* dir : {"/var/spool/cron/crontabs/", "/var/spool/cron/"}) {
    std::string tab = dir + name;
    struct stat st {};
    if (::lstat(tab.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      if (::unlink(tab.c_str()) != 0) return fail("remove {}: {}", tab, errno_text(errno));
      out.push_back({LockStep::user, "removed the worker's crontab " + tab});
    }
  }
  return {};
}

// What sudo lets the worker run, as root sees it: "" when nothing.
Result<std::string> worker_sudo_rights(const std::string& name) {
  AW_TRY(Captured c, capture({{"/usr/bin/sudo", "-n", "-l", "-U", name}, kEnv, "/", ""}));
  if (c.out.find("is not allowed to run sudo") != std::string::npos) return std::string();
  if (c.exit_code != 0) return fail("sudo -l -U {} failed: {}", name, c.err);
  return c.out;
}

}  // namespace

Status lock_user(const std::string& worker, const std::string& runner,
                 std::vector<LockChange>& out) {
  if (!is_plain_user_name(worker)) return fail("'{}' is not a plain user name", worker);
  auto w = lookup_worker(worker);
  if (!w) {
    AW_CHECK(run({"useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                  worker_home(worker), "--shell", "/usr/sbin/nologin", worker}));
    out.push_back({LockStep::user, "created user " + worker});
    AW_TRY(w, lookup_worker(worker));
  }
  if (w->name == runner) return fail("the worker must not be the runner");
  AW_CHECK(shape(*w, out));
  AW_CHECK(lock_password(worker, out));
  AW_CHECK(deny_cron_and_at(worker, out));
  // Left from before the lock (an earlier step, a cron job): none may outlive it.
  AW_TRY(auto pids, worker_processes(w->uid));
  if (!pids.empty()) {
    AW_CHECK(kill_worker_processes(*w));
    out.push_back(
        {LockStep::user, fmt::format("killed {} process(es) of {}", pids.size(), worker)});
  }
  if (::access("/usr/bin/sudo", X_OK) == 0) {
    AW_TRY(std::string rights, worker_sudo_rights(worker));
    if (!rights.empty())
      return fail(
          "sudo still grants {} something (a rule naming it or ALL, not a group it was in): "
          "remove it with visudo, then run host lock again:\n{}",
          worker, rights);
  }
  return {};
}

}  // namespace aw
