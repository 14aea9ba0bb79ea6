#include "isolate/user/worker_programs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "isolate/user/user_checks.h"

namespace aw {

namespace {

// The mode bit that applies to the worker for st (owner, group, other).
bool worker_may(const struct stat& st, const WorkerUser& w, mode_t user_bit) {
  mode_t bit = st.st_uid == w.uid ? user_bit : st.st_gid == w.gid ? user_bit >> 3 : user_bit >> 6;
  return (st.st_mode & bit) != 0;
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

// "#!/usr/bin/env node" -> {"/usr/bin/env", "node"}; "#!/bin/sh -e" -> {"/bin/sh"}; not a script
// -> {}.
std::vector<std::string> interpreter_of(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[256];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n < 2 || buf[0] != '#' || buf[1] != '!') return {};
  std::string line(buf + 2, static_cast<size_t>(n - 2));
  line = line.substr(0, line.find('\n'));
  std::istringstream words(line);
  std::vector<std::string> out;
  for (std::string w; words >> w && out.size() < 2;) out.push_back(w);
  if (out.size() == 2 && out[0] != "/usr/bin/env" && out[0] != "/bin/env") out.resize(1);
  if (out.size() == 2 && out[1].rfind('-', 0) == 0) out.resize(1);  // env -S ...: not followed
  return out;
}

// Why the worker cannot run the file at path ("" = it can): its real path must be reachable and
// executable (and readable, for a script, whose interpreter must be runnable too).
std::string why_not(const std::string& path, const std::string& path_value, const WorkerUser& w,
                    int depth);

Result<std::string> resolve(const std::string& program, const std::string& path_value,
                            const WorkerUser& w, int depth) {
  std::vector<std::string> candidates;
  if (program.find('/') != std::string::npos) {
    // A path the owner cannot look at (inside a folder already handed to the worker, as the
    // probe's copy is) is the worker's to run: exec decides, as it always did.
    struct stat st {};
    if (::stat(program.c_str(), &st) != 0) return program;
    candidates.push_back(program);
  } else {
    std::istringstream dirs(path_value);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && d.front() == '/') candidates.push_back(d + "/" + program);
  }
  std::string first_problem;
  for (const auto& c : candidates) {
    struct stat st {};
    if (::stat(c.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(c.c_str(), X_OK) != 0)
      continue;  // the owner finds nothing runnable here either
    std::string why = why_not(c, path_value, w, depth);
    if (why.empty()) return c;
    if (first_problem.empty()) first_problem = why;
  }
  if (first_problem.empty()) return fail("{} is not found in PATH ({})", program, path_value);
  return fail("{}", first_problem);
}

std::string why_not(const std::string& path, const std::string& path_value, const WorkerUser& w,
                    int depth) {
  std::string real = real_path(path);
  if (real.empty()) return fmt::format("{}: cannot resolve its real path", path);
  std::string shown = real == path ? path : fmt::format("{} (really {})", path, real);
  std::vector<gid_t> gids = {w.gid};
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) return fmt::format("{}: cannot stat it", shown);
  auto interp = interpreter_of(real);
  if (!can_reach(real, w.uid, gids) || !worker_may(st, w, S_IXUSR) ||
      (!interp.empty() && !worker_may(st, w, S_IRUSR)))
    return fmt::format(
        "{} is not runnable by worker {}: a folder above it is closed to the worker (a home) or "
        "the file's mode denies it",
        shown, w.name);
  if (interp.empty() || depth > 2) return "";
  // The kernel runs the interpreter as the worker: it must be runnable by it too (node under
  // ~/.nvm is the usual case).
  const std::string& prog = interp.size() == 2 ? interp[1] : interp[0];
  auto found = resolve(prog, path_value, w, depth + 1);
  if (!found)
    return fmt::format("{} is a script whose interpreter {}", shown, found.error().message);
  return "";
}

std::string fix_for(const std::string& program) {
  return fmt::format(
      "install {} system-wide, where every user can run it (e.g. `sudo npm install -g PACKAGE` "
      "with npm's prefix /usr/local, or a copy in /usr/local/bin), or point the config's command "
      "at such a copy",
      program);
}

}  // namespace

Result<std::string> resolve_for_worker(const std::string& program, const std::string& path_value,
                                       const WorkerUser& worker) {
  return resolve(program, path_value, worker, 0);
}

Status programs_runnable(const std::vector<WorkerProgram>& programs, const std::string& path_value,
                         const WorkerUser& worker) {
  std::string problems;
  for (const auto& p : programs)
    if (auto r = resolve_for_worker(p.program, path_value, worker); !r)
      problems += fmt::format("{}{} ({}): {}; fix: {}", problems.empty() ? "" : "; ", p.program,
                              p.what, r.error().message, fix_for(p.program));
  if (problems.empty()) return {};
  return fail("worker {} cannot run what the unit needs: {}", worker.name, problems);
}

std::vector<Check> program_checks(const std::vector<WorkerProgram>& programs,
                                  const std::string& path_value, const WorkerUser& worker) {
  std::vector<Check> out;
  for (const auto& p : programs) {
    auto r = resolve_for_worker(p.program, path_value, worker);
    out.push_back({fmt::format("worker {} can run {} ({})", worker.name, p.program, p.what),
                   r.has_value(), r ? *r : r.error().message, r ? "" : fix_for(p.program)});
  }
  return out;
}

}  // namespace aw
