#include "isolate/user/ipc_leftovers.h"

#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include <fmt/format.h>

#include "base/fs.h"

namespace aw {

namespace {

const char* file_of(IpcKind k) {
  switch (k) {
    case IpcKind::shm:
      return "/proc/sysvipc/shm";
    case IpcKind::sem:
      return "/proc/sysvipc/sem";
    case IpcKind::msg:
      return "/proc/sysvipc/msg";
  }
  return "";
}

// The id column is named after the kind: shmid, semid, msqid.
const char* id_column(IpcKind k) {
  switch (k) {
    case IpcKind::shm:
      return "shmid";
    case IpcKind::sem:
      return "semid";
    case IpcKind::msg:
      return "msqid";
  }
  return "";
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool to_long(const std::string& s, long long& v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::vector<IpcObject> parse_sysvipc(IpcKind kind, const std::string& text, uid_t uid) {
  std::vector<IpcObject> out;
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line)) return out;
  auto head = words(line);
  auto col = [&](const char* name) {
    auto at = std::find(head.begin(), head.end(), name);
    return at == head.end() ? -1 : static_cast<int>(at - head.begin());
  };
  int key = col("key"), id = col(id_column(kind)), u = col("uid"), cu = col("cuid");
  if (key < 0 || id < 0 || u < 0 || cu < 0) return out;
  size_t need = static_cast<size_t>(std::max({key, id, u, cu})) + 1;
  while (std::getline(lines, line)) {
    auto w = words(line);
    long long k = 0, i = 0, ou = 0, cr = 0;
    if (w.size() < need || !to_long(w[key], k) || !to_long(w[id], i) || !to_long(w[u], ou) ||
        !to_long(w[cu], cr))
      continue;
    if (static_cast<uid_t>(ou) != uid && static_cast<uid_t>(cr) != uid) continue;
    IpcObject o;
    o.kind = kind;
    o.id = static_cast<int>(i);
    o.key = static_cast<unsigned>(k);  // printed as a signed int
    o.uid = static_cast<uid_t>(ou);
    o.cuid = static_cast<uid_t>(cr);
    out.push_back(o);
  }
  return out;
}

std::vector<IpcObject> ipc_objects_of(uid_t uid) {
  std::vector<IpcObject> out;
  for (IpcKind k : {IpcKind::shm, IpcKind::sem, IpcKind::msg})
    for (auto& o : parse_sysvipc(k, read_or_empty(file_of(k)), uid)) out.push_back(o);
  return out;
}

std::vector<IpcObject> remove_ipc_objects_of(uid_t uid) {
  std::vector<IpcObject> removed;
  for (const auto& o : ipc_objects_of(uid)) {
    // The kernel checks that the caller owns or created the object: an id taken by another
    // user's object since the read is refused, not removed.
    int rc = -1;
    switch (o.kind) {
      case IpcKind::shm:
        rc = ::shmctl(o.id, IPC_RMID, nullptr);
        break;
      case IpcKind::sem:
        rc = ::semctl(o.id, 0, IPC_RMID);
        break;
      case IpcKind::msg:
        rc = ::msgctl(o.id, IPC_RMID, nullptr);
        break;
    }
    if (rc == 0) removed.push_back(o);
  }
  return removed;
}

std::string describe_ipc(const IpcObject& o) {
  const char* what = o.kind == IpcKind::shm   ? "shared memory"
                     : o.kind == IpcKind::sem ? "semaphore set"
                                              : "message queue";
  return fmt::format("SysV {} {} (key 0x{:08x})", what, o.id, o.key);
}

}  // namespace aw
