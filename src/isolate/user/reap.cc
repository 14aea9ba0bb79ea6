// kill_worker_processes: every process of the worker dies after a phase, and that is proved.
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "isolate/user/handoff.h"
#include "proc/capture.h"

namespace aw {

namespace {

// Whether /proc/PID/status names uid (any of real, effective, saved, fs) and is not a zombie.
bool live_with_uid(const std::string& pid, uid_t uid) {
  auto text = read_file("/proc/" + pid + "/status", 1 << 16);
  if (!text) return false;  // gone meanwhile
  std::istringstream in(*text);
  bool zombie = false, match = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("State:", 0) == 0)
      zombie = line.find('Z') != std::string::npos || line.find('X') != std::string::npos;
    if (line.rfind("Uid:", 0) == 0) {
      std::istringstream ids(line.substr(4));
      for (unsigned long v; ids >> v;)
        if (v == uid) match = true;
    }
  }
  return match && !zombie;
}

}  // namespace

Result<std::vector<pid_t>> worker_processes(uid_t worker_uid) {
  // With hidepid, /proc shows only the caller's own processes: pid 1 is the witness.
  struct stat st {};
  if (::stat("/proc/1/status", &st) != 0)
    return fail("/proc hides other users' processes (hidepid): cannot prove the worker's are gone");
  DIR* d = ::opendir("/proc");
  if (!d) return fail("opendir /proc: {}", errno_text(errno));
  std::vector<pid_t> out;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (live_with_uid(name, worker_uid)) out.push_back(static_cast<pid_t>(std::atoi(name.c_str())));
  }
  ::closedir(d);
  return out;
}

Status kill_worker_processes(const WorkerUser& worker) {
  std::vector<std::string> argv = {
      "/usr/bin/sudo",
      "-n",
      "-u",
      worker.name,
      "--",
      ::access("/usr/bin/kill", X_OK) == 0 ? "/usr/bin/kill" : "/bin/kill",
      "-9",
      "-1"};
  std::vector<std::string> env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};
  std::vector<pid_t> left;
  for (int round = 0; round < 100; ++round) {
    AW_TRY(left, worker_processes(worker.uid));
    if (left.empty()) return {};
    // kill -1 as the worker reaches every process the worker may signal: all of its own, in any
    // process group or session. Its exit code says little (ESRCH when all died); /proc decides.
    AW_TRY(Captured c, capture({argv, env, "/", ""}));
    if (c.exit_code != 0 && c.err.find("password") != std::string::npos)
      return fail("cannot run kill as {}: {}", worker.name, c.err);
    struct timespec ts {
      0, 20 * 1000 * 1000
    };
    ::nanosleep(&ts, nullptr);
  }
  std::string pids;
  for (pid_t p : left) pids += fmt::format(" {}", p);
  return fail("processes of {} survive kill -9:{}", worker.name, pids);
}

}  // namespace aw
