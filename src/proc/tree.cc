#include "proc/tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <unordered_map>

namespace aw {

namespace {

// "/proc/<pid>/<leaf>" into a 64-byte buffer, without stdio.
void proc_path(pid_t pid, const char* leaf, char* out) {
  std::memcpy(out, "/proc/", 6);
  char* p = std::to_chars(out + 6, out + 30, static_cast<long>(pid)).ptr;
  *p++ = '/';
  size_t n = std::strlen(leaf);
  std::memcpy(p, leaf, n);
  p[n] = 0;
}

struct Stat {
  pid_t ppid = 0;
  char state = '?';
};

// /proc/PID/stat is "pid (comm) state ppid ...": comm may hold spaces and parentheses, so parse
// from the last ')'.
bool read_stat(pid_t pid, Stat& st) {
  char path[64];
  char buf[512];
  proc_path(pid, "stat", path);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = 0;
  const char* rp = std::strrchr(buf, ')');
  if (!rp || rp + 4 >= buf + n) return false;
  st.state = rp[2];
  const char* p = rp + 4;
  auto [next, ec] = std::from_chars(p, buf + n, st.ppid);
  (void)next;
  return ec == std::errc();
}

bool dead_state(char s) {
  return s == 'Z' || s == 'X' || s == 'x';
}

}  // namespace

std::vector<pid_t> live_descendants(pid_t root) {
  std::unordered_multimap<pid_t, std::pair<pid_t, char>> kids;  // ppid -> (pid, state)
  DIR* d = ::opendir("/proc");
  if (!d) return {};
  while (dirent* e = ::readdir(d)) {
    pid_t pid = 0;
    const char* name = e->d_name;
    auto [end, ec] = std::from_chars(name, name + std::strlen(name), pid);
    if (ec != std::errc() || *end != 0 || pid <= 0) continue;
    Stat st;
    if (read_stat(pid, st)) kids.emplace(st.ppid, std::make_pair(pid, st.state));
  }
  ::closedir(d);
  std::vector<pid_t> out;
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    auto [b, e] = kids.equal_range(p);
    for (auto it = b; it != e; ++it) {
      if (!dead_state(it->second.second)) out.push_back(it->second.first);
      todo.push_back(it->second.first);
    }
  }
  return out;
}

std::string comm_of(pid_t pid) {
  char path[64];
  char buf[64];
  proc_path(pid, "comm", path);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "?";
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return "?";
  std::string s(buf, static_cast<size_t>(n));
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

bool is_live(pid_t pid) {
  Stat st;
  return read_stat(pid, st) && !dead_state(st.state);
}

}  // namespace aw
