#include "record/lock_holders.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/fs.h"

namespace aw {

namespace {

struct File {
  unsigned major = 0, minor = 0;
  unsigned long inode = 0;
  std::string name;
};

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string command_of(long pid) {
  auto comm = read_file(fmt::format("/proc/{}/comm", pid), 4096);
  if (!comm) return "?";
  std::string c = *comm;
  while (!c.empty() && (c.back() == '\n' || c.back() == ' ')) c.pop_back();
  return c;
}

}  // namespace

std::string describe_lock_holders(const std::string& db) {
  std::vector<File> files;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    struct stat st {};
    std::string path = db + suffix;
    if (::stat(path.c_str(), &st) == 0)
      files.push_back({::major(st.st_dev), ::minor(st.st_dev),
                       static_cast<unsigned long>(st.st_ino), base_name(path)});
  }
  auto locks = read_file("/proc/locks", 16u << 20);
  std::set<std::string> writers, readers;
  std::istringstream in(locks ? *locks : "");
  for (std::string line; std::getline(in, line);) {
    if (line.find("->") != std::string::npos) continue;  // a waiter, not a holder
    char kind[16] = {}, mode[16] = {};
    long pid = 0;
    unsigned maj = 0, min = 0;
    unsigned long ino = 0;
    if (std::sscanf(line.c_str(), "%*d: %15s %*s %15s %ld %x:%x:%lu", kind, mode, &pid, &maj, &min,
                    &ino) != 6)
      continue;
    if (pid == ::getpid()) continue;
    for (const auto& f : files) {
      if (f.major != maj || f.minor != min || f.inode != ino) continue;
      std::string who = pid > 0 ? fmt::format("pid {} ({})", pid, command_of(pid))
                                : std::string("a process (an open file description lock)");
      bool write = std::string(mode) == "WRITE";
      (write ? writers : readers)
          .insert(fmt::format("{} holds a {} lock on {}", who, write ? "write" : "read", f.name));
    }
  }
  if (!writers.empty()) return fmt::format("{}", fmt::join(writers, "; "));
  if (!readers.empty())
    return fmt::format("no other process's write lock is seen; {}", fmt::join(readers, "; "));
  return "no other process is seen holding a lock on it now (it may have ended)";
}

}  // namespace aw
