#include "isolate/user/user_checks.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "base/fs.h"
#include "isolate/user/sudoers.h"
#include "isolate/user/worker.h"
#include "proc/capture.h"

namespace aw {

namespace {

const std::vector<std::string> kEnv = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};

Check pass(std::string name, std::string detail = "") {
  return {std::move(name), true, std::move(detail), ""};
}
Check failed(std::string name, std::string detail, std::string fix) {
  return {std::move(name), false, std::move(detail), std::move(fix)};
}

std::string trim(std::string s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// The entries of `sudo -l` output (after "may run the following commands"), with sudo's line
// wrapping undone: a continuation line is indented deeper than an entry.
std::vector<std::string> sudo_entries(const std::string& listing) {
  std::vector<std::string> out;
  std::istringstream in(listing);
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("may run the following commands") != std::string::npos) {
      in_list = true;
      continue;
    }
    if (!in_list || trim(line).empty()) continue;
    if (line.rfind("        ", 0) == 0 && !out.empty())
      out.back() += " " + trim(line);
    else
      out.push_back(trim(line));
  }
  return out;
}

// The lines as `sudo -l` prints them: "(RUNAS) TAGS: CMND".
std::vector<std::string> expected_entries(const SudoersParams& p) {
  std::string c = chown_path();
  std::string pat =
      "/tmp/awaywork-[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]";
  return {fmt::format("({}) SETENV: NOPASSWD: ALL", p.worker),
          fmt::format("(root) NOPASSWD: {} -R -h -P {}\\: {}, {} -R -h -P {}\\:{} {}", c, p.worker,
                      pat, c, p.owner_uid, p.owner_gid, pat)};
}

int read_sysctl(const std::string& dir, const std::string& name) {
  auto v = read_file(dir + "/" + name, 64);
  return v ? std::atoi(v->c_str()) : -1;
}

std::vector<Check> worker_checks(const UserCheckInput& in, const WorkerUser& w) {
  std::vector<Check> out;
  std::string n = w.name;
  if (w.uid == in.owner_uid)
    out.push_back(
        failed("worker " + n + " is not the owner", "it is the owner's own uid",
               "set `worker_user` to a dedicated user (see awaywork doctor --print-setup)"));
  struct stat st {};
  if (::lstat(w.home.c_str(), &st) == 0)
    out.push_back(failed(
        "worker " + n + " has no home", "home " + w.home + " exists",
        fmt::format("sudo usermod -d {2} {0} && sudo rm -rf -- '{1}'", n, w.home, worker_home(n))));
  else
    out.push_back(pass("worker " + n + " has no home", w.home + " does not exist"));
  if (w.shell == "/usr/sbin/nologin")
    out.push_back(pass("worker " + n + " has shell /usr/sbin/nologin"));
  else
    out.push_back(failed("worker " + n + " has shell /usr/sbin/nologin", "shell is " + w.shell,
                         "sudo usermod -s /usr/sbin/nologin " + n));
  if (w.group != n)
    out.push_back(failed("worker " + n + " has its own group only",
                         "primary group is " + (w.group.empty() ? std::to_string(w.gid) : w.group),
                         fmt::format("sudo groupadd -f {0} && sudo usermod -g {0} {0}", n)));
  else if (!w.others.empty()) {
    std::string list, fix;
    for (const auto& g : w.others) {
      list += (list.empty() ? "" : ", ") + g;
      fix += fmt::format("{}sudo gpasswd -d {} {}", fix.empty() ? "" : "\n", n, g);
    }
    out.push_back(failed("worker " + n + " has its own group only", "also in " + list, fix));
  } else {
    out.push_back(pass("worker " + n + " has its own group only"));
  }
  for (const char* f : {"/etc/cron.deny", "/etc/at.deny"}) {
    std::string name = fmt::format("worker {} is listed in {}", n, f);
    if (listed_in(f, n))
      out.push_back(pass(name));
    else
      out.push_back(failed(name, "not listed", fmt::format("echo {} | sudo tee -a {}", n, f)));
  }
  return out;
}

std::vector<Check> sudoers_checks(const UserCheckInput& in, const WorkerUser& w) {
  std::vector<Check> out;
  SudoersParams p{in.owner, in.owner_uid, in.owner_gid, w.name};
  std::string name = fmt::format("the two sudoers lines for {} are present and exact", in.owner);
  auto listing = capture({{"/usr/bin/sudo", "-n", "-l"}, kEnv, "/", ""});
  auto entries = listing ? sudo_entries(listing->out) : std::vector<std::string>{};
  auto want = expected_entries(p);
  std::vector<std::string> missing, extra;
  for (const auto& e : want)
    if (std::find(entries.begin(), entries.end(), e) == entries.end()) missing.push_back(e);
  for (const auto& e : entries) {
    // Rules that reach the worker, anything at all, or unit folders with a wildcard. Exact
    // chown rules for another worker of the same owner are not ours to judge.
    bool about_us = e.rfind("(" + w.name + ")", 0) == 0 || e.rfind("(" + w.name + " :", 0) == 0 ||
                    e.rfind("(ALL", 0) == 0 ||
                    (e.find("awaywork-") != std::string::npos && e.find('*') != std::string::npos);
    if (about_us && std::find(want.begin(), want.end(), e) == want.end()) extra.push_back(e);
  }
  if (missing.empty() && extra.empty()) {
    out.push_back(pass(name));
  } else {
    std::string detail;
    for (const auto& m : missing) detail += (detail.empty() ? "" : "; ") + ("missing " + m);
    for (const auto& x : extra) detail += (detail.empty() ? "" : "; ") + ("broader: " + x);
    std::string fix = sudoers_install_command(p);
    if (!extra.empty())
      fix +=
          "\n# and remove the broader rule(s) from /etc/sudoers and /etc/sudoers.d/ (sudo visudo)";
    out.push_back(failed(name, detail, fix));
  }
  // The worker itself may run nothing through sudo (only checkable once the first line works).
  // A worker without NOPASSWD rules hears "a password is required" (it has no password).
  std::string wname = fmt::format("worker {} can run nothing with sudo", w.name);
  auto reach =
      capture({{"/usr/bin/sudo", "-n", "-u", w.name, "--", "/usr/bin/true"}, kEnv, "/", ""});
  auto as_worker = capture(
      {{"/usr/bin/sudo", "-n", "-u", w.name, "--", "/usr/bin/sudo", "-n", "-l"}, kEnv, "/", ""});
  if (!reach || reach->exit_code != 0 || !as_worker)
    out.push_back(
        failed(wname, "cannot tell: running as the worker failed", sudoers_install_command(p)));
  else if (as_worker->exit_code != 0 &&
           (as_worker->err.find("password is required") != std::string::npos ||
            as_worker->err.find("may not run sudo") != std::string::npos))
    out.push_back(pass(wname));
  else
    out.push_back(failed(wname,
                         "it may run: " + (sudo_entries(as_worker->out).empty()
                                               ? as_worker->out + as_worker->err
                                               : sudo_entries(as_worker->out).front()),
                         "sudo visudo  # remove every rule granting " + w.name + " anything"));
  return out;
}

std::vector<Check> owner_checks(const UserCheckInput& in, const WorkerUser* w) {
  std::vector<Check> out;
  struct stat st {};
  std::string hname = "the owner's home " + in.owner_home + " is closed to others";
  if (::stat(in.owner_home.c_str(), &st) != 0)
    out.push_back(failed(hname, "cannot stat it", "chmod o-rwx " + in.owner_home));
  else if (st.st_mode & 07)
    out.push_back(failed(hname, fmt::format("mode {:o}", st.st_mode & 07777),
                         "chmod o-rwx " + in.owner_home));
  else
    out.push_back(pass(hname, fmt::format("mode {:o}", st.st_mode & 07777)));
  for (const char* key : {"protected_hardlinks", "protected_symlinks"}) {
    int v = read_sysctl(in.sysctl_dir, key);
    std::string name = fmt::format("fs.{} is 1", key);
    if (v == 1 || v == 2)
      out.push_back(pass(name));
    else
      out.push_back(failed(name, fmt::format("it is {}", v),
                           fmt::format("sudo sysctl -w fs.{0}=1 && echo 'fs.{0} = 1' | sudo tee -a "
                                       "/etc/sysctl.d/60-awaywork.conf",
                                       key)));
  }
  // After each phase awaywork proves by /proc that no process of the worker is left.
  std::string pname = "/proc shows other users' processes (no hidepid)";
  if (::stat("/proc/1/status", &st) == 0)
    out.push_back(pass(pname));
  else
    out.push_back(failed(pname, "pid 1 is hidden: the worker's processes could not be proved gone",
                         "sudo mount -o remount,hidepid=0 /proc"));
  if (w) {
    std::vector<gid_t> gids = {w->gid};
    std::string unreachable, kept;
    std::istringstream path(in.path_value);
    for (std::string dir; std::getline(path, dir, ':');) {
      bool under_home = dir.rfind(in.owner_home + "/", 0) == 0 || dir == in.owner_home;
      if (under_home && !can_reach(dir, w->uid, gids))
        unreachable += (unreachable.empty() ? "" : ", ") + dir;
      else
        kept += (kept.empty() ? "" : ":") + dir;
    }
    std::string name = "every PATH entry is runnable by worker " + w->name;
    if (unreachable.empty())
      out.push_back(pass(name));
    else
      out.push_back(failed(name,
                           "under the owner's closed home: " + unreachable +
                               " (install those tools outside your home, e.g. /usr/local/bin)",
                           "export PATH='" + kept + "'"));
  }
  std::string ename = "the env file " + in.env_file + " is 0600";
  if (::lstat(in.env_file.c_str(), &st) != 0)
    out.push_back(pass(ename, "absent"));
  else if (!S_ISREG(st.st_mode) || (st.st_mode & 077) || st.st_uid != in.owner_uid)
    out.push_back(failed(ename, fmt::format("mode {:o}, uid {}", st.st_mode & 07777, st.st_uid),
                         "chmod 600 " + in.env_file));
  else
    out.push_back(pass(ename));
  return out;
}

}  // namespace

bool can_reach(const std::string& path, uid_t uid, const std::vector<gid_t>& gids) {
  std::string cur;
  std::istringstream parts(path);
  std::vector<std::string> comps;
  for (std::string c; std::getline(parts, c, '/');)
    if (!c.empty()) comps.push_back(c);
  cur = "/";
  for (size_t i = 0; i <= comps.size(); ++i) {
    struct stat st {};
    if (::stat(cur.c_str(), &st) != 0) return false;
    mode_t bit = 01;
    if (st.st_uid == uid)
      bit = 0100;
    else if (std::find(gids.begin(), gids.end(), st.st_gid) != gids.end())
      bit = 010;
    if (!(st.st_mode & bit)) return false;
    if (i < comps.size()) cur += (cur == "/" ? "" : "/") + comps[i];
  }
  return true;
}

Result<UserCheckInput> current_owner(const std::string& worker) {
  UserCheckInput in;
  in.worker = worker;
  in.owner_uid = ::getuid();
  in.owner_gid = ::getgid();
  struct passwd* pw = ::getpwuid(in.owner_uid);
  if (!pw) return fail("no passwd entry for uid {}", in.owner_uid);
  in.owner = pw->pw_name;
  in.owner_home = pw->pw_dir;
  const char* path = std::getenv("PATH");
  in.path_value = path ? path : "";
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  in.env_file = (xdg && *xdg ? std::string(xdg) : in.owner_home + "/.config") + "/awaywork/env";
  return in;
}

std::vector<Check> user_checks(const UserCheckInput& in) {
  std::vector<Check> out;
  if (::access("/usr/bin/sudo", X_OK) == 0)
    out.push_back(pass("sudo is installed"));
  else
    out.push_back(failed("sudo is installed", "/usr/bin/sudo is missing",
                         "apt-get install -y sudo  # as root"));
  auto w = lookup_worker(in.worker);
  if (!w) {
    SudoersParams p{in.owner, in.owner_uid, in.owner_gid, in.worker};
    out.push_back(failed("worker user " + in.worker + " exists", w.error().message,
                         "sudo useradd --system --user-group --no-create-home --home-dir " +
                             worker_home(in.worker) + " --shell /usr/sbin/nologin " + in.worker));
    auto rest = owner_checks(in, nullptr);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  out.push_back(pass("worker user " + in.worker + " exists", fmt::format("uid {}", w->uid)));
  for (auto part : {worker_checks(in, *w), sudoers_checks(in, *w), owner_checks(in, &*w)})
    out.insert(out.end(), part.begin(), part.end());
  return out;
}

Registry::Provider user_provider(const std::string& worker) {
  return [worker] {
    auto in = current_owner(worker);
    if (!in) return std::vector<Check>{failed("the owner is known", in.error().message, "")};
    return user_checks(*in);
  };
}

Result<std::string> setup_for_current_owner(const std::string& worker) {
  AW_TRY(UserCheckInput in, current_owner(worker));
  if (!is_plain_user_name(in.owner) || !is_plain_user_name(worker))
    return fail("user names '{}' / '{}' cannot be written into sudoers lines", in.owner, worker);
  return print_setup({in.owner, in.owner_uid, in.owner_gid, worker}, in.owner_home);
}

namespace {

bool about_reading(const Check& c, const UserCheckInput& in) {
  return c.name == "the owner's home " + in.owner_home + " is closed to others" ||
         c.name == "the env file " + in.env_file + " is 0600" ||
         c.name.rfind("every PATH entry is runnable by worker ", 0) == 0;
}

}  // namespace

Result<std::vector<std::string>> user_handoff_ready(const UserCheckInput& in) {
  std::vector<std::string> warnings;
  std::string msg;
  for (const auto& c : user_checks(in)) {
    if (c.ok) continue;
    std::string line = fmt::format("✖ {}: {}\n    fix: {}", c.name, c.detail, c.fix);
    if (about_reading(c, in))
      warnings.push_back(line);
    else
      msg += "\n  " + line;
  }
  if (!msg.empty()) return fail("isolation `user` is not ready (awaywork doctor):{}", msg);
  return warnings;
}

Status user_isolation_ready(const UserCheckInput& in) {
  auto checks = user_checks(in);
  if (all_ok(checks)) return {};
  std::string msg = "isolation `user` is not ready (awaywork doctor):";
  for (const auto& c : checks)
    if (!c.ok) msg += fmt::format("\n  ✖ {}: {}\n    fix: {}", c.name, c.detail, c.fix);
  return fail(msg);
}

}  // namespace aw
